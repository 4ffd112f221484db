/**
 * Slash commands and thread continuity in the terminal UI (tmux, fake model): /diff, /compact
 * (thread/compact/start, or a clear message when the server lacks it), /new, Enter during a turn
 * (turn/steer, or a message when the server answers -32601), `tscodex resume --last` with the
 * history on screen, and `tscodex exec resume --last` continuing a thread begun in the UI.
 */
import { describe, expect, it } from "vitest";
import { useExecHarness } from "../support/exec-harness.js";
import { customToolCall, delay, message, turn } from "../support/fake-model-server.js";
import { type TmuxTerminal, useTmuxTerminal } from "../support/tmux.js";

const h = useExecHarness();

const open = useTmuxTerminal(h);

const command = async (t: TmuxTerminal, text: string) => {
  await t.type(text);
  await t.send("Enter");
};

describe("slash commands and threads in the terminal UI", () => {
  it("/diff shows the working tree's changes, /compact says what the server lacks", async () => {
    const patch = "*** Begin Patch\n*** Add File: hello.txt\n+hello from the patch\n*** End Patch\n";
    h.server.enqueue(turn(customToolCall("apply_patch", patch, "call_p")), turn(message("patched")));
    const t = await open(["-s", "workspace-write", "-a", "never", "patch it"]);
    await t.waitFor("patched");
    await command(t, "/diff");
    const screen = await t.waitFor("+++ b/hello.txt");
    expect(screen).toMatch(/\+hello from the patch[\s\S]*\+hello from the patch/);
    await t.type("/co");
    const menu = await t.waitFor("/compact");
    expect(menu).toMatch(/\/compact\s+summarize the conversation/);
    expect(menu).not.toContain("/quit");
    await t.send("C-u");
    await command(t, "/compact");
    await t.waitFor(/\/compact: this server has no thread\/compact\/start|compacting the conversation/);
  });

  it("/new starts a fresh thread: the next turn carries no earlier messages", async () => {
    h.server.enqueue(turn(message("first thread answer")), turn(message("second thread answer")));
    const t = await open(["remember alpha"]);
    await t.waitFor("first thread answer");
    await command(t, "/new");
    const cleared = await t.waitFor("new thread started");
    expect(cleared).not.toContain("first thread answer");
    await command(t, "hello again");
    await t.waitFor("second thread answer");
    expect(JSON.stringify(h.server.requests[1]?.input)).not.toContain("remember alpha");
  });

  it("Enter while a turn runs steers it, or says the server cannot", async () => {
    h.server.enqueue(turn(delay(1500), message("slow answer")));
    const t = await open(["take your time"]);
    await t.waitFor(/working \d+s/);
    await command(t, "also do this");
    await t.waitFor(/does not support turn\/steer|steered: also do this/);
    await t.waitFor("slow answer");
  });

  it("resume --last shows the thread's history; exec resume --last continues it", async () => {
    h.server.enqueue(turn(message("noted alpha")));
    let t = await open(["remember alpha"]);
    await t.waitFor("noted alpha");
    await t.send("C-d");
    expect(await t.exitCode()).toBe(0);

    t = await open(["resume", "--last"]);
    const screen = await t.waitFor("resumed thread");
    expect(screen).toContain("› remember alpha");
    expect(screen).toContain("noted alpha");
    await t.send("C-d");
    expect(await t.exitCode()).toBe(0);

    h.server.enqueue(turn(message("continued")));
    const result = await h.cli(["exec", "--skip-git-repo-check", "resume", "--last", "and beta"]);
    expect(result.code).toBe(0);
    const input = JSON.stringify(h.server.requests.at(-1)?.input);
    expect(input).toContain("remember alpha");
    expect(input).toContain("noted alpha");
  });
});
