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
      // Long enough past one second that a late tick on a loaded machine still shows "1s".
      turn(functionCall("shell_command", { command: "sleep 2.2" }, "c1")),
      turn(delay(1800), message("done")), // under the harness's 2 s stream idle timeout
    );
    const result = await runOnPty(["exec", "-s", "danger-full-access", "go"]);
    expect(result.code, result.stderr).toBe(0);
    // Colours off (the pty makes them on); what is left: drawn in place (carriage return, erase
    // line) with a whole second elapsed at least once, and cleared before the output that follows.
    const ESC = "\u001b";
    const shown = result.stderr.replace(new RegExp(`${ESC}\\[\\d+m`, "g"), "");
    // A tick past 0 s (under load the 1 s tick may come late and show 2 s).
    const ticked = ["1s", "2s"].some((tick) =>
      shown.includes(`\r${ESC}[2Krunning sleep 2.2 · ${tick}\r${ESC}[2K`),
    );
    expect(ticked, shown).toBe(true);
    expect(shown).toContain(`\r${ESC}[2Kthinking · 1s`);
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
