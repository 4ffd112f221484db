/**
 * Every builder of the UI's rows shows text from outside visibly (issue 37): each kind of
 * transcript block, the pickers (thread previews, cwds), the `@` menu (file names), the status
 * line (model name), an MCP elicitation and the composer (pasted text); and the screen's own
 * guard shows a raw control that reaches it instead of writing it. The UI's own styling stays.
 */
import { describe, expect, it } from "vitest";
import { ElicitationPrompt } from "../../src/frontends/tui/elicitation.js";
import { MentionMenu } from "../../src/frontends/tui/file-mentions.js";
import { composerRows } from "../../src/frontends/tui/layout.js";
import { Picker } from "../../src/frontends/tui/picker.js";
import { renderBlock } from "../../src/frontends/tui/render-blocks.js";
import { Screen } from "../../src/frontends/tui/screen.js";
import { statusRow } from "../../src/frontends/tui/status-line.js";
import { createStyle, visibleWidth } from "../../src/frontends/tui/style.js";
import type { Block } from "../../src/frontends/tui/transcript.js";

const ESC = "\u001b";
const plain = createStyle(false);
const colour = createStyle(true);
/** What the terminal would act on: any C0 control but newline (rows are joined by it), DEL, C1, bidi. */
const RAW_CLASS = "[\\u0000-\\u0009\\u000b-\\u001f\\u007f-\\u009f\\u202a-\\u202e\\u2066-\\u2069]";
const RAW = new RegExp(RAW_CLASS);
/** The rows without the UI's own SGR codes. */
const unstyled = (rows: string[]) => rows.map((row) => row.replace(new RegExp(`${ESC}\\[[0-9;]*m`, "g"), ""));

const hostile = `a${ESC}]2;T\u0007b\rc\u202ed\u009b`;
const shown = "a^[]2;T^Gb^Mc<U+202E>d<U+009B>";

const blocks: Block[] = [
  { kind: "user", text: hostile, id: "u", version: 0 },
  { kind: "agent", text: `${hostile}\n\`\`\`ts\n${hostile}\n\`\`\``, id: "a", version: 0 },
  { kind: "reasoning", text: hostile, id: "r", version: 0 },
  {
    kind: "command",
    command: hostile,
    status: "completed",
    exitCode: 0,
    output: hostile,
    id: "c",
    version: 0,
  },
  {
    kind: "fileChange",
    changes: [{ path: hostile, kind: "update", diff: `+${hostile}` }],
    status: "completed",
    id: "f",
    version: 0,
  },
  { kind: "plan", explanation: hostile, steps: [{ step: hostile, status: "pending" }], id: "p", version: 0 },
  { kind: "tool", title: hostile, status: "completed", id: "t", version: 0 },
  { kind: "notice", text: hostile, tone: "error", id: "n", version: 0 },
];

describe("rows of text from outside", () => {
  it("every block kind shows its text visibly, styled or not", () => {
    for (const style of [plain, colour]) {
      for (const block of blocks) {
        const rows = renderBlock(block, 200, style);
        expect(unstyled(rows).join("\n"), block.kind).not.toMatch(RAW);
        expect(unstyled(rows).join("\n"), block.kind).toContain(shown);
      }
    }
  });

  it("a command of several lines shows each line; wrapping counts the replacement's width", () => {
    const block: Block = {
      kind: "command",
      command: `echo one\necho ${ESC}[2Ktwo`,
      status: "completed",
      exitCode: 0,
      output: `${ESC}`.repeat(30),
      id: "c",
      version: 0,
    };
    const rows = renderBlock(block, 20, plain);
    expect(rows[0]).toBe("• Ran echo one");
    expect(rows[1]).toMatch(/^ {4}echo \^\[\[2Ktwo ·/);
    for (const row of rows) expect(visibleWidth(row)).toBeLessThanOrEqual(20);
    expect(rows.filter((row) => row.includes("^[")).join("")).toContain("^[^[^[");
  });

  it("picker labels and details, the @ menu, the status line and an elicitation show it visibly", () => {
    const picker = new Picker("Resume", [{ label: hostile, detail: hostile, value: "x" }], () => {});
    expect(unstyled(picker.rows(colour, 200)).join("\n")).toContain(`› ${shown}  ${shown}`);

    const menu = new MentionMenu(
      () => Promise.resolve([]),
      () => {},
    );
    (menu as unknown as { matches: string[] }).matches = [hostile];
    expect(unstyled(menu.rows(colour, 200))).toEqual([`› ${shown}`]);

    const status = statusRow(
      { thread: { model: hostile, sandbox: "s", approvalPolicy: "a" }, usage: null, turnStartedAt: null },
      colour,
      200,
    );
    expect(unstyled([status])[0]).toBe(`${shown} · sandbox s · approval a`);

    const prompt = new ElicitationPrompt(
      {
        serverName: hostile,
        mode: "form",
        message: hostile,
        requestedSchema: { properties: { f: { type: "string", title: hostile, enum: [hostile] } } },
      },
      () => {},
    );
    const rows = unstyled(prompt.rows(colour, 200)).join("\n");
    expect(rows).not.toMatch(RAW);
    expect(rows).toContain(`${shown} asks`);
    expect(rows).toContain(`1. ${shown}`);
  });

  it("pasted text in the composer is shown visibly around the cursor", () => {
    const rows = composerRows(hostile, 2, 200, colour, "");
    expect(unstyled(rows).join("\n")).not.toMatch(RAW);
    expect(unstyled(rows)[1]).toBe(`› a^[]2;T^Gb^Mc<U+202E>d<U+009B>`);
  });

  it("the screen writes the UI's own styling but shows any raw control a row still holds", () => {
    let written = "";
    const screen = new Screen({ write: (text) => (written += text) }, 24);
    screen.draw([colour.bold("ok"), `x${ESC}]52;c;aGk=\u0007y\n${ESC}[8mz`]);
    expect(written).toContain(`${ESC}[1mok${ESC}[22m`);
    expect(written).toContain("x^[]52;c;aGk=^Gy^J^[[8mz");
    expect(written).not.toContain(`${ESC}]52`);
  });
});
