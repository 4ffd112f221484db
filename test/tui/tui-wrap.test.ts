/**
 * Prose in the terminal UI reads as Codex's: rows break between words, never inside one, and a
 * continuation row is indented under the text of its first row (`• ` answers, `  • ` list
 * items, `• Ran` command headers), at 80 and at 120 columns. Reasoning summaries render their
 * Markdown as answers do (no literal `**`). Wide characters count two columns, so no row is
 * wider than the terminal.
 */
import { describe, expect, it } from "vitest";
import { wrapLine } from "../../src/frontends/tui/style.js";
import { useExecHarness } from "../support/exec-harness.js";
import { message, reasoning, turn } from "../support/fake-model-server.js";
import { useTmuxTerminal } from "../support/tmux.js";

const h = useExecHarness();
const open = useTmuxTerminal(h);

const prose =
  "Yesterday fourteen talented engineers quietly reviewed seventeen complicated changes. Afterward everybody discussed possible improvements regarding terminal rendering behaviour. Meanwhile automated pipelines verified important invariants across many repositories before lunch.";
const item =
  "- bullet one with a long explanation that should wrap nicely at the terminal width instead of breaking words apart";
const words = new Set(`${prose} ${item}`.split(/\s+/).filter((word) => word.length > 1));

/** The answer's rows on screen, from its first row to the blank row after it. */
function answerRows(screen: string): string[] {
  const lines = screen.split("\n");
  const from = lines.findIndex((line) => line.startsWith("• Yesterday"));
  const to = lines.findIndex((line, i) => i > from && line.trim() === "");
  return lines.slice(from, to);
}

describe("word wrap in the terminal UI", () => {
  for (const width of [80, 120]) {
    it(`breaks answers between words with a hanging indent at ${width} columns`, async () => {
      h.server.enqueue(
        turn(reasoning("**Looking** at the repository `layout`."), message(`${prose}\n${item}`)),
      );
      const t = await open(["wrap please"], { width, height: 40 });
      const screen = await t.waitFor("apart");
      const rows = answerRows(screen);
      expect(rows.length).toBeGreaterThan(2);
      for (const row of rows) expect(row.length).toBeLessThanOrEqual(width);
      // Every word of the answer is whole on some row: none was cut in two.
      const shown = new Set(rows.join(" ").split(/\s+/));
      for (const word of words) expect(shown, word).toContain(word.replace(/^-$/, "•"));
      // Continuation rows hang under the text: two columns under `• `, four under `  • `.
      const bullet = rows.findIndex((row) => row.startsWith("  • bullet"));
      expect(bullet).toBeGreaterThan(0);
      for (const row of rows.slice(1, bullet)) expect(row).toMatch(/^ {2}\S/);
      for (const row of rows.slice(bullet + 1)) expect(row).toMatch(/^ {4}\S/);
      // The reasoning summary's Markdown is rendered, not shown literally.
      expect(screen).toContain("Looking at the repository layout.");
      expect(screen).not.toContain("**Looking**");
      expect(await t.capture(true)).toContain("\x1b[1mLooking");
    });
  }
});

describe("wrapLine", () => {
  it("counts wide characters as two columns and cuts a word longer than a row", () => {
    expect(wrapLine("漢字漢字漢字漢字", 10)).toEqual(["漢字漢字漢", "字漢字"]);
    expect(wrapLine("• abcdefghijklmnop qr", 10)).toEqual(["• abcdefgh", "  ijklmnop", "  qr"]);
  });

  it("reopens the style active at a break on the next row", () => {
    const rows = wrapLine("\x1b[36maaaa bbbb cccc\x1b[39m", 9);
    expect(rows).toEqual(["\x1b[36maaaa bbbb\x1b[0m", "\x1b[36mcccc\x1b[39m"]);
  });
});
