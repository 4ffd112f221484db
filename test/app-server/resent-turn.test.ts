/**
 * turn/start's `clientUserMessageId` as an idempotency key, over WebSocket: a client whose
 * connection dropped after sending turn/start reconnects and resends it; the resend starts no
 * second turn, it is answered with the first one (id and status), the new connection takes the
 * turn over (its notifications, and the client tool call the dropped connection never answered),
 * and the model sees one turn's requests. The same key with other input is refused; a keyed turn
 * whose client does not come back within `app_server.reconnect_grace_ms` is interrupted.
 */
import { describe, expect, it } from "vitest";
import type { WireMessage } from "../support/app-server-client.js";
import { useAppServerHarness } from "../support/app-server-harness.js";
import { functionCall, message, type RecordedRequest, turn } from "../support/fake-model-server.js";
import { startThread } from "./flow.js";

const h = useAppServerHarness();

const TICKETS = {
  type: "function",
  name: "lookup_ticket",
  description: "Fetch a ticket.",
  inputSchema: { type: "object", properties: { id: { type: "string" } } },
};

function outputOf(request: RecordedRequest | undefined, callId: string): unknown {
  const item = request?.input.find(
    (entry) => entry.type === "function_call_output" && entry.call_id === callId,
  );
  return item && "output" in item ? item.output : undefined;
}

const isToolCall = (m: WireMessage) => m.method === "item/tool/call" && m.id !== undefined;

/**
 * On a server started with `args`: a thread (`threadParams`), a keyed turn/start whose connection
 * drops once it received `question` (the model's turns are queued first), then a second
 * connection, initialized. Returns the turn/start params, the first reply and the second client.
 */
async function dropMidTurn(options: {
  args?: string[];
  threadParams: Record<string, unknown>;
  key: string;
  question: (m: WireMessage) => boolean;
}) {
  const server = await h.wsServer(options.args);
  const first = await server.connect();
  await first.initialize();
  const threadId = await startThread(first, { cwd: h.work, ...options.threadParams });
  const params = { threadId, input: [{ type: "text", text: "fix T-12" }], clientUserMessageId: options.key };
  const started = await first.call("turn/start", params);
  await first.waitFor(options.question);
  await first.drop();
  const second = await server.connect();
  h.defer(second);
  await second.initialize();
  return { params, started, second, threadId };
}

