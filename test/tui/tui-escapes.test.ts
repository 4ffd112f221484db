/**
 * Terminal escapes in untrusted text never reach the terminal raw (issue 37): model text,
 * reasoning and command output carrying OSC 2 (title), OSC 52 (clipboard, tmux's
 * `set-clipboard on` takes it into a paste buffer) and OSC 8 (link) leave the pane's title and
 * tmux's buffers alone and show on screen in caret notation; an approval prompt for a command
 * hiding itself behind CR and an erase-line shows the whole command, and approving runs it.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { useExecHarness } from "../support/exec-harness.js";
import { functionCall, message, reasoning, turn } from "../support/fake-model-server.js";
import { requireSandbox } from "../support/skips.js";
import { useTmuxTerminal } from "../support/tmux.js";

const h = useExecHarness();

const open = useTmuxTerminal(h);

const base64 = (text: string) => Buffer.from(text).toString("base64");

describe("terminal escapes in the terminal UI", () => {
  it("model text and reasoning: OSC 2, 52 and 8 are shown, not obeyed", async () => {
    const answer = [
      "title\u001b]2;pwned-by-message\u0007",
      `clip\u001b]52;c;${base64("stolen-by-message")}\u0007`,
      "link \u001b]8;;http://evil.example/\u001b\\click here\u001b]8;;\u001b\\",
      "bidi \u202eevil\u202c c1 \u009b2J",
      "end-of-answer",
    ].join("\n");
    h.server.enqueue(turn(reasoning("thinking\u001b]2;pwned-by-reasoning\u0007 hard"), message(answer)));
    const t = await open(["--dangerously-bypass-approvals-and-sandbox", "say it"], { clipboard: true });
    const screen = await t.waitFor("end-of-answer");
    expect(await t.paneTitle()).not.toContain("pwned");
    expect(await t.pasteBuffers()).toBe("");
    expect(screen).toContain("title^[]2;pwned-by-message^G");
    expect(screen).toContain(`clip^[]52;c;${base64("stolen-by-message")}^G`);
    expect(screen).toContain("link ^[]8;;http://evil.example/^[\\click here^[]8;;^[\\");
    expect(screen).toContain("bidi <U+202E>evil<U+202C> c1 <U+009B>2J");
    expect(screen).toContain("thinking^[]2;pwned-by-reasoning^G hard");
  });

  it("command output: OSC 2, 52 and a carriage return are shown, not obeyed", async () => {
    const script = [
      `printf '\\033]2;pwned-by-output\\007\\n'`,
      `printf '\\033]52;c;%s\\007\\n' "$(printf stolen-by-output | base64)"`,
      `printf 'secret\\rcover\\n'`,
    ].join("; ");
    h.server.enqueue(
      turn(functionCall("shell_command", { command: script }, "call_1")),
      turn(message("output-shown")),
    );
    const t = await open(["--dangerously-bypass-approvals-and-sandbox", "print"], { clipboard: true });
    const screen = await t.waitFor("output-shown");
    expect(await t.paneTitle()).not.toContain("pwned");
    expect(await t.pasteBuffers()).toBe("");
    expect(screen).toContain("│ ^[]2;pwned-by-output^G");
    expect(screen).toContain(`│ ^[]52;c;${base64("stolen-by-output")}^G`);
    expect(screen).toContain("│ secret^Mcover");
  });

  it("an approval prompt shows a command that hides behind CR and erase-line in full; y runs it", async () => {
    await requireSandbox(); // its command runs sandboxed
    const command = "touch X #\r\u001b[2KRun ls -la";
    h.server.enqueue(
      turn(functionCall("shell_command", { command }, "call_1")),
      turn(message("approved-and-ran")),
    );
    const t = await open(["-s", "workspace-write", "-a", "untrusted", "make X"]);
    const screen = await t.waitFor("Approval needed");
    expect(screen).toContain("Run touch X #^M^[[2KRun ls -la");
    await t.type("y");
    const after = await t.waitFor("approved-and-ran");
    expect(after).toContain("approved: touch X #^M^[[2KRun ls -la");
    expect(existsSync(join(h.work, "X"))).toBe(true);
    expect(h.outputOf(1, "call_1")).toMatch(/Exit code: 0/);
  });

  it("a request_user_input question and its options are shown; the answer is the option's exact label", async () => {
    const label = "Red\u001b[8m hidden";
    const questions = [
      {
        id: "color",
        header: "Color\u001b]2;pwned-by-header\u0007",
        question: "Pick\u001b[2K a color?",
        options: [{ label, description: "warm\u009d" }],
      },
    ];
    h.server.enqueue(
      turn(functionCall("request_user_input", { questions }, "call_q")),
      turn(message("answered")),
    );
    const t = await open(["-c", "features.collaboration_modes=true", "ask me"]);
    const screen = await t.waitFor("a color?");
    expect(await t.paneTitle()).not.toContain("pwned");
    expect(screen).toContain("Color^[]2;pwned-by-header^G (1/1)");
    expect(screen).toContain("Pick^[[2K a color?");
    expect(screen).toContain("1. Red^[[8m hidden — warm<U+009D>");
    await t.type("1");
    await t.send("Enter");
    await t.waitFor("answered");
    expect(h.outputOf(1, "call_q")).toBe(JSON.stringify({ answers: { color: { answers: [label] } } }));
  });
});
