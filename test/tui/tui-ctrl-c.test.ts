/**
 * Ctrl+C in the terminal UI, as a Codex user presses it (tmux, fake model): during a running
 * command it interrupts the turn and the command's process is killed (Esc still does the same);
 * with text in the composer it clears the text; on an idle, empty composer it asks for a second
 * press (in the composer's hint, never as transcript lines) and the second press quits with 0.
 * At 80 and 120 columns.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { useExecHarness } from "../support/exec-harness.js";
import { functionCall, message, turn } from "../support/fake-model-server.js";
import { alive, gone } from "../support/processes.js";
import { useTmuxTerminal } from "../support/tmux.js";

const h = useExecHarness();
const open = useTmuxTerminal(h);

function pidIn(path: string): number {
  try {
    return Number(readFileSync(path, "utf8").trim()) || 0;
  } catch {
    return 0;
  }
}

describe("Ctrl+C in the terminal UI", () => {
  for (const width of [80, 120]) {
    it(`interrupts a running command, then quits on a second press when idle (${width} columns)`, async () => {
      h.server.enqueue(
        turn(
          functionCall(
            "shell_command",
            { command: "sleep 61 & echo $! > sleeper.pid; wait", timeout_ms: 120000 },
            "call_1",
          ),
        ),
        turn(message("after the interrupt")),
      );
      const t = await open(["--dangerously-bypass-approvals-and-sandbox", "sleep please"], {
        width,
        height: 30,
      });
      await t.waitFor(/Running sleep 61/);
      const pidFile = join(h.work, "sleeper.pid");
      await t.waitFor(() => pidIn(pidFile) > 0);
      const pid = pidIn(pidFile);
      expect(await alive(pid)).toBe(true);

      await t.send("C-c");
      const screen = await t.waitFor("■ interrupted");
      expect(screen).toMatch(/sleep 61 .* · interrupted/);
      expect(screen).not.toContain("press Ctrl+C again");
      expect(await gone(pid)).toBe(true);

      // Text in the composer: Ctrl+C clears it and does not arm the quit.
      await t.type("half a thought");
      await t.waitFor("› half a thought");
      await t.send("C-c");
      await t.waitFor((s) => !s.includes("half a thought") && s.includes("Ask anything"));

      // Idle and empty: the first press asks, in the composer, the second quits.
      await t.send("C-c");
      await t.waitFor(/› +press Ctrl\+C again to quit/);
      await t.send("C-c");
      expect(await t.exitCode()).toBe(0);
      const after = await t.capture();
      expect(after).not.toContain("press Ctrl+C again to quit");
      expect(h.server.requests).toHaveLength(1);
    });
  }
});
