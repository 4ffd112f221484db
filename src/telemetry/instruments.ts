/**
 * The metric instruments: Codex's `codex.*` names (ms histograms with Codex's bounds, tags as
 * strings) and the GenAI semantic conventions' `gen_ai.*` ones (seconds, semconv buckets).
 */
import type { Counter, Histogram, Meter } from "@opentelemetry/api";

/** Codex's bounds for its millisecond histograms. */
export const CODEX_MS_BOUNDS = [0, 5, 10, 25, 50, 75, 100, 250, 500, 750, 1000, 2500, 5000, 7500, 10000];
/** `codex.turn.e2e_duration_ms` spans whole turns, up to two minutes. */
export const E2E_MS_BOUNDS = [
  0, 100, 250, 500, 1000, 2500, 5000, 10000, 15000, 30000, 45000, 60000, 90000, 120000,
];
/** Semconv `gen_ai.client.token.usage` buckets: powers of 4 from 1 to 67108864. */
export const TOKEN_BOUNDS = Array.from({ length: 14 }, (_, i) => 4 ** i);
/** Semconv duration buckets (seconds), 0.01 doubling to 81.92. */
export const SECONDS_BOUNDS = Array.from({ length: 14 }, (_, i) => Math.round(0.01 * 2 ** i * 100) / 100);

export interface Instruments {
  threadStarted: Counter;
  apiRequest: Counter;
  apiRequestDuration: Histogram;
  sseEvent: Counter;
  sseEventDuration: Histogram;
  toolCall: Counter;
  toolCallDuration: Histogram;
  mcpCall: Counter;
  mcpCallDuration: Histogram;
  mcpCallError: Counter;
  hooksRun: Counter;
  hooksRunDuration: Histogram;
  turnE2e: Histogram;
  turnTtft: Histogram;
  turnTtfm: Histogram;
  turnToolCalls: Histogram;
  turnTokenUsage: Histogram;
  genAiTokenUsage: Histogram;
  genAiOperationDuration: Histogram;
  genAiTimeToFirstChunk: Histogram;
  genAiInvokeAgentDuration: Histogram;
  genAiExecuteToolDuration: Histogram;
}

export function createInstruments(meter: Meter): Instruments {
  const ms = (name: string, bounds = CODEX_MS_BOUNDS) =>
    meter.createHistogram(name, { unit: "ms", advice: { explicitBucketBoundaries: bounds } });
  const seconds = (name: string) =>
    meter.createHistogram(name, { unit: "s", advice: { explicitBucketBoundaries: SECONDS_BOUNDS } });
  const count = (name: string) => meter.createCounter(name);
  return {
    threadStarted: count("codex.thread.started"),
    apiRequest: count("codex.api_request"),
    apiRequestDuration: ms("codex.api_request.duration_ms"),
    sseEvent: count("codex.sse_event"),
    sseEventDuration: ms("codex.sse_event.duration_ms"),
    toolCall: count("codex.tool.call"),
    toolCallDuration: ms("codex.tool.call.duration_ms"),
    mcpCall: count("codex.mcp.call"),
    mcpCallDuration: ms("codex.mcp.call.duration_ms"),
    mcpCallError: count("codex.mcp.call.error"),
    hooksRun: count("codex.hooks.run"),
    hooksRunDuration: ms("codex.hooks.run.duration_ms"),
    turnE2e: ms("codex.turn.e2e_duration_ms", E2E_MS_BOUNDS),
    turnTtft: ms("codex.turn.ttft.duration_ms"),
    turnTtfm: ms("codex.turn.ttfm.duration_ms"),
    turnToolCalls: meter.createHistogram("codex.turn.tool.call", {
      advice: { explicitBucketBoundaries: [0, 1, 2, 5, 10, 20, 50, 100] },
    }),
    turnTokenUsage: meter.createHistogram("codex.turn.token_usage", {
      advice: { explicitBucketBoundaries: TOKEN_BOUNDS },
    }),
    genAiTokenUsage: meter.createHistogram("gen_ai.client.token.usage", {
      unit: "{token}",
      advice: { explicitBucketBoundaries: TOKEN_BOUNDS },
    }),
    genAiOperationDuration: seconds("gen_ai.client.operation.duration"),
    genAiTimeToFirstChunk: seconds("gen_ai.client.operation.time_to_first_chunk"),
    genAiInvokeAgentDuration: seconds("gen_ai.invoke_agent.duration"),
    genAiExecuteToolDuration: seconds("gen_ai.execute_tool.duration"),
  };
}
