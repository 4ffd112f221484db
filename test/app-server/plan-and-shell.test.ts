/**
 * Codex 0.169's plan mode and user shell commands through the real app-server over stdio:
 * turn/start `collaborationMode` (the mode message the model gets, the `<proposed_plan>` block
 * streamed as item/plan/delta and completed as a `plan` item), collaborationMode/list, and
 * thread/shellCommand (a turn of its own with a userShell commandExecution item, queued behind a
 * running turn, interruptible, bounded, remembered in the history the model sees next). Every
 * message is checked against Codex's schemas.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { AppClient } from "../support/app-server-client.js";
import { useAppServerHarness } from "../support/app-server-harness.js";
import { referenceSchemaFailures } from "../support/app-server-schemas.js";
import { hang, message, type RecordedRequest, turn } from "../support/fake-model-server.js";
import { gone } from "../support/processes.js";
import {
  completedItems,
  flow,
  liveItems,
  runTurn,
  startThread,
  type WireItem,
  withoutTimes,
} from "./flow.js";

const h = useAppServerHarness();
const FULL_ACCESS = { approvalPolicy: "never", sandbox: "danger-full-access" };

const PLAN_REPLY =
  "I looked at the parser.\n<proposed_plan>\n# Fix the parser\n1. Handle empty input\n2. Add a test\n</proposed_plan>\nShall I go ahead?";

/** The texts of the developer and user messages a model request carried. */
function texts(request: RecordedRequest | undefined, role: "developer" | "user"): string[] {
  return (request?.input ?? []).flatMap((item) =>
    item.type === "message" && item.role === role
      ? item.content.map((part) => ("text" in part ? part.text : ""))
      : [],
  );
}

function modeMessages(request: RecordedRequest | undefined): string[] {
  return texts(request, "developer").filter((text) => text.startsWith("<collaboration_mode>"));
}

function deltas(client: AppClient, method: string, turnId: string): string {
  return client
    .notifications(method)
    .filter((m) => m.params.turnId === turnId)
    .map((m) => m.params.delta)
    .join("");
}

function planMode(model: string, instructions: string | null = null) {
  return { mode: "plan", settings: { model, reasoning_effort: null, developer_instructions: instructions } };
}

