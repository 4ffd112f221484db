/**
 * What the hooks export, over one collector (otlp-http binary for logs and metrics, json for
 * traces): Codex's `codex.*` events and metrics with their attributes and value types, the
 * GenAI spans and their tree, privacy opt-ins, the caller's trace, span_attributes, tracestate.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { OtelSettings } from "../../src/config/otel.js";
import type { Telemetry } from "../../src/protocol/telemetry.js";
import { startOtelTelemetry } from "../../src/telemetry/start.js";
import { VERSION } from "../../src/version.js";
import { type OtlpReceiver, type ReceivedLog, startOtlpReceiver } from "../support/otlp-receiver.js";
import { driveTurn, otelSettings, PROMPT, THREAD_ID, TOOL_ARGUMENTS, TOOL_OUTPUT, TURN_ID } from "./drive.js";

const CALLER_TRACE = "0af7651916cd43dd8448eb211c80319c";
const CALLER_SPAN = "b7ad6b7169203331";

let receiver: OtlpReceiver;
beforeAll(async () => {
  receiver = await startOtlpReceiver();
});
afterAll(async () => {
  await receiver.close();
});

async function run(overrides: Partial<OtelSettings>, drive: (telemetry: Telemetry) => void): Promise<void> {
  receiver.clear();
  const telemetry = await startOtelTelemetry(
    otelSettings({
      logs: { kind: "otlp-http", endpoint: receiver.httpUrl("/v1/logs"), headers: {}, protocol: "binary" },
      traces: { kind: "otlp-http", endpoint: receiver.httpUrl("/v1/traces"), headers: {}, protocol: "json" },
      metrics: {
        kind: "otlp-http",
        endpoint: receiver.httpUrl("/v1/metrics"),
        headers: {},
        protocol: "binary",
      },
      ...overrides,
    }),
    { serviceName: "codex_exec", sessionSource: "exec", env: { TERM_PROGRAM: "vscode", TERM: "xterm" } },
  );
  drive(telemetry);
  await telemetry.shutdown();
}

const logsNamed = (name: string): ReceivedLog[] => receiver.logs().filter((log) => log.eventName === name);
const spanNamed = (name: string) => receiver.spans().find((span) => span.name === name);
const metricNamed = (name: string) => receiver.metrics().find((metric) => metric.name === name);

describe("by default (no content opt-ins)", () => {
  let carriers: ReturnType<typeof driveTurn>;
  beforeAll(async () => {
    await run({}, (telemetry) => {
      carriers = driveTurn(telemetry);
    });
  });

  it("logs Codex's events with the common attributes, as real value types, INFO", () => {
    const names = new Set(receiver.logs().map((log) => log.eventName));
    for (const name of [
      "codex.conversation_starts",
      "codex.user_prompt",
      "codex.api_request",
      "codex.sse_event",
      "codex.turn_ttft",
      "codex.tool_decision",
      "codex.tool_result",
    ])
      expect(names, name).toContain(name);
    expect(names).not.toContain("codex.agent_response");
    for (const log of receiver.logs()) {
      expect(log.severityNumber).toBe(9);
      expect(log.attributes).toMatchObject({
        "event.name": log.eventName,
        "conversation.id": THREAD_ID,
        "app.version": VERSION,
        auth_mode: "ApiKey",
        originator: "codex_exec",
        "terminal.type": "vscode",
        model: "gpt-test",
        slug: "gpt-test",
      });
      expect(log.attributes["event.timestamp"]).toMatch(/^\d{4}-\d\d-\d\dT.*Z$/);
    }
    expect(logsNamed("codex.conversation_starts")[0]?.attributes).toMatchObject({
      provider_name: "openai",
      context_window: 200000,
      mcp_servers: "docs,search",
      approval_policy: "never",
      sandbox_policy: "read-only",
    });
    expect(logsNamed("codex.api_request")[0]?.attributes).toMatchObject({
      duration_ms: 12,
      "http.response.status_code": 200,
      attempt: 0,
      endpoint: "/v1/responses",
    });
  });

  it("redacts the prompt and leaves tool content out, keeping lengths", () => {
    expect(logsNamed("codex.user_prompt")[0]?.attributes).toMatchObject({
      prompt: "[REDACTED]",
      prompt_length: PROMPT.length,
      image_count: 1,
    });
    const result = logsNamed("codex.tool_result")[0]?.attributes;
    expect(result).toMatchObject({
      tool_name: "exec_command",
      call_id: "call_1",
      success: true,
      tool_origin: "builtin",
      output_length: TOOL_OUTPUT.length,
      output_line_count: 3,
    });
    expect(result).not.toHaveProperty("arguments");
    expect(result).not.toHaveProperty("output");
    const everything = JSON.stringify(receiver.requests().map((request) => request.body));
    expect(everything).not.toContain(PROMPT);
    expect(everything).not.toContain("file-b");
  });

  it("logs SSE events but not deltas, and one more response.completed record with token counts", () => {
    const kinds = logsNamed("codex.sse_event").map((log) => log.attributes["event.kind"]);
    expect(kinds).not.toContain("response.output_text.delta");
    const completed = logsNamed("codex.sse_event").filter((log) => "input_token_count" in log.attributes);
    expect(completed.map((log) => log.attributes)).toMatchObject([
      {
        "event.kind": "response.completed",
        input_token_count: 1234,
        output_token_count: 56,
        tool_token_count: 1290,
      },
      { "event.kind": "response.completed", input_token_count: 2345, output_token_count: 78 },
    ]);
    const deltas = metricNamed("codex.sse_event")?.points.find(
      (point) => point.attributes.kind === "response.output_text.delta",
    );
    expect(deltas?.value).toBe(6);
  });

  it("builds the GenAI span tree: invoke_agent > chat (CLIENT) and execute_tool", () => {
    const turn = spanNamed("invoke_agent tscodex");
    const chats = receiver.spans().filter((span) => span.name === "chat gpt-test");
    const tool = spanNamed("execute_tool exec_command");
    expect(turn).toMatchObject({ kind: 1, parentSpanId: "" });
    expect(turn?.attributes).toMatchObject({
      "gen_ai.operation.name": "invoke_agent",
      "gen_ai.agent.name": "tscodex",
      "gen_ai.agent.id": THREAD_ID,
      "gen_ai.conversation.id": THREAD_ID,
      "gen_ai.provider.name": "openai",
      "gen_ai.request.model": "gpt-test",
      "conversation.id": THREAD_ID,
      "turn.id": TURN_ID,
      "gen_ai.usage.input_tokens": 3579,
      "gen_ai.usage.output_tokens": 134,
      "gen_ai.usage.cache_read.input_tokens": 20,
      "gen_ai.usage.reasoning.output_tokens": 10,
      "tscodex.turn.status": "completed",
    });
    expect(turn?.attributes).not.toHaveProperty("gen_ai.input.messages");
    expect(turn?.attributes).not.toHaveProperty("gen_ai.output.messages");
    expect(chats).toHaveLength(2);
    for (const chat of chats) {
      expect(chat).toMatchObject({ kind: 3, traceId: turn?.traceId, parentSpanId: turn?.spanId });
      expect(chat.attributes).toMatchObject({
        "gen_ai.operation.name": "chat",
        "gen_ai.provider.name": "openai",
        "gen_ai.request.model": "gpt-test",
        "gen_ai.response.model": "gpt-test-2026",
        "server.address": "127.0.0.1",
        "server.port": 9,
      });
    }
    expect(chats.map((chat) => chat.attributes["gen_ai.response.id"]).sort()).toEqual(["resp_1", "resp_2"]);
    expect(carriers.requestHeaders.map((headers) => headers.traceparent).sort()).toEqual(
      chats.map((chat) => `00-${chat.traceId}-${chat.spanId}-01`).sort(),
    );
    expect(tool).toMatchObject({ kind: 1, parentSpanId: turn?.spanId });
    expect(tool?.attributes).toMatchObject({
      "gen_ai.operation.name": "execute_tool",
      "gen_ai.tool.name": "exec_command",
      "gen_ai.tool.call.id": "call_1",
      "gen_ai.tool.type": "function",
      tool_origin: "builtin",
    });
    expect(tool?.attributes).not.toHaveProperty("gen_ai.tool.call.arguments");
    expect(carriers.toolCarrier?.traceparent).toBe(`00-${tool?.traceId}-${tool?.spanId}-01`);
    expect(carriers.turnCarrier?.traceparent).toBe(`00-${turn?.traceId}-${turn?.spanId}-01`);
  });

  it("gives records the trace context of their span and mirrors them as span events without content", () => {
    const turn = spanNamed("invoke_agent tscodex");
    const tool = spanNamed("execute_tool exec_command");
    expect(logsNamed("codex.user_prompt")[0]).toMatchObject({ traceId: turn?.traceId, spanId: turn?.spanId });
    expect(logsNamed("codex.tool_result")[0]).toMatchObject({ traceId: tool?.traceId, spanId: tool?.spanId });
    const promptEvent = turn?.events.find((event) => event.name === "codex.user_prompt");
    expect(promptEvent?.attributes).toMatchObject({ prompt_length: PROMPT.length });
    expect(promptEvent?.attributes).not.toHaveProperty("prompt");
    expect(tool?.events.map((event) => event.name)).toEqual(["codex.tool_decision", "codex.tool_result"]);
    expect(turn?.events.find((event) => event.name === "codex.hook_run")?.attributes).toMatchObject({
      hook_event: "PostToolUse",
      outcome: "allow",
    });
  });

  it("records Codex's metrics (string tags, ms bounds) and the GenAI ones", () => {
    const common = {
      "app.version": VERSION,
      auth_mode: "ApiKey",
      model: "gpt-test",
      originator: "codex_exec",
      session_source: "exec",
      service_name: "codex_exec",
    };
    expect(metricNamed("codex.thread.started")?.points[0]).toMatchObject({ value: 1, attributes: common });
    expect(metricNamed("codex.tool.call")?.points[0]).toMatchObject({
      value: 1,
      attributes: { ...common, tool: "exec_command", success: "true" },
    });
    expect(metricNamed("codex.hooks.run")?.points[0]?.attributes).toMatchObject({
      hook_event: "PostToolUse",
      outcome: "allow",
    });
    const duration = metricNamed("codex.api_request.duration_ms");
    expect(duration).toMatchObject({ kind: "histogram", unit: "ms", temporality: "delta" });
    expect(duration?.points[0]?.explicitBounds).toEqual([
      0, 5, 10, 25, 50, 75, 100, 250, 500, 750, 1000, 2500, 5000, 7500, 10000,
    ]);
    expect(metricNamed("codex.turn.e2e_duration_ms")?.points[0]?.explicitBounds?.at(-1)).toBe(120000);
    for (const name of [
      "codex.turn.ttft.duration_ms",
      "codex.turn.ttfm.duration_ms",
      "codex.tool.call.duration_ms",
    ])
      expect(metricNamed(name)?.points[0]?.count, name).toBe(1);
    expect(metricNamed("codex.turn.tool.call")?.points[0]).toMatchObject({ count: 1, sum: 1 });
    const usage = Object.fromEntries(
      (metricNamed("codex.turn.token_usage")?.points ?? []).map((point) => [
        point.attributes.token_type,
        point.sum,
      ]),
    );
    expect(usage).toEqual({
      input: 3579,
      cached_input: 20,
      non_cached_input: 3559,
      output: 134,
      reasoning_output: 10,
      total: 3713,
    });
    const tokens = metricNamed("gen_ai.client.token.usage");
    expect(tokens?.unit).toBe("{token}");
    expect(tokens?.points[0]?.explicitBounds?.at(-1)).toBe(67108864);
    const input = tokens?.points.find((point) => point.attributes["gen_ai.token.type"] === "input");
    expect(input).toMatchObject({ count: 2, sum: 3579 });
    expect(input?.attributes).toMatchObject({
      "gen_ai.operation.name": "chat",
      "gen_ai.provider.name": "openai",
      "gen_ai.request.model": "gpt-test",
      "gen_ai.response.model": "gpt-test-2026",
      "server.address": "127.0.0.1",
      "server.port": 9,
    });
    const operation = metricNamed("gen_ai.client.operation.duration");
    expect(operation).toMatchObject({ unit: "s" });
    expect(operation?.points[0]?.explicitBounds).toEqual([
      0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92,
    ]);
    for (const name of [
      "gen_ai.client.operation.time_to_first_chunk",
      "gen_ai.invoke_agent.duration",
      "gen_ai.execute_tool.duration",
    ])
      expect(metricNamed(name)?.unit, name).toBe("s");
  });

  it("puts service, version, environment and host on the resource", () => {
    for (const resource of [
      receiver.spans()[0]?.resource,
      receiver.logs()[0]?.resource,
      receiver.metrics()[0]?.resource,
    ])
      expect(resource).toMatchObject({
        "service.name": "codex_exec",
        "service.version": VERSION,
        env: "test-env",
        "deployment.environment.name": "test-env",
        "host.name": expect.any(String),
        "telemetry.sdk.language": "nodejs",
      });
  });
});

describe("with the content opt-ins", () => {
  it("exports the prompt, the agent's response, and tool content cut at tool_result.max_bytes", async () => {
    await run(
      { logUserPrompt: true, logAgentResponses: true, toolResultMaxBytes: 8, logSseDeltas: true },
      (t) => {
        driveTurn(t);
      },
    );
    expect(logsNamed("codex.user_prompt")[0]?.attributes.prompt).toBe(PROMPT);
    expect(logsNamed("codex.agent_response")[0]?.attributes.message).toBe("here are the files");
    expect(logsNamed("codex.tool_result")[0]?.attributes).toMatchObject({
      arguments: TOOL_ARGUMENTS.slice(0, 8),
      output: TOOL_OUTPUT.slice(0, 8),
      output_truncated: true,
    });
    expect(logsNamed("codex.sse_event").map((log) => log.attributes["event.kind"])).toContain(
      "response.output_text.delta",
    );
    const turn = spanNamed("invoke_agent tscodex");
    expect(JSON.parse(String(turn?.attributes["gen_ai.input.messages"]))[0].parts[0].content).toBe(PROMPT);
    expect(String(turn?.attributes["gen_ai.output.messages"])).toContain("here are the files");
    expect(spanNamed("execute_tool exec_command")?.attributes).toMatchObject({
      "gen_ai.tool.call.arguments": TOOL_ARGUMENTS.slice(0, 8),
      "gen_ai.tool.call.result": TOOL_OUTPUT.slice(0, 8),
    });
    // Content stays out of span events even when exported in logs.
    const resultEvent = spanNamed("execute_tool exec_command")?.events.find(
      (e) => e.name === "codex.tool_result",
    );
    expect(resultEvent?.attributes).not.toHaveProperty("output");
  });

  it("keeps the whole output under the cap", async () => {
    await run({ toolResultMaxBytes: 1024 }, (t) => {
      driveTurn(t);
    });
    expect(logsNamed("codex.tool_result")[0]?.attributes).toMatchObject({
      arguments: TOOL_ARGUMENTS,
      output: TOOL_OUTPUT,
      output_truncated: false,
    });
  });
});

describe("trace context", () => {
  it("joins the caller's trace, upserts the configured tracestate, adds span_attributes everywhere", async () => {
    let carriers: ReturnType<typeof driveTurn> | undefined;
    await run(
      { tracestate: { tscodex: { team: "infra", tier: "1" } }, spanAttributes: { team: "x", region: "eu" } },
      (telemetry) => {
        carriers = driveTurn(telemetry, {
          parent: {
            traceparent: `00-${CALLER_TRACE}-${CALLER_SPAN}-01`,
            tracestate: "vendor=abc,tscodex=old",
          },
        });
      },
    );
    const turn = spanNamed("invoke_agent tscodex");
    expect(turn).toMatchObject({ traceId: CALLER_TRACE, parentSpanId: CALLER_SPAN });
    expect(turn?.traceState).toBe("tscodex=team:infra;tier:1,vendor=abc");
    expect(receiver.spans()).toHaveLength(4);
    for (const span of receiver.spans()) {
      expect(span.traceId).toBe(CALLER_TRACE);
      expect(span.traceState).toBe("tscodex=team:infra;tier:1,vendor=abc");
      expect(span.attributes).toMatchObject({ team: "x", region: "eu" });
    }
    expect(carriers?.requestHeaders[0]?.tracestate).toBe("tscodex=team:infra;tier:1,vendor=abc");
    expect(logsNamed("codex.user_prompt")[0]?.traceId).toBe(CALLER_TRACE);
  });

  it("makes a sub-agent's turn started from a tool call a child of that call", async () => {
    await run({}, (telemetry) => {
      const { toolCarrier } = driveTurn(telemetry);
      const child = telemetry.startTurn({
        threadId: "thr_child",
        turnId: "turn_child",
        model: "gpt-test",
        provider: "azure",
        originator: "codex_exec",
        agentName: "explorer",
        prompt: "",
        imageCount: 0,
        parent: toolCarrier ?? undefined,
      });
      child.end({
        status: "failed",
        error: "model refused",
        usage: {
          input_tokens: 0,
          cached_input_tokens: 0,
          output_tokens: 0,
          reasoning_output_tokens: 0,
          total_tokens: 0,
        },
      });
    });
    const tool = spanNamed("execute_tool exec_command");
    const child = spanNamed("invoke_agent explorer");
    expect(child).toMatchObject({ traceId: tool?.traceId, parentSpanId: tool?.spanId });
    expect(child?.status).toEqual({ code: 2, message: "model refused" });
    expect(child?.attributes).toMatchObject({
      "gen_ai.provider.name": "azure.ai.openai",
      "error.type": "_OTHER",
      "tscodex.turn.status": "failed",
    });
  });
});
