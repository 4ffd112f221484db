/**
 * `[otel]` through the real `tscodex mcp-server` (stdio and Streamable HTTP) and `tscodex proxy`
 * (issue 41): the caller's W3C trace context — MCP `_meta.traceparent`, or the HTTP request's
 * `traceparent` header — puts the turn's spans in the caller's trace, each front-end names itself
 * in `service.name`, and each exports what it holds when it stops.
 */
import { describe, expect, it } from "vitest";
import { writeFakeConfig } from "../support/cli.js";
import { message, turn } from "../support/fake-model-server.js";
import { connectHttp, startHttpServer } from "../support/mcp-client.js";
import { useMcpHarness } from "../support/mcp-harness.js";
import { spawnProxy } from "../support/proxy-harness.js";
import { CALLER, otelTable, useOtlpReceiver } from "./otel-config.js";

const h = useMcpHarness();
const otlp = useOtlpReceiver((receiver) =>
  writeFakeConfig(h.home, { baseUrl: h.model.url, extra: otelTable(receiver) }),
);

/** The turn's invoke_agent span, after the server stopped (and so exported). */
function agentSpan() {
  const spans = otlp.receiver.spans().filter((span) => span.name.startsWith("invoke_agent"));
  expect(spans).toHaveLength(1);
  return spans[0];
}

describe("the MCP server and the proxy with [otel]", () => {
  it("mcp-server (stdio): a tools/call's _meta.traceparent is the turn's parent", async () => {
    h.model.enqueue(turn(message("done")));
    const session = await h.connect();
    const result = await session.client.callTool({
      name: "codex",
      arguments: { prompt: "hello" },
      _meta: { traceparent: CALLER.traceparent, tracestate: CALLER.tracestate },
    });
    expect(result.isError).toBeFalsy();
    await session.close();
    const agent = agentSpan();
    expect(agent).toMatchObject({ traceId: CALLER.traceId, parentSpanId: CALLER.spanId });
    expect(agent?.resource["service.name"]).toBe("tscodex-mcp-server");
    expect(h.model.requests[0]?.headers.traceparent).toContain(CALLER.traceId);
  });

  it("mcp-server (HTTP): the POST's traceparent header is the turn's parent", async () => {
    h.model.enqueue(turn(message("done")));
    const server = await startHttpServer(h.serverEnv());
    try {
      const { client } = await connectHttp(server.url, { headers: { traceparent: CALLER.traceparent } });
      await client.callTool({ name: "codex", arguments: { prompt: "hello" } });
      await client.close();
    } finally {
      await server.stop();
    }
    expect(agentSpan()).toMatchObject({ traceId: CALLER.traceId, parentSpanId: CALLER.spanId });
  });

  it("proxy: a /v1/responses request's traceparent is the turn's parent", async () => {
    h.model.enqueue(turn(message("hi from the proxy")));
    const proxy = await spawnProxy(h.home, h.work, []);
    try {
      const response = await fetch(`${proxy.url}/responses`, {
        method: "POST",
        headers: { "content-type": "application/json", traceparent: CALLER.traceparent },
        body: JSON.stringify({ model: "gpt-5.2-codex", input: "hello" }),
      });
      expect(response.status).toBe(200);
    } finally {
      await proxy.stop();
    }
    const agent = agentSpan();
    expect(agent).toMatchObject({ traceId: CALLER.traceId, parentSpanId: CALLER.spanId });
    expect(agent?.resource["service.name"]).toBe("tscodex-proxy");
    const tokens = otlp.receiver
      .metrics()
      .filter((metric) => metric.name === "gen_ai.client.operation.duration");
    expect(tokens.length).toBeGreaterThan(0);
  });
});
