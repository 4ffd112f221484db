/**
 * turn/steer and the thread's status through the real app-server: input steered into a running
 * turn reaches the model's next request (after the outputs of the calls in flight) and shows as
 * the turn's second userMessage item; a steer with no running turn, or naming another turn, is
 * refused. `thread/status/changed` follows the turn (active, waiting on an approval, idle before
 * turn/completed, as in Codex 0.169's transcript) and `serverRequest/resolved` ends each question.
 */
import { describe, expect, it } from "vitest";
import type { RequestAnswer, WireMessage } from "../support/app-server-client.js";
import { useAppServerHarness } from "../support/app-server-harness.js";
import { referenceSchemaFailures } from "../support/app-server-schemas.js";
import { functionCall, message, turn } from "../support/fake-model-server.js";
import { completedItems, runTurn, startThread } from "./flow.js";

const h = useAppServerHarness();

const LOOKUP = {
  type: "function",
  name: "lookup",
  description: "Look a word up.",
  inputSchema: { type: "object", properties: { word: { type: "string" } } },
};

const text = (value: string) => [{ type: "text", text: value, text_elements: [] }];

describe("app-server: turn/steer", () => {
  it("adds input to the running turn: the model's next request carries it, and it shows as a userMessage", async () => {
    const client = await h.stdio();
    let release!: (answer: RequestAnswer) => void;
    const answered = new Promise<RequestAnswer>((resolve) => {
      release = resolve;
    });
    client.onRequest = () => answered;
    const threadId = await startThread(client, {
      cwd: h.work,
      approvalPolicy: "never",
      sandbox: "danger-full-access",
      dynamicTools: [LOOKUP],
    });
    h.model.enqueue(turn(functionCall("lookup", { word: "steer" }, "call_1")), turn(message("noted")));
    const from = client.received.length;
    const started = await client.call("turn/start", { threadId, input: text("look it up") });
    const turnId = String(started.turn.id);
    // The turn is waiting for the client's tool answer: it is running.
    await client.waitFor((m) => m.method === "item/tool/call");
    const steered = await client.call("turn/steer", {
      threadId,
      expectedTurnId: turnId,
      input: text("and answer in French"),
    });
    expect(steered).toEqual({ turnId });
    release({ result: { contentItems: [{ type: "inputText", text: "to guide" }], success: true } });
    const completed = await client.turnCompleted(turnId, from);
    expect(completed.params.turn.status).toBe("completed");

    const input = h.model.requests[1]?.input ?? [];
    const output = input.findIndex((item) => item.type === "function_call_output");
    const steer = input.findIndex(
      (item) => item.type === "message" && item.role === "user" && JSON.stringify(item).includes("in French"),
    );
    expect(output).toBeGreaterThan(0);
    expect(steer).toBeGreaterThan(output);
    expect(h.model.requests).toHaveLength(2);
    const users = completedItems(client, turnId, "userMessage");
    expect(users.map((item) => item.content)).toEqual([text("look it up"), text("and answer in French")]);
    expect(referenceSchemaFailures(client)).toEqual([]);
  }, 60_000); // the first schema check compiles 0.169's schemas

  it("refuses a steer with no running turn, or naming another turn", async () => {
    const client = await h.stdio();
    const threadId = await startThread(client, { cwd: h.work, approvalPolicy: "never" });
    const idle = await client.request("turn/steer", {
      threadId,
      expectedTurnId: "0",
      input: text("too late"),
    });
    expect(idle.error).toEqual({ code: -32600, message: "no active turn to steer" });

    let release!: (answer: RequestAnswer) => void;
    client.onRequest = () =>
      new Promise<RequestAnswer>((resolve) => {
        release = resolve;
      });
    await client.call("thread/resume", { threadId, dynamicTools: [LOOKUP] });
    h.model.enqueue(turn(functionCall("lookup", { word: "x" }, "call_1")), turn(message("ok")));
    const from = client.received.length;
    const { turn: running } = await client.call("turn/start", { threadId, input: text("go") });
    await client.waitFor((m) => m.method === "item/tool/call");
    const wrong = await client.request("turn/steer", {
      threadId,
      expectedTurnId: "not-this-one",
      input: text("hi"),
    });
    expect(wrong.error).toEqual({
      code: -32600,
      message: `expected active turn id not-this-one but found ${running.id}`,
    });
    release({ result: { contentItems: [], success: true } });
    await client.turnCompleted(String(running.id), from);
    // Nothing was steered in: one user message for the model.
    const users = (h.model.requests[1]?.input ?? []).filter(
      (item) => item.type === "message" && item.role === "user" && JSON.stringify(item).includes('"hi"'),
    );
    expect(users).toEqual([]);
  });
});

