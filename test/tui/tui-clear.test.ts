/**
 * /clear in the terminal UI (tmux, fake model): as Codex's, it wipes the screen and the
 * terminal's scrollback and starts a new thread, which the server opens with
 * `sessionStartSource: "clear"`, so a SessionStart hook hears source "clear". As Codex's, it
 * is refused while a turn runs.
 */
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { recorded, recorder, writeHooksJson } from "../hooks/hook-fixtures.js";
import { useExecHarness } from "../support/exec-harness.js";
import { delay, message, turn } from "../support/fake-model-server.js";
import { useTmuxTerminal } from "../support/tmux.js";

const h = useExecHarness();

const open = useTmuxTerminal(h);

describe("/clear in the terminal UI", () => {
  it("empties the screen and scrollback; the next prompt runs in a new thread whose SessionStart says clear", async () => {
    const log = join(h.home, "hook-log");
    await mkdir(log);
    await writeHooksJson(h.home, { SessionStart: [{ command: recorder(log, "SessionStart") }] });
    expect((await h.cli(["hooks", "trust", "--all"])).code).toBe(0);
    // Long enough to push the first thread's start into the scrollback of a 30-row terminal.
    const long = Array.from({ length: 50 }, (_, i) => `old line ${i}`).join("\n\n");
    h.server.enqueue(turn(message(`${long}\n\nfirst thread answer`)), turn(message("second thread answer")));
    const t = await open(["remember alpha"]);
    await t.waitFor("first thread answer");
    expect(await t.scrollback()).toContain("old line 0");

    await t.type("/cl");
    const menu = await t.waitFor("/clear");
    expect(menu).toMatch(/\/clear\s+clear the terminal and start a new thread/);
    await t.type("ear");
    await t.send("Enter");
    const cleared = await t.waitFor((screen) => !screen.includes("first thread answer"));
    expect(cleared).not.toMatch(/old line|remember alpha|unknown command/);
    expect(cleared).toContain("Ask anything");
    // Only the new thread's header, the composer and the status line are left on screen;
    // nothing old in the scrollback.
    const header = /^(>_ tscodex|model:|directory:|thread:)/;
    expect(cleared).toMatch(/^thread: +\S+/m);
    expect(
      cleared.split("\n").filter((row) => row.trim() !== "" && !header.test(row)).length,
    ).toBeLessThanOrEqual(3);
    expect(await t.scrollback()).not.toMatch(/old line|remember alpha/);

    await t.type("hello again");
    await t.send("Enter");
    await t.waitFor("second thread answer");
    expect(h.server.requests).toHaveLength(2);
    expect(JSON.stringify(h.server.requests[1]?.input)).not.toContain("remember alpha");
    const starts = await recorded(log, "SessionStart");
    const bySource = Object.fromEntries(starts.map((payload) => [payload.source, payload.session_id]));
    expect(Object.keys(bySource).sort()).toEqual(["clear", "startup"]);
    expect(bySource.clear).not.toBe(bySource.startup);
  });

  it("is refused while a turn runs, which then ends in the same thread", async () => {
    h.server.enqueue(turn(delay(1500), message("slow answer")));
    const t = await open(["take your time"]);
    await t.waitFor(/working \d+s/);
    await t.type("/clear");
    await t.send("Enter");
    const refused = await t.waitFor("/clear is disabled while a turn runs");
    expect(refused).toContain("take your time");
    await t.waitFor("slow answer");
    expect(h.server.requests).toHaveLength(1);
  });
});
