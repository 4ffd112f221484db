/**
 * The status line of human exec output: on a terminal (stderr is a pty here, made by python3's
 * pty module) the elapsed time shows while a command runs and while the model thinks, redrawn
 * in place; on a pipe there is no such line.
 */
import { describe, expect, it } from "vitest";
import { useExecHarness } from "../support/exec-harness.js";
import { delay, functionCall, message, turn } from "../support/fake-model-server.js";
import { cliStderrOnPty } from "../support/pty.js";

const h = useExecHarness({ key: "k", execArgs: ["-s", "danger-full-access"] });

const runOnPty = (args: string[]) =>
  cliStderrOnPty(args, { cwd: h.work, env: { HOME: h.home, TSCODEX_HOME: h.home, FAKE_KEY: "k" } });

describe("exec status line", () => {
  it("shows the elapsed time of a running command and of the model's thinking on a terminal", async () => {
    h.server.enqueue(
      turn(functionCall("shell_command", { command: "sleep 2.2" }, "c1")),
      turn(delay(1800), message("done")), // under the harness's 2 s stream idle timeout
    );
    const result = await runOnPty(["exec", "-s", "danger-full-access", "go"]);
    expect(result.code, result.stderr).toBe(0);
    // Colours off (the pty makes them on). What the line must show, whichever ticks a loaded
    // machine happens to draw: the elapsed whole seconds, never going back, reaching at least 1 s
    // while the command runs and again while the model thinks after it; each draw in place
    // (carriage return, erase line) and erased again before any output is written.
    const ESC = "\u001b";
    const shown = result.stderr.replace(new RegExp(`${ESC}\\[\\d+m`, "g"), "");
    const ticks = (label: string, text = shown) =>
      [...text.matchAll(new RegExp(`\r${ESC}\\[2K${label} · (\\d+)s`, "g"))].map((match) => Number(match[1]));
    const running = ticks("running sleep 2\\.2");
    expect(Math.max(...running), shown).toBeGreaterThanOrEqual(1);
    expect(running, shown).toEqual([...running].sort((a, b) => a - b));
    const afterCommand = shown.slice(shown.indexOf("succeeded in"));
    expect(Math.max(...ticks("thinking", afterCommand)), shown).toBeGreaterThanOrEqual(1);
    // Every draw is followed by an erase (the next draw, or the output that follows).
    expect(shown, shown).not.toMatch(new RegExp(`(thinking|running sleep 2\\.2) · \\d+s(?!\r${ESC}\\[2K)`));
  });

  it("is absent when stderr is not a terminal", async () => {
    h.server.enqueue(
      turn(functionCall("shell_command", { command: "sleep 1.2" }, "c1")),
      turn(message("done")),
    );
    const result = await h.exec(["go"]);
    expect(result.code).toBe(0);
    expect(result.stderr).not.toContain("\r");
    expect(result.stderr).not.toMatch(/thinking|running sleep/);
  });
});