describe("app-server: thread status and resolved requests", () => {
  it("goes active, waits on an approval, is resolved, and is idle again just before turn/completed", async () => {
    const client = await h.stdio();
    const asked: WireMessage[] = [];
    client.onRequest = (request) => {
      asked.push(request);
      return { result: { decision: "decline" } };
    };
    const threadId = await startThread(client, { cwd: h.work });
    h.model.enqueue(
      turn(functionCall("shell_command", { command: "touch nope.txt" }, "call_1")),
      turn(message("declined, fine")),
    );
    const from = client.received.length;
    const { turnId } = await runTurn(client, threadId, "try", {
      approvalPolicy: "untrusted",
      sandboxPolicy: { type: "workspaceWrite", writableRoots: [], networkAccess: false },
    });
    expect(asked).toHaveLength(1);
    const seen = client.received
      .slice(from)
      .filter(
        (m) =>
          m.method === "thread/status/changed" ||
          m.method === "serverRequest/resolved" ||
          m.method === "turn/started" ||
          m.method === "turn/completed",
      )
      .map((m) => {
        if (m.method === "thread/status/changed")
          return `status ${m.params.status.type} ${(m.params.status.activeFlags ?? []).join(",")}`.trim();
        if (m.method === "serverRequest/resolved")
          return `resolved ${m.params.requestId === asked[0]?.id ? "approval" : m.params.requestId}`;
        return String(m.method);
      });
    expect(seen).toEqual([
      "status active",
      "turn/started",
      "status active waitingOnApproval",
      "resolved approval",
      "status active",
      "status idle",
      "turn/completed",
    ]);
    expect(client.received.find((m) => m.method === "turn/completed")?.params.turn.id).toBe(turnId);
    expect(referenceSchemaFailures(client)).toEqual([]);
  });
});

describe("app-server: thread/settings/updated", () => {
  it("tells followers when a turn changes what the thread runs with, and only then", async () => {
    const client = await h.stdio();
    const threadId = await startThread(client, {
      cwd: h.work,
      approvalPolicy: "never",
      sandbox: "read-only",
    });
    h.model.enqueue(turn(message("one")), turn(message("two")));
    await runTurn(client, threadId, "first", { approvalPolicy: "on-request" });
    const updates = client.notifications("thread/settings/updated").map((m) => m.params);
    expect(updates).toEqual([
      {
        threadId,
        threadSettings: expect.objectContaining({
          approvalPolicy: "on-request",
          approvalsReviewer: "user",
          cwd: h.work,
          sandboxPolicy: { type: "readOnly" },
          collaborationMode: expect.objectContaining({ mode: "default" }),
        }),
      },
    ]);
    // The same settings again change nothing: no notification.
    await runTurn(client, threadId, "second", { approvalPolicy: "on-request" });
    expect(client.notifications("thread/settings/updated")).toHaveLength(1);
    const resumed = await client.call("thread/resume", { threadId });
    expect(resumed.approvalPolicy).toBe("on-request");
    expect(referenceSchemaFailures(client)).toEqual([]);
  });
});
