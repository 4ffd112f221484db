/**
 * The `Telemetry` hooks over OpenTelemetry: each turn an `invoke_agent` span, each model request
 * a `chat` span, each tool call an `execute_tool` span (GenAI conventions), with Codex's
 * `codex.*` events (log records and span events) and metrics recorded along the way.
 */
import type * as Api from "@opentelemetry/api";
import type { Context, Span } from "@opentelemetry/api";
import type {
  HookRunInfo,
  Telemetry,
  ThreadStartInfo,
  TraceCarrier,
  TurnEndInfo,
  TurnStartInfo,
  TurnTelemetry,
} from "../protocol/telemetry.js";
import {
  commonRecord,
  commonTags,
  genAiProvider,
  type OtelParts,
  PREAMBLE_KINDS,
  type Subject,
  spanCarrier,
  type TurnState,
  usageAttributes,
} from "./hook-parts.js";
import { modelRequest } from "./model-request.js";
import { clean } from "./records.js";
import { toolCall } from "./tool-call.js";
import { parseTraceparent } from "./trace-context.js";

export type { OtelParts } from "./hook-parts.js";
export { genAiProvider } from "./hook-parts.js";

export function otelTelemetry(parts: OtelParts): Telemetry {
  return {
    enabled: true,
    threadStarted: (info) => threadStarted(parts, info),
    startTurn: (info) => startTurn(parts, info),
    hookRun: (info) => recordHook(parts, info, undefined, undefined),
    flush: () => parts.flush(),
    shutdown: () => parts.shutdown(),
  };
}

function threadStarted(parts: OtelParts, info: ThreadStartInfo): void {
  parts.events.emit("codex.conversation_starts", commonRecord(parts, info), {
    provider_name: info.provider,
    reasoning_effort: info.reasoningEffort,
    reasoning_summary: info.reasoningSummary,
    context_window: info.contextWindow ?? undefined,
    auto_compact_token_limit: info.autoCompactTokenLimit,
    approval_policy: info.approvalPolicy,
    sandbox_policy: info.sandboxPolicy,
    mcp_servers: info.mcpServers.join(","),
    active_profile: info.activeProfile,
  });
  parts.instruments.threadStarted.add(1, commonTags(parts, info));
}

/** The context a turn starts in: the caller's trace when it sent a valid carrier. */
function parentContext(api: typeof Api, parent: TraceCarrier | undefined): Context {
  const parsed = parent ? parseTraceparent(parent.traceparent) : null;
  if (!parent || !parsed) return api.ROOT_CONTEXT;
  return api.trace.setSpanContext(api.ROOT_CONTEXT, {
    ...parsed,
    isRemote: true,
    ...(parent.tracestate ? { traceState: api.createTraceState(parent.tracestate) } : {}),
  });
}

