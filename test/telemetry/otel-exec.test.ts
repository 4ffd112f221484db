/**
 * `[otel]` through the real `tscodex exec` (issue 41): one turn with a shell call against the fake
 * model, exported to an OTLP otlp.receiver in the test and decoded with the official protos. What
 * arrives is checked right after exec exits, so it shows exec flushed before exiting. Also: OTLP
 * JSON with headers and the prompt opted in, sub-agent turns as child spans, a dead collector
 * (stalled, refused) harmless, and nothing sent without `[otel]` whatever OTEL_* says.
 */
import { describe, expect, it } from "vitest";
import { messageText, type ResponseItem } from "../../src/protocol/items.js";
import { callOutputs, useExecHarness } from "../support/exec-harness.js";
import { functionCall, message, turn, usage } from "../support/fake-model-server.js";
import { closedPort, type ReceivedSpan } from "../support/otlp-receiver.js";
import { otelTable, useOtlpReceiver } from "./otel-config.js";

const h = useExecHarness({ execArgs: ["-s", "danger-full-access"] });
const otlp = useOtlpReceiver();

const PROMPT = "say hi through the shell";

function scriptShellTurn(): void {
  h.server.enqueue(
    turn(
      functionCall("shell_command", { command: "echo hi-otel" }, "call_1"),
      usage({ input: 1234, output: 56 }),
    ),
    turn(message("done"), usage({ input: 2345, output: 78 })),
  );
}

/** Runs exec --json; its JSONL lines (each must parse: the export never writes to stdout). */
async function execJson(args: string[] = [PROMPT]) {
  const result = await h.exec(["--json", ...args]);
  const lines = result.stdout
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as { type: string; thread_id?: string });
  const threadId = lines.find((line) => line.type === "thread.started")?.thread_id ?? "";
  return { ...result, lines, threadId };
}

const spanNamed = (prefix: string) => otlp.receiver.spans().filter((span) => span.name.startsWith(prefix));
const logsNamed = (name: string) => otlp.receiver.logs().filter((log) => log.eventName === name);
const points = (name: string) => otlp.receiver.metrics().filter((metric) => metric.name === name);
const total = (name: string, attributes: Record<string, unknown> = {}) =>
  points(name)
    .flatMap((metric) => metric.points)
    .filter((point) => Object.entries(attributes).every(([key, value]) => point.attributes[key] === value))
    .reduce((sum, point) => sum + (point.value ?? point.sum ?? 0), 0);

