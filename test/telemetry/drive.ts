/**
 * One turn's worth of telemetry hook calls, as the core makes them: a thread start, a turn with
 * two model requests (SSE events, usage) and one tool call between them, a hook run.
 */
import type { OtelExporterSetting, OtelSettings } from "../../src/config/otel.js";
import type { Telemetry, TraceCarrier, TurnEndInfo } from "../../src/protocol/telemetry.js";

export const THREAD_ID = "thr_0001";
export const TURN_ID = "turn_0001";
export const PROMPT = "list the files please";
export const TOOL_ARGUMENTS = '{"cmd":"ls -la"}';
export const TOOL_OUTPUT = "file-a\nfile-b\nfile-c\n";

export function otelSettings(overrides: Partial<OtelSettings> = {}): OtelSettings {
  const none: OtelExporterSetting = { kind: "none" };
  return {
    environment: "test-env",
    logs: none,
    traces: none,
    metrics: none,
    logUserPrompt: false,
    logAgentResponses: false,
    logSseDeltas: false,
    spanAttributes: {},
    tracestate: {},
    ...overrides,
  };
}

export interface DriveOptions {
  parent?: TraceCarrier;
  toolOutput?: string;
  /** SSE delta events per model request. */
  deltas?: number;
  end?: Partial<TurnEndInfo>;
}

/** Drives one turn; returns what the core would have sent on (request headers, tool carrier). */
export function driveTurn(telemetry: Telemetry, options: DriveOptions = {}) {
  telemetry.threadStarted({
    threadId: THREAD_ID,
    model: "gpt-test",
    provider: "openai",
    reasoningEffort: "medium",
    contextWindow: 200_000,
    approvalPolicy: "never",
    sandboxPolicy: "read-only",
    mcpServers: ["docs", "search"],
    originator: "codex_exec",
  });
  const turn = telemetry.startTurn({
    threadId: THREAD_ID,
    turnId: TURN_ID,
    model: "gpt-test",
    provider: "openai",
    originator: "codex_exec",
    agentName: "tscodex",
    prompt: PROMPT,
    imageCount: 1,
    parent: options.parent,
  });
  const requestHeaders: Record<string, string>[] = [];
  const request = (usage: { input: number; output: number }, responseId: string) => {
    const model = turn.modelRequest({
      model: "gpt-test",
      provider: "openai",
      wireApi: "responses",
      url: "http://127.0.0.1:9/v1/responses",
    });
    requestHeaders.push(model.headers());
    model.attempt({ attempt: 0, status: 200, durationMs: 12 });
    model.sseEvent("response.created", 1);
    model.sseEvent("response.in_progress", 1);
    for (let i = 0; i < (options.deltas ?? 3); i++) model.sseEvent("response.output_text.delta", 2);
    model.sseEvent("response.output_item.done", 1);
    model.sseEvent("response.completed", 1);
    model.completed({
      responseId,
      model: "gpt-test-2026",
      usage: {
        input_tokens: usage.input,
        cached_input_tokens: 10,
        output_tokens: usage.output,
        reasoning_output_tokens: 5,
        total_tokens: usage.input + usage.output,
      },
    });
  };
  request({ input: 1234, output: 56 }, "resp_1");
  const tool = turn.toolCall({
    name: "exec_command",
    callId: "call_1",
    origin: "builtin",
    arguments: TOOL_ARGUMENTS,
  });
  const toolCarrier = tool.carrier();
  tool.decision("approved", "Config");
  tool.end({ success: true, output: options.toolOutput ?? TOOL_OUTPUT });
  turn.hookRun({ event: "PostToolUse", handler: "./hook.sh", durationMs: 7, outcome: "allow" });
  request({ input: 2345, output: 78 }, "resp_2");
  const turnCarrier = turn.carrier();
  turn.end({
    status: "completed",
    usage: {
      input_tokens: 3579,
      cached_input_tokens: 20,
      output_tokens: 134,
      reasoning_output_tokens: 10,
      total_tokens: 3713,
    },
    lastAgentMessage: "here are the files",
    ...options.end,
  });
  return { requestHeaders, toolCarrier, turnCarrier };
}
