/**
 * What a turn shows in the terminal UI (tmux, fake model): a command's status, exit code and
 * folded output; an approval answered with `y` and with `n`; a file change as a coloured diff;
 * a plan as a checklist; Esc interrupting a running command (its process gone).
 */
import { existsSync, readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { useExecHarness } from "../support/exec-harness.js";
import { customToolCall, functionCall, message, turn } from "../support/fake-model-server.js";
import { alive, gone } from "../support/processes.js";
import { requireSandbox } from "../support/skips.js";
import { useTmuxTerminal } from "../support/tmux.js";

const h = useExecHarness();

const open = useTmuxTerminal(h);

describe("turns in the terminal UI", () => {
  it("shows a command with its exit code and the tail of its output", async () => {
    h.server.enqueue(
      turn(functionCall("shell_command", { command: "seq 1 12; exit 3" }, "call_1")),
      turn(message("counted")),
    );
    const t = await open(["--dangerously-bypass-approvals-and-sandbox", "count"]);
    const screen = await t.waitFor("counted");
    expect(screen).toMatch(/Ran seq 1 12; exit 3 · exit 3/);
    expect(screen).toContain("… 7 earlier lines");
    expect(screen).toMatch(/│ 8\n[^\n]*│ 9\n[^\n]*│ 10\n[^\n]*│ 11\n[^\n]*│ 12/);
    expect(screen).not.toMatch(/│ 7\n/);
  });

  it("asks before a command: y runs it once, n declines the next", async () => {
    await requireSandbox(); // its command runs sandboxed
    h.server.enqueue(
      turn(functionCall("shell_command", { command: "touch approved.txt" }, "call_1")),
      turn(functionCall("shell_command", { command: "touch denied.txt" }, "call_2")),
      turn(message("both asked")),
    );
    const t = await open(["-s", "workspace-write", "-a", "untrusted", "make files"]);
    let screen = await t.waitFor("Approval needed");
    expect(screen).toContain("Run touch approved.txt");
    expect(screen).toMatch(/y yes once\s+a yes for this session\s+n\/Esc no/);
    await t.type("y");
    screen = await t.waitFor("Run touch denied.txt");
    expect(existsSync(join(h.work, "approved.txt"))).toBe(true);
    await t.type("n");
    screen = await t.waitFor("both asked");
    expect(screen).toContain("denied: touch denied.txt");
    expect(existsSync(join(h.work, "denied.txt"))).toBe(false);
    expect(h.outputOf(2, "call_2")).toMatch(/reject|declin|denied/i);
  });

  it("shows a file change as a diff and a plan as a checklist", async () => {
    const patch = "*** Begin Patch\n*** Add File: hello.txt\n+hello from the patch\n*** End Patch\n";
    h.server.enqueue(
      turn(
        functionCall("update_plan", {
          plan: [
            { step: "write the file", status: "completed" },
            { step: "check it", status: "in_progress" },
          ],
        }),
        customToolCall("apply_patch", patch, "call_p"),
      ),
      turn(message("patched")),
    );
    const t = await open([
      "-s",
      "workspace-write",
      "-a",
      "never",
      "-c",
      "tools.update_plan=true",
      "patch it",
    ]);
    const screen = await t.waitFor("patched");
    expect(screen).toMatch(/✔ write the file/);
    expect(screen).toMatch(/□ check it/);
    expect(screen).toMatch(/Edited hello\.txt \(added\)/);
    expect(screen).toContain("+hello from the patch");
    expect(await t.capture(true)).toContain("\x1b[32m+hello from the patch");
    expect(await readFile(join(h.work, "hello.txt"), "utf8")).toBe("hello from the patch\n");
  });

  it("asks a request_user_input question; a typed option number answers it", async () => {
    const questions = [
      {
        id: "color",
        header: "Color",
        question: "Pick a color?",
        options: [
          { label: "Red", description: "warm" },
          { label: "Blue", description: "cool" },
        ],
      },
    ];
    h.server.enqueue(
      turn(functionCall("request_user_input", { questions }, "call_q")),
      turn(message("got it")),
    );
    const terminal = await open(["-c", "features.collaboration_modes=true", "ask me"]);
    const screen = await terminal.waitFor("Pick a color?");
    expect(screen).toMatch(/2\. Blue — cool/);
    await terminal.type("2");
    await terminal.send("Enter");
    await terminal.waitFor("got it");
    expect(h.outputOf(1, "call_q")).toBe(JSON.stringify({ answers: { color: { answers: ["Blue"] } } }));
  });

  it("Esc interrupts a running command: its process is gone and the screen says interrupted", async () => {
    h.server.enqueue(
      turn(
        functionCall(
          "shell_command",
          { command: "sleep 60 & echo $! > sleeper.pid; wait", timeout_ms: 120000 },
          "call_1",
        ),
      ),
      turn(message("never reached")),
    );
    const t = await open(["--dangerously-bypass-approvals-and-sandbox", "sleep"]);
    await t.waitFor(/Running sleep 60/);
    const pidFile = join(h.work, "sleeper.pid");
    await t.waitFor(() => /\d/.test(fileText(pidFile)));
    const pid = Number((await readFile(pidFile, "utf8")).trim());
    expect(await alive(pid)).toBe(true);
    await t.send("Escape");
    const screen = await t.waitFor("■ interrupted");
    expect(screen).toMatch(/sleep 60 .* · interrupted/);
    // Killed; a zombie left to init counts as gone, and the kernel may take a moment.
    expect(await gone(pid)).toBe(true);
  });
});

function fileText(path: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return "";
  }
}
