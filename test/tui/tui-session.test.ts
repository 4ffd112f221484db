/**
 * A session of the terminal UI from start to exit, as a Codex user meets it (tmux, fake
 * model): the header names the model, the directory and the thread; the shell's earlier
 * output and the scrollback are kept, with no composer or status row left in them, during the
 * session or after it; exit prints Codex's `resume` hint (and no composer stays on screen);
 * quitting without a prompt stores no thread; `resume` takes an id prefix as `exec resume`
 * does, and a resumed thread shows its commands, file changes and plan, not only its prompts
 * and answers.
 */
import { describe, expect, it } from "vitest";
import { useExecHarness } from "../support/exec-harness.js";
import { customToolCall, functionCall, message, turn } from "../support/fake-model-server.js";
import { useTmuxTerminal } from "../support/tmux.js";
import { EARLIER, everything, openAfterOutput } from "./after-output.js";

const h = useExecHarness();
const open = useTmuxTerminal(h);

/** Rows only the live UI draws: the composer's rule and hint, the status line. */
const LIVE_ROWS = /^─{20,}$|Ask anything|Enter steers|· sandbox /m;

describe("a terminal UI session", () => {
  it("keeps the shell's output and the scrollback clean, and prints the resume hint on exit (80 columns)", async () => {
    const long = Array.from({ length: 40 }, (_, i) => `answer row ${i + 1}`).join("\n");
    h.server.enqueue(turn(message(`${long}\nthe last row`)));
    const t = await openAfterOutput(h, ["tell me a lot"], { width: 80, height: 24 });
    try {
      const screen = await t.waitFor("the last row");
      const header = screen.match(/^thread: +(\S+)/m) ?? (await everything(t)).match(/^thread: +(\S+)/m);
      const threadId = header?.[1] ?? "";
      expect(threadId).toMatch(/^[0-9a-f-]{36}$/);
      const scrollback = await t.scrollback();
      // The shell's line, then the header and the answer's first rows scrolled off, in order.
      expect(scrollback.indexOf(EARLIER)).toBeGreaterThanOrEqual(0);
      expect(scrollback.indexOf(EARLIER)).toBeLessThan(scrollback.indexOf(">_ tscodex"));
      expect(scrollback).toMatch(/model: +gpt-5\.2-codex/);
      expect(scrollback).toContain(`directory: ${h.work}`);
      expect(scrollback).toContain("answer row 1\n");
      expect(scrollback).not.toMatch(LIVE_ROWS);
      // Every answer row once, in order, with nothing between them (no stale frame rows).
      const all = await everything(t);
      expect(all).toContain(`• ${long.split("\n").join("\n  ")}\n  the last row\n`);

      await t.send("C-d");
      expect(await t.exitCode()).toBe(0);
      const after = await everything(t);
      expect(after).toContain(`To continue this session, run:\n  tscodex resume ${threadId}`);
      expect(after).not.toMatch(LIVE_ROWS);
    } finally {
      await t.kill();
    }
  });

  it("quitting without a prompt stores no thread and prints no hint (120 columns)", async () => {
    const t = await open([], { width: 120, height: 30 });
    const screen = await t.waitFor(/^thread: +\S+/m);
    const threadId = screen.match(/^thread: +(\S+)/m)?.[1] ?? "";
    expect(screen).toContain(`directory: ${h.work}`);
    await t.send("C-d");
    expect(await t.exitCode()).toBe(0);
    expect(await everything(t)).not.toContain("tscodex resume");
    const listed = await h.cli(["sessions", "list"]);
    expect(listed.code).toBe(0);
    expect(listed.stdout).not.toContain(threadId.slice(0, 8));
  });

  for (const width of [80, 120]) {
    it(`resume by an id prefix shows the thread's commands and file changes (${width} columns)`, async () => {
      h.server.enqueue(
        turn(
          functionCall(
            "update_plan",
            {
              explanation: "two steps",
              plan: [
                { step: "write the marker", status: "completed" },
                { step: "add the file", status: "in_progress" },
              ],
            },
            "call_plan",
          ),
          functionCall("shell_command", { command: "echo RESUMECMD > marker.txt" }, "call_cmd"),
          customToolCall(
            "apply_patch",
            "*** Begin Patch\n*** Add File: added.txt\n+patched line\n*** End Patch",
          ),
        ),
        turn(message("marker command done")),
      );
      const ran = await h.exec(["-s", "danger-full-access", "--json", "run the marker command"]);
      expect(ran.code).toBe(0);
      const threadId = /"thread_id":"([^"]+)"/.exec(ran.stdout)?.[1] ?? "";
      expect(threadId).not.toBe("");

      const t = await open(["resume", threadId.slice(0, 13)], { width, height: 40 });
      const screen = await t.waitFor("marker command done");
      expect(screen).toContain("› run the marker command");
      expect(screen).toMatch(/Ran echo RESUMECMD > marker\.txt/);
      expect(screen).toMatch(/Edited added\.txt/);
      expect(screen).toContain("+patched line");
      // Its plan too (Codex's protocol keeps none with a turn: tscodex's stored turns do).
      expect(screen).toContain("write the marker");
      expect(screen).toContain("add the file");
      expect(screen).toContain(`thread:    ${threadId}`);
      await t.send("C-d");
      expect(await t.exitCode()).toBe(0);
      expect(await everything(t)).toContain(`tscodex resume ${threadId}`);
    });
  }

  it("a thread made in the UI, with an approved command, comes back with that command (120 columns)", async () => {
    h.server.enqueue(
      turn(functionCall("shell_command", { command: "touch tui.txt" }, "call_1")),
      turn(message("file made")),
    );
    let t = await open(["-s", "danger-full-access", "-a", "untrusted", "Create a file please"], {
      width: 120,
      height: 40,
    });
    await t.waitFor("Approval needed");
    await t.type("y");
    await t.waitFor("file made");
    await t.send("C-d");
    expect(await t.exitCode()).toBe(0);

    t = await open(["resume", "--last"], { width: 120, height: 40 });
    const screen = await t.waitFor("resumed thread");
    expect(screen).toContain("› Create a file please");
    expect(screen).toMatch(/Ran touch tui\.txt · exit 0/);
    expect(screen).toContain("file made");
  });
});