describe("app-server: a resent turn/start (clientUserMessageId)", () => {
  it("answers the resend with the first turn, hands it to the new connection, and runs it once", async () => {
    h.model.enqueue(
      turn(functionCall("lookup_ticket", { id: "T-12" }, "call_1")),
      turn(message("T-12 is fixed")),
    );
    // The connection drops while the turn waits for the client's tool answer.
    const { params, started, second, threadId } = await dropMidTurn({
      threadParams: { approvalPolicy: "never", sandbox: "read-only", dynamicTools: [TICKETS] },
      key: "msg-1",
      question: isToolCall,
    });
    second.onRequest = (request) =>
      request.method === "item/tool/call"
        ? { result: { contentItems: [{ type: "inputText", text: "login fails on Safari" }], success: true } }
        : null;
    const resent = await second.call("turn/start", params);
    expect(resent.turn).toEqual({ id: started.turn.id, items: [], status: "inProgress", error: null });
    const completed = await second.turnCompleted(started.turn.id);
    expect(completed.params.turn.status).toBe("completed");
    // The question the dropped connection never answered was asked again on the new one.
    expect(second.received.filter(isToolCall).map((m) => m.params.callId)).toEqual(["call_1"]);

    // One turn's requests: the first, and the one carrying the new connection's tool answer.
    expect(h.model.requests).toHaveLength(2);
    expect(outputOf(h.model.requests[1], "call_1")).toBe("login fails on Safari");
    const { thread } = await second.call("thread/read", { threadId, includeTurns: true });
    expect(thread.turns.map((t: { id: string; status: string }) => [t.id, t.status])).toEqual([
      [started.turn.id, "completed"],
    ]);

    // Once it ended, a resend gets it as it ended, still without a model request.
    const again = await second.call("turn/start", params);
    expect(again.turn).toMatchObject({ id: started.turn.id, status: "completed", error: null });
    const other = await second.request("turn/start", {
      ...params,
      input: [{ type: "text", text: "fix T-13" }],
    });
    expect(other.error?.code).toBe(-32600);
    expect(other.error?.message).toContain("clientUserMessageId 'msg-1' was already used");
    expect(h.model.requests).toHaveLength(2);
  });

  it("asks the new connection an approval the dropped one left unanswered", async () => {
    h.model.enqueue(
      turn(functionCall("shell_command", { command: "touch approved.txt" }, "call_1")),
      turn(message("not touched")),
    );
    const isApproval = (m: WireMessage) => m.method === "item/commandExecution/requestApproval";
    const { params, started, second } = await dropMidTurn({
      threadParams: { approvalPolicy: "untrusted", sandbox: "read-only" },
      key: "msg-3",
      question: isApproval,
    });
    second.onRequest = (request) => (isApproval(request) ? { result: { decision: "decline" } } : null);
    const resent = await second.call("turn/start", params);
    expect(resent.turn.id).toBe(started.turn.id);
    const completed = await second.turnCompleted(started.turn.id);
    expect(completed.params.turn.status).toBe("completed");
    expect(second.received.filter(isApproval).map((m) => m.params.itemId)).toEqual(["call_1"]);
    expect(h.model.requests).toHaveLength(2);
    expect(outputOf(h.model.requests[1], "call_1")).toBe("exec command rejected by user");
  });

  it("answers a resend after a server restart from the thread store, and frees a key whose start failed", async () => {
    h.model.enqueue(turn(message("T-12 is fixed")));
    const first = await h.stdio();
    const threadId = await startThread(first, { cwd: h.work, approvalPolicy: "never", sandbox: "read-only" });
    const params = { threadId, input: [{ type: "text", text: "fix T-12" }], clientUserMessageId: "msg-4" };
    const started = await first.call("turn/start", params);
    await first.turnCompleted(started.turn.id);
    const refused = {
      threadId,
      input: [{ type: "localImage", path: "missing.png" }],
      clientUserMessageId: "msg-5",
    };
    expect((await first.request("turn/start", refused)).error?.code).toBe(-32602);
    await first.close();

    const second = await h.stdio();
    const resent = await second.call("turn/start", params);
    expect(resent.turn).toEqual({ id: started.turn.id, items: [], status: "completed", error: null });
    const other = await second.request("turn/start", {
      ...params,
      input: [{ type: "text", text: "fix T-13" }],
    });
    expect(other.error?.message).toContain("clientUserMessageId 'msg-4' was already used");
    expect(h.model.requests).toHaveLength(1);
    // The refused start kept no key: the corrected request starts its turn.
    h.model.enqueue(turn(message("looked")));
    const corrected = await second.call("turn/start", {
      ...refused,
      input: [{ type: "text", text: "look" }],
    });
    expect((await second.turnCompleted(corrected.turn.id)).params.turn.status).toBe("completed");
    expect(h.model.requests).toHaveLength(2);
  });

  it("interrupts a keyed turn whose client does not come back within the grace", async () => {
    h.model.enqueue(turn(functionCall("lookup_ticket", { id: "T-12" }, "call_1")));
    const { params, started, second } = await dropMidTurn({
      args: ["-c", "app_server.reconnect_grace_ms=0"],
      threadParams: { approvalPolicy: "never", sandbox: "read-only", dynamicTools: [TICKETS] },
      key: "msg-2",
      question: isToolCall,
    });
    const from = second.received.length;
    const resent = await second.call("turn/start", params);
    expect(resent.turn.id).toBe(started.turn.id);
    const status =
      resent.turn.status === "inProgress"
        ? (await second.turnCompleted(started.turn.id, from)).params.turn.status
        : resent.turn.status;
    expect(status).toBe("interrupted");
    expect(h.model.requests).toHaveLength(1);
  });
});
