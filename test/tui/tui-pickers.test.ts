/**
 * The terminal UI's pickers (tmux, fake model): /model lists the server's models (`model/list`),
 * then the chosen one's reasoning efforts, and /resume the stored threads (`thread/list`, with
 * their first prompt and age); Up/Down and Enter pick, Esc cancels (or goes back a step). A resumed thread shows its context left at once, from the usage the
 * server restores with thread/resume (before any new turn).
 */
import { describe, expect, it } from "vitest";
import { ago } from "../../src/frontends/tui/slash-commands.js";
import { useExecHarness } from "../support/exec-harness.js";
import { message, turn, usage } from "../support/fake-model-server.js";
import { type TmuxTerminal, useTmuxTerminal } from "../support/tmux.js";

const h = useExecHarness();

const open = useTmuxTerminal(h);

const command = async (t: TmuxTerminal, text: string) => {
  await t.type(text);
  await t.send("Enter");
};

const contextLeft = (screen: string) => /(\d+)% context left/.exec(screen)?.[1];

describe("pickers in the terminal UI", () => {
  it("/model: a model, then its reasoning effort (default marked), for the next turns; Esc goes back", async () => {
    h.server.enqueue(turn(message("first")), turn(message("second")));
    const t = await open(["-a", "never", "hello"]);
    await t.waitFor("first");
    await command(t, "/model");
    const menu = await t.waitFor(
      /^Select Model and Effort\n› gpt-5\.2-codex \(current\) +the configured default model\n {2}\S+/m,
    );
    const next = /^› gpt-5\.2-codex \(current\).*\n {2}(\S+)/m.exec(menu)?.[1] as string;
    expect(next).toMatch(/^gpt-/);
    const nextRow = new RegExp(`^› ${next.replace(/\./g, "\\.")} `, "m");
    await t.send("Down");
    await t.waitFor(nextRow);
    await t.send("Enter");
    // The model's efforts from model/list, its default marked and selected; nothing is current
    // (the thread runs another model).
    const efforts = await t.waitFor(`Select Reasoning Level for ${next}`);
    expect(efforts).toMatch(
      /^ {2}Low {15}Fastest answers, least reasoning\n› Medium \(default\) {2}Balanced reasoning and speed\n {2}High {14}More reasoning for harder tasks\n {2}Extra high {8}The most reasoning, for the hardest tasks\n.*Esc back/m,
    );
    expect(efforts).not.toContain("(current)");
    // Esc goes back to the models, where they were left; nothing changed.
    await t.send("Escape");
    const back = await t.waitFor("Select Model and Effort");
    expect(back).toMatch(nextRow);
    expect(back).toContain("gpt-5.2-codex · sandbox");
    await t.send("Enter");
    await t.waitFor(`Select Reasoning Level for ${next}`);
    await t.send("Down");
    await t.waitFor(/^› High /m);
    await t.send("Enter");
    await t.waitFor(`model set to ${next} with high reasoning effort (from the next turn)`);
    const screen = await t.waitFor(`${next} high · sandbox`);
    expect(screen).not.toContain("Select Reasoning Level");

    // Reopened: the chosen model and effort are current; Esc twice leaves both as they were.
    await command(t, "/model");
    await t.waitFor(new RegExp(`^› ${next.replace(/\./g, "\\.")} \\(current\\)`, "m"));
    await t.send("Enter");
    await t.waitFor(/^ {2}Medium \(default\) +Balanced reasoning and speed\n› High \(current\)/m);
    await t.send("Escape");
    await t.waitFor("Select Model and Effort");
    await t.send("Up");
    await t.waitFor(/^› gpt-5\.2-codex +the configured default model/m);
    await t.send("Escape");
    await t.waitFor((s) => !s.includes("Select Model and Effort") && s.includes("Ask anything"));
    expect(await t.capture()).toContain(`${next} high · sandbox`);

    await command(t, "again");
    await t.waitFor("second");
    expect(h.server.requests[0]?.body.reasoning).toMatchObject({ effort: "medium" });
    expect(h.server.requests[1]?.body.model).toBe(next);
    expect(h.server.requests[1]?.body.reasoning).toMatchObject({ effort: "high" });
  });

  it("/model: a model without reasoning efforts is set at once, and the next turn asks for none", async () => {
    await h.writeConfig({ extra: '[profiles.plain]\nmodel = "gpt-4.1"\n' });
    h.server.enqueue(turn(message("first")), turn(message("second")));
    const t = await open(["-a", "never", "hello"]);
    await t.waitFor("first");
    await command(t, "/model");
    await t.waitFor("Select Model and Effort");
    await t.type("gpt-4.1");
    await t.waitFor(/^› gpt-4\.1 /m);
    await t.send("Enter");
    const screen = await t.waitFor("model set to gpt-4.1 (from the next turn)");
    expect(screen).not.toContain("Select Reasoning Level");
    await t.waitFor("gpt-4.1 · sandbox");
    await command(t, "again");
    await t.waitFor("second");
    expect(h.server.requests[1]?.body.model).toBe("gpt-4.1");
    expect(h.server.requests[1]?.body.reasoning ?? null).toBeNull();
  });

  it("/resume: lists the stored threads with prompt and age; Enter reopens one with its context left", async () => {
    h.server.enqueue(
      turn(message("noted alpha"), usage({ input: 48_000, output: 2_000 })),
      turn(message("noted beta"), usage({ input: 95_000, output: 5_000 })),
    );
    const t = await open(["remember alpha"]);
    const alpha = contextLeft(await t.waitFor(/noted alpha[\s\S]*\d+% context left/));
    await command(t, "/new");
    await t.waitFor("new thread started");
    await command(t, "remember beta");
    const beta = contextLeft(await t.waitFor(/noted beta[\s\S]*\d+% context left/));
    expect(alpha).not.toBe(beta);

    await command(t, "/resume");
    const menu = await t.waitFor("Resume a thread");
    expect(menu).toMatch(/^› remember beta \(current\) {2}just now\n {2}remember alpha {11}just now$/m);
    // Typing narrows the list; Esc: nothing changes.
    await t.type("alp");
    const narrowed = await t.waitFor(/^filter: alp\n› remember alpha {2}just now$/m);
    expect(narrowed).not.toMatch(/^ {2}remember beta/m);
    await t.send("Escape");
    await t.waitFor((s) => !s.includes("Resume a thread") && s.includes("Ask anything"));
    expect(await t.capture()).toContain("noted beta");

    await command(t, "/resume");
    await t.waitFor("Resume a thread");
    await t.send("Down");
    await t.waitFor(/^› remember alpha {11}just now$/m);
    await t.send("Enter");
    const resumed = await t.waitFor(/resumed thread [\s\S]*% context left/);
    expect(resumed).toContain("noted alpha");
    expect(resumed).not.toContain("noted beta");
    expect(contextLeft(resumed)).toBe(alpha);
    expect(h.server.requests).toHaveLength(2);
  });

  it("resume --last shows the thread's context left before any new turn", async () => {
    h.server.enqueue(turn(message("noted"), usage({ input: 60_000, output: 4_000 })));
    let t = await open(["remember this"]);
    const left = contextLeft(await t.waitFor(/noted[\s\S]*\d+% context left/));
    await t.send("C-d");
    expect(await t.exitCode()).toBe(0);
    t = await open(["resume", "--last"]);
    const screen = await t.waitFor(/resumed thread [\s\S]*% context left/);
    expect(contextLeft(screen)).toBe(left);
  });

  it("tscodex resume without an id opens the picker; Esc starts a new thread instead", async () => {
    h.server.enqueue(turn(message("noted alpha")), turn(message("noted beta")), turn(message("fresh")));
    let t = await open(["remember alpha"]);
    await t.waitFor("noted alpha");
    await command(t, "/new");
    await t.waitFor("new thread started");
    await command(t, "remember beta");
    await t.waitFor("noted beta");
    await t.send("C-d");
    expect(await t.exitCode()).toBe(0);

    t = await open(["resume"]);
    await t.waitFor(/^Resume a thread\n› remember beta {3}just now\n {2}remember alpha {2}just now$/m);
    await t.send("Down");
    await t.send("Enter");
    const resumed = await t.waitFor("resumed thread");
    expect(resumed).toContain("noted alpha");
    await t.send("C-d");
    expect(await t.exitCode()).toBe(0);

    t = await open(["resume"]);
    await t.waitFor("Resume a thread");
    await t.send("Escape");
    await t.waitFor(/Ask anything[\s\S]*gpt-5\.2-codex · sandbox/);
    await command(t, "hello");
    const screen = await t.waitFor("fresh");
    expect(screen).not.toContain("noted");
    expect(JSON.stringify(h.server.requests[2]?.input)).not.toContain("remember");
  });

  it("says how long ago a thread was updated", () => {
    expect(ago(10_000)).toBe("just now");
    expect(ago(60_000)).toBe("1 minute ago");
    expect(ago(45 * 60_000)).toBe("45 minutes ago");
    expect(ago(3 * 3_600_000)).toBe("3 hours ago");
    expect(ago(2 * 86_400_000)).toBe("2 days ago");
  });
});
