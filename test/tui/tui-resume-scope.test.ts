/**
 * Which stored threads `tscodex resume` offers (tmux, fake model): as Codex, those started in the
 * current directory (the server filters thread/list on `cwd`) for the picker, `/resume` and
 * `--last`; `--all` lists every directory's, each with its cwd.
 */
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { useExecHarness } from "../support/exec-harness.js";
import { message, turn } from "../support/fake-model-server.js";
import { type TmuxTerminal, useTmuxTerminal } from "../support/tmux.js";

const h = useExecHarness();

const open = useTmuxTerminal(h);

const command = async (t: TmuxTerminal, text: string) => {
  await t.type(text);
  await t.send("Enter");
};

/** One thread started here, then a newer one started in `elsewhere` (with `-C`). */
async function twoDirectories(): Promise<string> {
  const elsewhere = join(h.work, "elsewhere");
  await mkdir(elsewhere);
  h.server.enqueue(turn(message("noted here")), turn(message("noted elsewhere")));
  let t = await open(["remember here"]);
  await t.waitFor("noted here");
  await t.send("C-d");
  expect(await t.exitCode()).toBe(0);
  t = await open(["-C", elsewhere, "remember elsewhere"]);
  await t.waitFor("noted elsewhere");
  await t.send("C-d");
  expect(await t.exitCode()).toBe(0);
  return elsewhere;
}

describe("resume in the terminal UI: the current directory's threads", () => {
  it("the picker and --last take the cwd's threads only; --all lists every directory's with its cwd", async () => {
    const elsewhere = await twoDirectories();

    // --last: the newest thread of this directory, not the newer one elsewhere.
    let t = await open(["resume", "--last"]);
    const last = await t.waitFor("resumed thread");
    expect(last).toContain("noted here");
    expect(last).not.toContain("noted elsewhere");
    await t.send("C-d");
    expect(await t.exitCode()).toBe(0);

    t = await open(["resume"]);
    const picker = await t.waitFor(/^Resume a thread\n› remember here {2}just now\n/m);
    expect(picker).not.toContain("remember elsewhere");
    await t.send("Enter");
    await t.waitFor(/resumed thread [\s\S]*Ask anything/);
    // /resume inside the UI: the same directory's threads.
    await command(t, "/resume");
    const again = await t.waitFor("Resume a thread");
    expect(again).toMatch(/^› remember here \(current\) {2}just now$/m);
    expect(again).not.toContain("remember elsewhere");
    await t.send("Escape");
    await t.send("C-d");
    expect(await t.exitCode()).toBe(0);

    t = await open(["resume", "--all"]);
    const all = await t.waitFor(/^Resume a thread\n›/m);
    expect(all).toMatch(new RegExp(`^› remember elsewhere {2}just now · ${elsewhere}$`, "m"));
    expect(all).toMatch(new RegExp(`^ {2}remember here {7}just now · ${h.work}$`, "m"));
    await t.send("Enter");
    const resumed = await t.waitFor("resumed thread");
    expect(resumed).toContain("noted elsewhere");
  });

  it("says so when the cwd has no stored thread, and starts a new one", async () => {
    const elsewhere = join(h.work, "elsewhere");
    await mkdir(elsewhere);
    h.server.enqueue(turn(message("noted elsewhere")), turn(message("fresh")));
    let t = await open(["-C", elsewhere, "remember elsewhere"]);
    await t.waitFor("noted elsewhere");
    await t.send("C-d");
    expect(await t.exitCode()).toBe(0);

    t = await open(["resume"], { width: 160 });
    const screen = await t.waitFor(`no stored thread started in ${h.work} to resume`);
    expect(screen).toContain("tscodex resume --all lists every directory's");
    expect(screen).not.toContain("Resume a thread");
    await t.waitFor(/Ask anything[\s\S]*gpt-5\.2-codex · sandbox/);
    await command(t, "hello");
    await t.waitFor("fresh");
    expect(JSON.stringify(h.server.requests[1]?.input)).not.toContain("remember");
  });
});
