/**
 * `notify = [argv]` through the built CLI and the fake model server (cli-parity.md Part 1 §8):
 * after an exec turn the program runs once with the configured arguments plus Codex's
 * `agent-turn-complete` JSON; with `notify_events`, also on turn start and approval requests;
 * a program that cannot start is reported once and the turn still succeeds.
 */
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { useExecHarness } from "../support/exec-harness.js";
import { functionCall, message, turn } from "../support/fake-model-server.js";
import { waitFor } from "../support/processes.js";

const h = useExecHarness();

/** A notify program that appends its arguments (after the script) as one JSON line to a log. */
async function notifyConfig(events?: string[]): Promise<string> {
  const script = join(h.home, "notify.mjs");
  const log = join(h.home, "notify.log");
  await writeFile(
    script,
    `import { appendFileSync } from "node:fs";\nappendFileSync(${JSON.stringify(log)}, JSON.stringify({ args: process.argv.slice(2), cwd: process.cwd(), home: process.env.CODEX_HOME ?? null }) + "\\n");\n`,
  );
  const notify = `notify = ${JSON.stringify([process.execPath, script, "fixed-arg"])}`;
  const extra = events ? `${notify}\nnotify_events = ${JSON.stringify(events)}` : notify;
  await h.writeConfig({ extra });
  return log;
}

interface Run {
  args: string[];
  cwd: string;
}

async function runsIn(log: string, count: number): Promise<Run[]> {
  const read = async () =>
    (await readFile(log, "utf8").catch(() => ""))
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Run);
  await waitFor(async () => (await read()).length >= count, 10_000);
  return read();
}

const threadIdOf = (stdout: string) =>
  (JSON.parse(stdout.split("\n")[0] ?? "{}") as { thread_id?: string }).thread_id;

describe("notify", () => {
  it("runs once after an exec turn with Codex's agent-turn-complete JSON as the last argument", async () => {
    const log = await notifyConfig();
    h.server.enqueue(
      turn(message("looking"), functionCall("shell_command", { command: "echo hi" }, "call_1")),
      turn(message("answer to: NOTIFY-MARKER hi")),
    );
    const result = await h.exec(["--json", "-s", "danger-full-access", "NOTIFY-MARKER hi"]);
    expect(result.code, result.stderr).toBe(0);
    const [run] = await runsIn(log, 1);
    expect(run?.args[0]).toBe("fixed-arg");
    expect(run?.args).toHaveLength(2);
    expect(run?.cwd).toBe(h.work);
    const payload = JSON.parse(run?.args[1] ?? "{}") as Record<string, unknown>;
    expect(Object.keys(payload)).toEqual([
      "type",
      "thread-id",
      "turn-id",
      "cwd",
      "client",
      "input-messages",
      "last-assistant-message",
    ]);
    expect(payload).toMatchObject({
      type: "agent-turn-complete",
      "thread-id": threadIdOf(result.stdout),
      cwd: h.work,
      client: "codex_exec",
      "input-messages": ["NOTIFY-MARKER hi"],
      "last-assistant-message": "answer to: NOTIFY-MARKER hi",
    });
    expect(typeof payload["turn-id"]).toBe("string");
    // Only one run: Codex's default is agent-turn-complete alone.
    expect(await runsIn(log, 1)).toHaveLength(1);
  });

  it("with notify_events, also runs on turn start and on an approval request", async () => {
    const log = await notifyConfig(["agent-turn-start", "approval-requested", "agent-turn-complete"]);
    h.server.enqueue(
      turn(functionCall("shell_command", { command: "touch made.txt" }, "call_1")),
      turn(message("done")),
    );
    const result = await h.exec(["--json", "-s", "danger-full-access", "-a", "untrusted", "make it"]);
    expect(result.code, result.stderr).toBe(0);
    const runs = await runsIn(log, 3);
    const payloads = runs.map((run) => JSON.parse(run.args.at(-1) ?? "{}") as Record<string, unknown>);
    // Each program runs on its own: the order they write in is theirs.
    expect(payloads.map((payload) => payload.type).sort()).toEqual([
      "agent-turn-complete",
      "agent-turn-start",
      "approval-requested",
    ]);
    const turnId = payloads[0]?.["turn-id"];
    expect(payloads.every((payload) => payload["turn-id"] === turnId)).toBe(true);
    expect(payloads.find((payload) => payload.type === "approval-requested")).toMatchObject({
      "call-id": "call_1",
      kind: "command",
    });
  });

  it("a program that cannot start is reported once; the turn still succeeds", async () => {
    await h.writeConfig({ extra: `notify = ["${join(h.home, "no-such-program")}"]` });
    h.server.enqueue(turn(message("fine")));
    const result = await h.exec(["go"]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain("fine");
    expect(result.stderr.match(/notify: cannot run .*no-such-program/g)).toHaveLength(1);
  });
});