describe("app-server: plan mode (collaborationMode on turn/start)", () => {
  it("tells the model it is planning and turns the proposed plan into a plan item", async () => {
    const client = await h.stdio();
    const started = await client.call("thread/start", { cwd: h.work });
    const threadId = String(started.thread.id);
    const model = String(started.model);
    h.model.enqueue(turn(message(PLAN_REPLY)), turn(message("Still planning.")), turn(message(PLAN_REPLY)));

    const { turnId, completed } = await runTurn(client, threadId, "fix the parser", {
      collaborationMode: planMode(model),
    });
    expect(completed.params.turn.status).toBe("completed");
    const [first] = await h.model.waitForRequests(1);
    const [mode] = modeMessages(first);
    expect(mode).toMatch(/^<collaboration_mode>\nMode: plan\n/);
    expect(mode).toContain("<proposed_plan>");

    const plan = "# Fix the parser\n1. Handle empty input\n2. Add a test";
    expect(completedItems(client, turnId, "plan")).toEqual([
      { type: "plan", id: expect.any(String), text: plan },
    ]);
    const [agent] = completedItems(client, turnId, "agentMessage");
    expect(agent?.text).toBe("I looked at the parser.\n\nShall I go ahead?");
    expect(deltas(client, "item/plan/delta", turnId)).toContain(plan);
    expect(deltas(client, "item/agentMessage/delta", turnId)).not.toContain("proposed_plan");
    const planItemId = completedItems(client, turnId, "plan")[0]?.id;
    for (const delta of client.notifications("item/plan/delta"))
      expect(delta.params).toMatchObject({ threadId, turnId, itemId: planItemId });
    const lines = flow(client, turnId);
    expect(lines.filter((line) => !line.endsWith("/delta"))).toEqual([
      "turn/started",
      "item/started userMessage",
      "item/completed userMessage",
      "item/started agentMessage",
      "item/started plan",
      "item/completed plan",
      "item/completed agentMessage",
      "turn/completed completed",
    ]);
    const planDeltas = lines.flatMap((line, index) => (line === "item/plan/delta" ? [index] : []));
    expect(planDeltas.length).toBeGreaterThan(0);
    expect(Math.min(...planDeltas)).toBeGreaterThan(lines.indexOf("item/started plan"));
    expect(Math.max(...planDeltas)).toBeLessThan(lines.indexOf("item/completed plan"));

    // The mode holds for the next turn without a second mode message.
    await runTurn(client, threadId, "more detail");
    const second = h.model.requests[1];
    expect(modeMessages(second)).toHaveLength(1);

    // Back to default: the model is told, and a plan block is just text again.
    const back = await runTurn(client, threadId, "now do it", {
      collaborationMode: { mode: "default", settings: { model } },
    });
    const third = h.model.requests[2];
    expect(modeMessages(third).at(-1)).toMatch(/^<collaboration_mode>\nMode: default\n/);
    expect(completedItems(client, back.turnId, "plan")).toEqual([]);
    expect(completedItems(client, back.turnId, "agentMessage")[0]?.text).toBe(PLAN_REPLY);

    // A stored thread shows the same items.
    const read = await client.call("thread/read", { threadId, includeTurns: true });
    const stored = read.thread.turns[0].items.map((item: { type: string }) => item.type);
    expect(stored).toEqual(["userMessage", "plan", "agentMessage"]);
    expect(read.thread.turns[0].items[1].text).toBe(plan);
    // The same ids and fields (a prompt's content is the client's input echoed as it was sent).
    const notPrompt = (item: WireItem) => item.type !== "userMessage";
    read.thread.turns.forEach((entry: { id: string; items: WireItem[] }) => {
      expect(entry.items.map(withoutTimes).filter(notPrompt)).toEqual(
        liveItems(client, entry.id).filter(notPrompt),
      );
    });
    expect(referenceSchemaFailures(client)).toEqual([]);
  });

  it("uses the client's developer instructions and the mode's model; a message that is only a plan shows no agent message", async () => {
    const client = await h.stdio();
    const threadId = await startThread(client, { cwd: h.work });
    h.model.enqueue(turn(message("<proposed_plan>\nstep one\n</proposed_plan>")));
    const { turnId } = await runTurn(client, threadId, "plan it", {
      collaborationMode: planMode("gpt-5.1-codex-mini", "Plan in exactly one step."),
    });
    const [request] = await h.model.waitForRequests(1);
    expect(request?.body.model).toBe("gpt-5.1-codex-mini");
    expect(modeMessages(request)).toEqual([
      "<collaboration_mode>\nMode: plan\nPlan in exactly one step.\n</collaboration_mode>",
    ]);
    expect(completedItems(client, turnId, "plan").map((item) => item.text)).toEqual(["step one"]);
    expect(completedItems(client, turnId, "agentMessage")).toEqual([]);
    expect(referenceSchemaFailures(client)).toEqual([]);
  });

  it("a resumed plan-mode thread is told when it leaves plan mode", async () => {
    const first = await h.stdio();
    const started = await first.call("thread/start", { cwd: h.work });
    const threadId = String(started.thread.id);
    h.model.enqueue(turn(message(PLAN_REPLY)), turn(message(PLAN_REPLY)));
    await runTurn(first, threadId, "plan", { collaborationMode: planMode(String(started.model)) });
    await first.close();

    const second = await h.stdio();
    await second.call("thread/resume", { threadId });
    const { turnId } = await runTurn(second, threadId, "do it", {
      collaborationMode: { mode: "default", settings: { model: String(started.model) } },
    });
    const modes = modeMessages(h.model.requests[1]).map((text) => text.split("\n")[1]);
    expect(modes).toEqual(["Mode: plan", "Mode: default"]);
    expect(completedItems(second, turnId, "plan")).toEqual([]);
    expect(completedItems(second, turnId, "agentMessage")[0]?.text).toBe(PLAN_REPLY);
    expect(referenceSchemaFailures(second)).toEqual([]);
  });

  it("refuses a mode Codex 0.169 does not have", async () => {
    const client = await h.stdio();
    const threadId = await startThread(client, { cwd: h.work });
    const reply = await client.request("turn/start", {
      threadId,
      input: [{ type: "text", text: "x" }],
      collaborationMode: { mode: "execute", settings: { model: "m" } },
    });
    expect(reply.error?.code).toBe(-32602);
    expect(h.model.requests).toHaveLength(0);
  });

  it("lists the plan and default presets (collaborationMode/list)", async () => {
    const client = await h.stdio();
    const list = await client.call("collaborationMode/list", {});
    expect(list.data.map((mask: { mode: string }) => mask.mode)).toEqual(["plan", "default"]);
    expect(referenceSchemaFailures(client)).toEqual([]);
  });
});