describe("tscodex exec with [otel]", () => {
  it("exports Codex's events and metrics and GenAI spans over OTLP protobuf, all before exec exits", async () => {
    await h.writeConfig({ extra: otelTable(otlp.receiver) });
    scriptShellTurn();
    const result = await execJson();
    expect(result.code).toBe(0);
    expect(result.stderr).toBe("");
    const { threadId } = result;
    expect(threadId).not.toBe("");

    // Each signal to exactly its URL, as protobuf.
    const paths = new Set(
      otlp.receiver.requests().map((request) => `${request.path} ${request.contentType}`),
    );
    expect(paths).toEqual(
      new Set([
        "/coll/v1/logs application/x-protobuf",
        "/coll/v1/traces application/x-protobuf",
        "/coll/v1/metrics application/x-protobuf",
      ]),
    );

    // Traces: invoke_agent → chat ×2 (CLIENT) and execute_tool, one trace.
    const [agent] = spanNamed("invoke_agent");
    expect(agent?.name).toBe("invoke_agent tscodex");
    expect(agent?.parentSpanId).toBe("");
    expect(agent?.attributes).toMatchObject({
      "gen_ai.operation.name": "invoke_agent",
      "gen_ai.agent.name": "tscodex",
      "gen_ai.conversation.id": threadId,
      "gen_ai.request.model": "gpt-5.2-codex",
      "gen_ai.usage.input_tokens": 3579,
      "gen_ai.usage.output_tokens": 134,
    });
    expect(agent?.resource).toMatchObject({
      "service.name": "tscodex_exec",
      env: "ci",
      "deployment.environment.name": "ci",
    });
    const chats = spanNamed("chat ");
    expect(chats.map((span) => [span.name, span.kind, span.parentSpanId, span.traceId])).toEqual([
      ["chat gpt-5.2-codex", 3, agent?.spanId, agent?.traceId],
      ["chat gpt-5.2-codex", 3, agent?.spanId, agent?.traceId],
    ]);
    expect(chats[0]?.attributes).toMatchObject({
      "gen_ai.provider.name": "fake",
      "gen_ai.usage.input_tokens": 1234,
      "gen_ai.usage.output_tokens": 56,
      "server.address": "127.0.0.1",
    });
    expect(typeof chats[0]?.attributes["gen_ai.response.id"]).toBe("string");
    const [tool] = spanNamed("execute_tool");
    expect(tool).toMatchObject({ name: "execute_tool shell_command", parentSpanId: agent?.spanId });
    expect(tool?.attributes).toMatchObject({
      "gen_ai.tool.name": "shell_command",
      "gen_ai.tool.call.id": "call_1",
      "gen_ai.tool.type": "function",
    });

    // Outgoing model requests carry their chat span's context.
    const sent = h.server.requests.map((request) => request.headers.traceparent);
    expect(sent).toEqual(chats.map((span) => `00-${span.traceId}-${span.spanId}-01`));

    // Logs: Codex's events, with their span's context; the prompt redacted, its length kept.
    const names = new Set(otlp.receiver.logs().map((log) => log.eventName));
    for (const name of [
      "codex.conversation_starts",
      "codex.user_prompt",
      "codex.api_request",
      "codex.sse_event",
      "codex.turn_ttft",
      "codex.tool_decision",
      "codex.tool_result",
    ])
      expect(names).toContain(name);
    const [prompt] = logsNamed("codex.user_prompt");
    expect(prompt?.attributes).toMatchObject({
      prompt: "[REDACTED]",
      prompt_length: PROMPT.length,
      "conversation.id": threadId,
      originator: "tscodex_exec",
      model: "gpt-5.2-codex",
    });
    expect(prompt?.traceId).toBe(agent?.traceId);
    expect(logsNamed("codex.api_request").map((log) => log.attributes["http.response.status_code"])).toEqual([
      200, 200,
    ]);
    expect(logsNamed("codex.tool_decision")[0]?.attributes).toMatchObject({
      tool_name: "shell_command",
      call_id: "call_1",
      decision: "approved",
      source: "Config",
    });
    const toolResult = logsNamed("codex.tool_result")[0];
    expect(toolResult?.attributes).toMatchObject({ tool_name: "shell_command", success: true });
    expect(toolResult?.attributes).not.toHaveProperty("output");
    expect(toolResult?.spanId).toBe(tool?.spanId);
    const completed = logsNamed("codex.sse_event").find((log) => "input_token_count" in log.attributes);
    expect(completed?.attributes).toMatchObject({
      "event.kind": "response.completed",
      input_token_count: 1234,
    });
    // Content stays out of every export by default.
    const everything = JSON.stringify([otlp.receiver.spans(), otlp.receiver.logs()]);
    expect(everything).not.toContain(PROMPT);
    expect(everything).not.toContain("hi-otel\n");

    // Metrics: Codex's and GenAI's, all delta.
    expect(otlp.receiver.metrics().every((metric) => metric.temporality !== "cumulative")).toBe(true);
    expect(total("codex.tool.call", { tool: "shell_command", success: "true" })).toBe(1);
    expect(total("codex.api_request", { status: "200" })).toBe(2);
    expect(total("codex.turn.token_usage", { token_type: "input" })).toBe(3579);
    expect(total("codex.turn.token_usage", { token_type: "output" })).toBe(134);
    expect(total("gen_ai.client.token.usage", { "gen_ai.token.type": "input" })).toBe(3579);
    expect(points("gen_ai.client.operation.duration")[0]?.unit).toBe("s");
    expect(points("codex.turn.e2e_duration_ms")[0]?.points[0]?.count).toBe(1);
  });

  it("OTLP JSON carries the configured headers; log_user_prompt and tool_result.max_bytes opt content in", async () => {
    const extra = ["log_user_prompt = true", "[otel.tool_result]", "max_bytes = 4"].join("\n");
    await h.writeConfig({
      extra: otelTable(otlp.receiver, {
        protocol: "json",
        extra,
        headers: ', headers = { "x-api-key" = "k-123" }',
      }),
    });
    scriptShellTurn();
    const result = await execJson();
    expect(result.code).toBe(0);
    expect(
      otlp.receiver.requests().every((request) => request.contentType.startsWith("application/json")),
    ).toBe(true);
    expect(otlp.receiver.requests().every((request) => request.headers["x-api-key"] === "k-123")).toBe(true);
    expect(logsNamed("codex.user_prompt")[0]?.attributes.prompt).toBe(PROMPT);
    expect(logsNamed("codex.tool_result")[0]?.attributes).toMatchObject({
      arguments: '{"co',
      output_truncated: true,
    });
  });

  it("otlp-grpc carries every signal too (the gRPC exporters load only when configured)", async () => {
    const grpc = `{ otlp-grpc = { endpoint = "${otlp.receiver.grpcUrl}", headers = { "x-team" = "t1" } } }`;
    await h.writeConfig({
      extra: ["[otel]", `exporter = ${grpc}`, `trace_exporter = ${grpc}`, `metrics_exporter = ${grpc}`].join(
        "\n",
      ),
    });
    scriptShellTurn();
    const result = await execJson();
    expect(result.code).toBe(0);
    expect(result.stderr).toBe("");
    const requests = otlp.receiver.requests();
    expect(new Set(requests.map((request) => `${request.transport} ${request.signal}`))).toEqual(
      new Set(["grpc logs", "grpc traces", "grpc metrics"]),
    );
    expect(requests.every((request) => request.headers["x-team"] === "t1")).toBe(true);
    expect(spanNamed("execute_tool shell_command")).toHaveLength(1);
    expect(total("codex.tool.call", { tool: "shell_command" })).toBe(1);
  });

  it("a sub-agent's turn is a child invoke_agent span in the parent's trace", async () => {
    await h.writeConfig({ extra: otelTable(otlp.receiver) });
    const isChild = (input: readonly ResponseItem[]) =>
      input.some(
        (item) => item.type === "message" && item.role === "user" && messageText(item) === "count files",
      );
    for (let i = 0; i < 6; i++) {
      h.server.enqueue((request) => {
        const outputs = callOutputs(request.input);
        if (isChild(request.input)) return turn(message("3 files"));
        if (!outputs.s1) return turn(functionCall("spawn_agent", { message: "count files" }, "s1"));
        const id = (JSON.parse(String(outputs.s1)) as { agent_id: string }).agent_id;
        if (!outputs.w) return turn(functionCall("wait", { ids: [id], timeout_ms: 20000 }, "w"));
        return turn(message("the child says 3"));
      });
    }
    const result = await h.exec(["--enable", "collab", "delegate"]);
    expect(result.code).toBe(0);
    const agents = spanNamed("invoke_agent");
    expect(agents.map((span) => span.name).sort()).toEqual(["invoke_agent default", "invoke_agent tscodex"]);
    const parent = agents.find((span) => span.name === "invoke_agent tscodex") as ReceivedSpan;
    const child = agents.find((span) => span.name === "invoke_agent default") as ReceivedSpan;
    const spawn = spanNamed("execute_tool spawn_agent")[0];
    expect(spawn?.parentSpanId).toBe(parent.spanId);
    expect(child.traceId).toBe(parent.traceId);
    expect(child.parentSpanId).toBe(spawn?.spanId);
    expect(child.attributes["gen_ai.conversation.id"]).not.toBe(parent.attributes["gen_ai.conversation.id"]);
  });

  it("a collector that never answers, or refuses, neither fails nor holds exec, and prints nothing", async () => {
    otlp.receiver.setMode("stall");
    await h.writeConfig({ extra: otelTable(otlp.receiver) });
    scriptShellTurn();
    const started = Date.now();
    const stalled = await execJson();
    expect(stalled.code).toBe(0);
    expect(stalled.stderr).toBe("");
    expect(stalled.lines.at(-1)?.type).toBe("turn.completed");
    // The bounded flush: 3 s at most, where Codex waits out ~30 s.
    expect(Date.now() - started).toBeLessThan(8_000);
    expect(otlp.receiver.requests().length).toBeGreaterThan(0);

    const port = await closedPort();
    const refusedUrl = (path: string) =>
      `{ otlp-http = { endpoint = "http://127.0.0.1:${port}${path}", protocol = "binary" } }`;
    await h.writeConfig({
      extra: [
        "[otel]",
        `exporter = ${refusedUrl("/v1/logs")}`,
        `trace_exporter = ${refusedUrl("/v1/traces")}`,
      ].join("\n"),
    });
    scriptShellTurn();
    const refused = await execJson();
    expect(refused.code).toBe(0);
    expect(refused.stderr).toBe("");
  });

  it("sends nothing without [otel], whatever the OTEL_* variables say", async () => {
    scriptShellTurn();
    const result = await h.exec(["--json", PROMPT], {
      env: {
        OTEL_EXPORTER_OTLP_ENDPOINT: otlp.receiver.httpUrl(),
        OTEL_TRACES_EXPORTER: "otlp",
        OTEL_LOGS_EXPORTER: "otlp",
        OTEL_METRICS_EXPORTER: "otlp",
      },
    });
    expect(result.code).toBe(0);
    expect(otlp.receiver.requests()).toEqual([]);
    expect(h.server.requests.every((request) => request.headers.traceparent === undefined)).toBe(true);
  });
});