function startTurn(parts: OtelParts, info: TurnStartInfo): TurnTelemetry {
  const { api, settings, instruments } = parts;
  const started = performance.now();
  const span = parts.tracer.startSpan(
    `invoke_agent ${info.agentName}`,
    {
      kind: api.SpanKind.INTERNAL,
      attributes: clean({
        ...settings.spanAttributes,
        "gen_ai.operation.name": "invoke_agent",
        "gen_ai.agent.name": info.agentName,
        "gen_ai.agent.id": info.threadId,
        "gen_ai.conversation.id": info.threadId,
        "gen_ai.provider.name": genAiProvider(info.provider),
        "gen_ai.request.model": info.model,
        "conversation.id": info.threadId,
        "turn.id": info.turnId,
        "gen_ai.input.messages":
          settings.logUserPrompt && info.prompt
            ? JSON.stringify([{ role: "user", parts: [{ type: "text", content: info.prompt }] }])
            : undefined,
      }),
    },
    parentContext(api, info.parent),
  );
  const context = api.trace.setSpan(api.ROOT_CONTEXT, span);
  const common = commonRecord(parts, info);
  const tags = commonTags(parts, info);
  parts.events.emit(
    "codex.user_prompt",
    common,
    {
      prompt_length: info.prompt.length,
      prompt: settings.logUserPrompt ? info.prompt : "[REDACTED]",
      image_count: info.imageCount,
    },
    span,
  );
  let firstChunkSeen = false;
  let firstMessageSeen = false;
  let toolCalls = 0;
  let ended = false;
  const turn: TurnState = {
    parts,
    info,
    span,
    context,
    common,
    tags,
    onChunk(kind) {
      const elapsed = performance.now() - started;
      if (!firstChunkSeen && !PREAMBLE_KINDS.has(kind)) {
        firstChunkSeen = true;
        parts.events.emit("codex.turn_ttft", common, { duration_ms: Math.round(elapsed) }, span);
        instruments.turnTtft.record(elapsed, tags);
      }
      if (!firstMessageSeen && kind === "response.output_text.delta") {
        firstMessageSeen = true;
        instruments.turnTtfm.record(elapsed, tags);
      }
    },
    onToolCall() {
      toolCalls++;
    },
  };
  return {
    carrier: () => spanCarrier(span),
    modelRequest: (request) => modelRequest(turn, request),
    toolCall: (call) => toolCall(turn, call),
    hookRun: (hook) => recordHook(parts, hook, span, info),
    end(end) {
      if (ended) return;
      ended = true;
      endTurn(turn, end, performance.now() - started, toolCalls);
    },
  };
}

function endTurn(turn: TurnState, end: TurnEndInfo, elapsedMs: number, toolCalls: number): void {
  const { parts, span, tags } = turn;
  const { api, settings, instruments } = parts;
  const failed = end.status === "failed";
  span.setAttributes(clean({ ...usageAttributes(end.usage), "tscodex.turn.status": end.status }));
  if (failed) {
    span.setAttribute("error.type", "_OTHER");
    span.setStatus({ code: api.SpanStatusCode.ERROR, ...(end.error ? { message: end.error } : {}) });
  }
  if (settings.logAgentResponses && end.lastAgentMessage) {
    span.setAttribute(
      "gen_ai.output.messages",
      JSON.stringify([{ role: "assistant", parts: [{ type: "text", content: end.lastAgentMessage }] }]),
    );
    parts.events.emit("codex.agent_response", turn.common, { message: end.lastAgentMessage }, span);
  }
  instruments.turnE2e.record(elapsedMs, tags);
  instruments.turnToolCalls.record(toolCalls, tags);
  const usage = end.usage;
  const byType: [string, number][] = [
    ["input", usage.input_tokens],
    ["cached_input", usage.cached_input_tokens],
    ["non_cached_input", Math.max(0, usage.input_tokens - usage.cached_input_tokens)],
    ["output", usage.output_tokens],
    ["reasoning_output", usage.reasoning_output_tokens],
    ["total", usage.total_tokens],
  ];
  for (const [type, value] of byType) instruments.turnTokenUsage.record(value, { ...tags, token_type: type });
  instruments.genAiInvokeAgentDuration.record(
    elapsedMs / 1000,
    clean({
      "gen_ai.operation.name": "invoke_agent",
      "gen_ai.provider.name": genAiProvider(turn.info.provider),
      "gen_ai.request.model": turn.info.model,
      "gen_ai.agent.name": turn.info.agentName,
      "error.type": failed ? "_OTHER" : undefined,
    }),
  );
  span.end();
}

function recordHook(
  parts: OtelParts,
  hook: HookRunInfo,
  span: Span | undefined,
  subject: Subject | undefined,
): void {
  const tags = { ...commonTags(parts, subject), hook_event: hook.event, outcome: hook.outcome };
  parts.instruments.hooksRun.add(1, tags);
  parts.instruments.hooksRunDuration.record(hook.durationMs, tags);
  span?.addEvent("codex.hook_run", {
    hook_event: hook.event,
    handler: hook.handler,
    duration_ms: Math.round(hook.durationMs),
    outcome: hook.outcome,
  });
}
