/**
 * `[otel]` through the real `tscodex app-server` (issue 41): a turn/start carrying Codex's W3C
 * `trace` envelope puts the turn's spans, its records and the model request's `traceparent` in
 * the caller's trace; the server flushes when its client leaves. A malformed envelope is dropped,
 * never refused: the turn runs in a trace of its own.
 */
import { describe, expect, it } from "vitest";
import type { StdioAppClient } from "../support/app-server-client.js";
import { useAppServerHarness } from "../support/app-server-harness.js";
import { writeFakeConfig } from "../support/cli.js";
import { functionCall, message, turn } from "../support/fake-model-server.js";
import { CALLER, otelTable, useOtlpReceiver } from "./otel-config.js";

const h = useAppServerHarness();
const otlp = useOtlpReceiver((receiver) =>
  writeFakeConfig(h.home, { baseUrl: h.model.url, extra: otelTable(receiver) }),
);

/** turn/start (with `trace`, when given) on a new thread; resolves when the turn completed. */
async function traceTurn(client: StdioAppClient, trace: unknown): Promise<string> {
  const { thread } = await client.call("thread/start", {
    cwd: h.work,
    approvalPolicy: "never",
    sandbox: "danger-full-access",
  });
  const from = client.received.length;
  client.sendRaw(
    JSON.stringify({
      jsonrpc: "2.0",
      id: "t1",
      method: "turn/start",
      params: { threadId: thread.id, input: [{ type: "text", text: "run it", text_elements: [] }] },
      trace,
    }),
  );
  const reply = await client.waitFor((m) => m.id === "t1");
  expect(reply.error).toBeUndefined();
  const done = await client.turnCompleted(reply.result.turn.id, from);
  expect(done.params.turn.status).toBe("completed");
  return thread.id;
}

describe("tscodex app-server with [otel]", () => {
  it("a turn/start's trace envelope makes the turn part of the caller's trace", async () => {
    h.model.enqueue(turn(functionCall("shell_command", { command: "true" }, "c1")), turn(message("ok")));
    const client = await h.stdio();
    const threadId = await traceTurn(client, {
      traceparent: CALLER.traceparent,
      tracestate: CALLER.tracestate,
    });
    // The client leaves: the server exports what it holds before it exits.
    await client.close();

    const [agent] = otlp.receiver.spans().filter((span) => span.name.startsWith("invoke_agent"));
    expect(agent).toMatchObject({ traceId: CALLER.traceId, parentSpanId: CALLER.spanId });
    expect(agent?.traceState).toContain("caller=1");
    expect(agent?.attributes["gen_ai.conversation.id"]).toBe(threadId);
    expect(agent?.resource["service.name"]).toBe("tscodex-app-server");
    const turnSpans = otlp.receiver.spans().filter((span) => /^(chat|execute_tool) /.test(span.name));
    expect(turnSpans.length).toBe(3);
    expect(turnSpans.every((span) => span.traceId === CALLER.traceId)).toBe(true);
    for (const request of h.model.requests)
      expect(request.headers.traceparent).toMatch(new RegExp(`^00-${CALLER.traceId}-[0-9a-f]{16}-01$`));
    const records = otlp.receiver
      .logs()
      .filter((log) => log.eventName === "codex.user_prompt" || log.eventName === "codex.tool_result");
    expect(records.map((log) => log.traceId)).toEqual([CALLER.traceId, CALLER.traceId]);
    expect(records[0]?.attributes.originator).toBe("tscodex_app_server");
  });

  it("a malformed envelope is dropped: the turn runs, in a trace of its own", async () => {
    h.model.enqueue(turn(message("ok")));
    const client = await h.stdio();
    await traceTurn(client, { traceparent: "not-a-traceparent" });
    await client.close();
    const [agent] = otlp.receiver.spans().filter((span) => span.name.startsWith("invoke_agent"));
    expect(agent?.parentSpanId).toBe("");
    expect(agent?.traceId).toMatch(/^[0-9a-f]{32}$/);
  });
});