/** thread/shellCommand, then wait for the turn it started to complete; returns that turn's id. */
async function shellCommand(client: AppClient, threadId: string, command: string, extra = {}) {
  const from = client.received.length;
  expect(await client.call("thread/shellCommand", { threadId, command, ...extra })).toEqual({});
  const started = await client.waitFor(
    (m) => m.method === "turn/started" && client.received.indexOf(m) >= from,
  );
  const turnId = String(started.params.turn.id);
  return { turnId, completed: await client.turnCompleted(turnId, from) };
}

describe("app-server: thread/shellCommand", () => {
  it("runs the command as a turn with a userShell item, and the model sees it next turn", async () => {
    const client = await h.stdio();
    const threadId = await startThread(client, { cwd: h.work, ...FULL_ACCESS });
    const { turnId, completed } = await shellCommand(client, threadId, "echo from-the-user; pwd");
    expect(completed.params.turn.status).toBe("completed");
    expect(flow(client, turnId)).toEqual([
      "turn/started",
      "item/started commandExecution inProgress",
      ...flow(client, turnId).filter((line) => line === "item/commandExecution/outputDelta"),
      "item/completed commandExecution completed",
      "turn/completed completed",
    ]);
    const [item] = completedItems(client, turnId, "commandExecution");
    expect(item).toMatchObject({
      source: "userShell",
      cwd: h.work,
      exitCode: 0,
      aggregatedOutput: `from-the-user\n${h.work}\n`,
    });
    expect(item?.command).toContain("echo from-the-user; pwd");
    expect(h.model.requests).toHaveLength(0);

    h.model.enqueue(turn(message("I see.")));
    await runTurn(client, threadId, "what did I run?");
    const [request] = await h.model.waitForRequests(1);
    const record = texts(request, "user").find((text) => text.startsWith("<user_shell_command>"));
    expect(record).toContain("echo from-the-user; pwd");
    expect(record).toContain("Exit code: 0");
    expect(record).toContain("from-the-user");
    expect(referenceSchemaFailures(client)).toEqual([]);
  });

  it("waits behind a running turn, and turn/interrupt kills the command's process group", async () => {
    const client = await h.stdio();
    const threadId = await startThread(client, { cwd: h.work, ...FULL_ACCESS });
    h.model.enqueue(turn(hang()));
    const { turn: running } = await client.call("turn/start", {
      threadId,
      input: [{ type: "text", text: "think" }],
    });
    await h.model.waitForRequests(1);
    const pidFile = join(h.work, "pid");
    const from = client.received.length;
    const command = `sh -c 'echo $$ > ${pidFile}; exec sleep 60' & wait`;
    expect(await client.call("thread/shellCommand", { threadId, command })).toEqual({});
    // Queued: nothing of the shell turn until the running turn ends.
    expect(client.received.slice(from).filter((m) => m.method === "turn/started")).toEqual([]);
    await client.call("turn/interrupt", { threadId, turnId: running.id });
    const first = await client.turnCompleted(String(running.id), from);
    const started = await client.waitFor(
      (m) => m.method === "item/started" && m.params.item.type === "commandExecution",
    );
    expect(client.received.indexOf(started)).toBeGreaterThan(client.received.indexOf(first));
    const shellTurn = String(started.params.turnId);
    let pid = "";
    while (pid === "") pid = (await readFile(pidFile, "utf8").catch(() => "")).trim();
    // No model reads steered input during a shell command: refused, not silently dropped.
    const steer = await client.request("turn/steer", {
      threadId,
      expectedTurnId: shellTurn,
      input: [{ type: "text", text: "also this" }],
    });
    expect(steer.error).toEqual({
      code: -32600,
      message: `turn ${shellTurn} runs a shell command and cannot be steered`,
    });
    await client.call("turn/interrupt", { threadId, turnId: shellTurn });
    const done = await client.turnCompleted(shellTurn, from);
    expect(done.params.turn.status).toBe("interrupted");
    expect(await gone(Number(pid))).toBe(true);
    expect(completedItems(client, shellTurn, "commandExecution")[0]).toMatchObject({
      source: "userShell",
      status: "failed",
    });
    expect(referenceSchemaFailures(client)).toEqual([]);
  });

  it("bounds the output the model gets and ends a command at timeoutMs", async () => {
    const client = await h.stdio();
    const threadId = await startThread(client, { cwd: h.work, ...FULL_ACCESS });
    const big = await shellCommand(client, threadId, "head -c 3000000 /dev/zero | tr '\\0' a");
    const [item] = completedItems(client, big.turnId, "commandExecution");
    expect(item?.exitCode).toBe(0);
    expect(String(item?.aggregatedOutput).length).toBeLessThan(1_100_000);
    const slow = await shellCommand(client, threadId, "sleep 30", { timeoutMs: 300 });
    expect(completedItems(client, slow.turnId, "commandExecution")[0]?.exitCode).toBe(124);

    h.model.enqueue(turn(message("ok")));
    await runTurn(client, threadId, "next");
    const [request] = await h.model.waitForRequests(1);
    const records = texts(request, "user").filter((text) => text.startsWith("<user_shell_command>"));
    expect(records).toHaveLength(2);
    // 3 MB of output; the model gets the truncation budget's worth (head and tail).
    expect(records[0]?.length).toBeLessThan(60_000);
    expect(records[1]).toContain("Exit code: 124");
  });

  it("runs under the thread's sandbox: a read-only thread cannot write", async () => {
    const client = await h.stdio();
    const threadId = await startThread(client, {
      cwd: h.work,
      approvalPolicy: "never",
      sandbox: "read-only",
    });
    const { completed, turnId } = await shellCommand(client, threadId, "touch written");
    const [item] = completedItems(client, turnId, "commandExecution");
    if (completed.params.turn.status === "failed") {
      // No sandbox backend on this machine: the turn fails with the reason, nothing runs.
      expect(completed.params.turn.error?.message).toMatch(/sandbox/i);
    } else {
      expect(item?.exitCode).not.toBe(0);
    }
    await expect(readFile(join(h.work, "written"))).rejects.toThrow();
  });

  it("refuses an empty command and an unknown thread", async () => {
    const client = await h.stdio();
    const threadId = await startThread(client, { cwd: h.work });
    const empty = await client.request("thread/shellCommand", { threadId, command: "  " });
    expect(empty.error).toEqual({ code: -32602, message: "Invalid request: `command` is empty" });
    const unknown = "00000000-0000-7000-8000-000000000000";
    const missing = await client.request("thread/shellCommand", { threadId: unknown, command: "ls" });
    expect(missing.error?.message).toContain(unknown);
    expect(client.notifications("turn/started")).toEqual([]);
  });
});
