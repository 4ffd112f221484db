/**
 * The v1 methods (Codex 0.89) through the real `tscodex app-server`: a conversation, its
 * listener's `codex/event/*` stream, v1 turns and their v1 approvals, interrupts, and v1 next to
 * v2 on one connection; every message checked against Codex 0.89's schemas (EventMsg for the
 * events). Also: out-of-scope 0.169 methods are refused with a message saying so.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { AppClient } from "../support/app-server-client.js";
import { useAppServerHarness } from "../support/app-server-harness.js";
import { referenceSchemaFailures } from "../support/app-server-schemas.js";
import { functionCall, hang, message, turn, usage } from "../support/fake-model-server.js";

const h = useAppServerHarness();

async function openConversation(client: AppClient, params: Record<string, unknown> = {}) {
  const opened = await client.call("newConversation", { cwd: h.work, ...params });
  const { subscriptionId } = await client.call("addConversationListener", {
    conversationId: opened.conversationId,
  });
  return {
    conversationId: opened.conversationId as string,
    subscriptionId: subscriptionId as string,
    opened,
  };
}

function turnParams(conversationId: string, text: string, approvalPolicy = "never") {
  return {
    conversationId,
    items: [{ type: "text", data: { text } }],
    cwd: h.work,
    approvalPolicy,
    sandboxPolicy: { type: "danger-full-access" },
    model: "",
    summary: "auto",
  };
}

const events = (client: AppClient) =>
  client.received.filter((m) => m.method?.startsWith("codex/event/")).map((m) => m.method?.slice(12));

describe("app-server v1 (Codex 0.89)", () => {
  it("streams a v1 turn to the listener as codex/event notifications, in 0.89's order", async () => {
    const client = await h.stdio();
    const { conversationId, opened } = await openConversation(client);
    expect(opened.rolloutPath).toMatch(/rollout-.*\.jsonl$/);
    h.model.enqueue(turn(message("hello from v1"), usage({ input: 10, output: 5 })));
    expect(await client.call("sendUserTurn", turnParams(conversationId, "say hello"))).toEqual({});
    const done = await client.waitFor((m) => m.method === "codex/event/task_complete");
    expect(done.params).toMatchObject({
      id: expect.any(String),
      conversationId,
      msg: { type: "task_complete", last_agent_message: "hello from v1" },
    });
    const seen = events(client);
    expect(seen[0]).toBe("task_started");
    expect(seen).toContain("user_message");
    expect(seen.indexOf("agent_message_delta")).toBeLessThan(seen.indexOf("agent_message"));
    expect(seen).toContain("token_count");
    expect(seen.at(-1)).toBe("task_complete");
    const deltas = client.notifications("codex/event/agent_message_delta").map((m) => m.params?.msg?.delta);
    expect(deltas.join("")).toBe("hello from v1");
    // A v1 client gets the v1 stream only.
    expect(client.notifications("item/completed")).toEqual([]);
    expect(referenceSchemaFailures(client)).toEqual([]);
  });

  it("asks a v1 turn's approvals as execCommandApproval and runs the command when approved", async () => {
    const client = await h.stdio();
    const { conversationId } = await openConversation(client);
    client.onRequest = (request) =>
      request.method === "execCommandApproval" ? { result: { decision: "approved" } } : null;
    h.model.enqueue(
      turn(functionCall("shell_command", { command: "touch approved-v1.txt && echo ok" }, "call_1")),
      turn(message("done")),
    );
    await client.call("sendUserTurn", turnParams(conversationId, "touch it", "untrusted"));
    await client.waitFor((m) => m.method === "codex/event/task_complete");
    const asked = client.received.find((m) => m.method === "execCommandApproval");
    expect(asked?.params).toMatchObject({
      conversationId,
      callId: "call_1",
      cwd: h.work,
      parsedCmd: expect.any(Array),
    });
    expect(existsSync(join(h.work, "approved-v1.txt"))).toBe(true);
    const end = client.notifications("codex/event/exec_command_end")[0];
    expect(end?.params?.msg).toMatchObject({
      exit_code: 0,
      stdout: "ok\n",
      duration: { secs: expect.any(Number) },
    });
    expect(client.received.some((m) => m.method === "item/commandExecution/requestApproval")).toBe(false);
    expect(referenceSchemaFailures(client)).toEqual([]);
  });

  it("a sendUserMessage while a turn runs joins that turn, as 0.89 does: no second turn", async () => {
    const client = await h.stdio();
    const { conversationId } = await openConversation(client);
    let release!: (answer: { result: unknown }) => void;
    client.onRequest = () =>
      new Promise((resolve) => {
        release = resolve;
      });
    h.model.enqueue(
      turn(functionCall("shell_command", { command: "touch v1-joined.txt" }, "call_1")),
      turn(message("joined")),
    );
    await client.call("sendUserTurn", {
      ...turnParams(conversationId, "first", "untrusted"),
      sandboxPolicy: { type: "read-only" },
    });
    await client.waitFor((m) => m.method === "execCommandApproval");
    await client.call("sendUserMessage", {
      conversationId,
      items: [{ type: "text", data: { text: "and one more thing" } }],
    });
    release({ result: { decision: "denied" } });
    await client.waitFor((m) => m.method === "codex/event/task_complete");
    expect(h.model.requests).toHaveLength(2);
    expect(JSON.stringify(h.model.requests[1]?.input)).toContain("and one more thing");
    expect(client.notifications("codex/event/task_started")).toHaveLength(1);
    expect(events(client).filter((name) => name === "user_message")).toHaveLength(2);
    expect(referenceSchemaFailures(client)).toEqual([]);
  });

  it("interrupts a running conversation and answers once the turn stopped", async () => {
    const client = await h.stdio();
    const { conversationId } = await openConversation(client);
    h.model.enqueue(turn(hang()));
    await client.call("sendUserMessage", {
      conversationId,
      items: [{ type: "text", data: { text: "wait" } }],
    });
    await client.waitFor((m) => m.method === "codex/event/task_started");
    expect(await client.call("interruptConversation", { conversationId })).toEqual({
      abortReason: "interrupted",
    });
    const aborted = client.notifications("codex/event/turn_aborted");
    expect(aborted.map((m) => m.params?.msg?.reason)).toEqual(["interrupted"]);
    expect(referenceSchemaFailures(client)).toEqual([]);
  });

  it("serves v1 and v2 on one connection, lists conversations and stops a removed listener", async () => {
    const client = await h.stdio();
    const v2 = await client.call("thread/start", { cwd: h.work });
    const { conversationId, subscriptionId } = await openConversation(client);
    h.model.enqueue(turn(message("first")));
    await client.call("sendUserTurn", turnParams(conversationId, "one"));
    await client.waitFor((m) => m.method === "codex/event/task_complete");
    const listed = await client.call("listConversations", {});
    expect(listed.items.map((item: { conversationId: string }) => item.conversationId)).toContain(
      conversationId,
    );
    expect(await client.call("removeConversationListener", { subscriptionId })).toEqual({});
    const again = await client.request("removeConversationListener", { subscriptionId });
    expect(again.error?.message).toContain("subscription not found");
    // The v2 thread still works beside it.
    h.model.enqueue(turn(message("v2 answer")));
    const started = await client.call("turn/start", {
      threadId: v2.thread.id,
      input: [{ type: "text", text: "hi" }],
    });
    await client.turnCompleted(started.turn.id);
    expect(client.notifications("codex/event/task_complete")).toHaveLength(1);
    const auth = await client.call("getAuthStatus", { includeToken: true });
    expect(auth.authToken).toBeNull();
    expect(referenceSchemaFailures(client)).toEqual([]);
  });

  it("refuses out-of-scope 0.169 methods with -32601 saying tscodex does not provide them", async () => {
    const client = await h.stdio();
    for (const method of [
      "account/usage/read",
      "plugin/list",
      "thread/realtime/start",
      "windowsSandbox/readiness",
    ]) {
      const reply = await client.request(method, {});
      expect(reply.error?.code).toBe(-32601);
      expect(reply.error?.message).toContain(`tscodex does not provide \`${method}\``);
    }
    const unknown = await client.request("bogus/method", {});
    expect(unknown.error?.message).toContain("unknown variant");
  });
});
