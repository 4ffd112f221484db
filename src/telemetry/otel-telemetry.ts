/**
 * The `Telemetry` hooks over OpenTelemetry: each turn an `invoke_agent` span, each model request
 * a `chat` span, each tool call an `execute_tool` span (GenAI conventions), with Codex's
 * `codex.*` events (log records and span events) and metrics recorded along the way.
 */
import type * as Api from "@opentelemetry/api";
import type { Context, Attributes as OtelAttributes, Span, Tracer } from "@opentelemetry/api";
import type { OtelSettings } from "../config/otel.js";
import type { TokenUsage } from "../protocol/items.js";
import type {
  HookRunInfo,
  ModelRequestInfo,
  ModelRequestTelemetry,
  Telemetry,
  ThreadStartInfo,
  ToolCallInfo,
  ToolTelemetry,
  TraceCarrier,
  TurnEndInfo,
  TurnStartInfo,
  TurnTelemetry,
} from "../protocol/telemetry.js";
import { VERSION } from "../version.js";
import type { Instruments } from "./instruments.js";
import { type Attributes, capBytes, clean, type EventSink } from "./records.js";
import { carrierOf, parseTraceparent } from "./trace-context.js";

/** What the hooks record with; built by `startOtelTelemetry`. */
export interface OtelParts {
  api: typeof Api;
  tracer: Tracer;
  events: EventSink;
  instruments: Instruments;
  settings: OtelSettings;
  serviceName: string;
  sessionSource: string;
  /** `ApiKey` (a provider key from env or config) or `None`. */
  authMode: string;
  terminalType: string;
  flush(): Promise<void>;
  shutdown(): Promise<void>;
}

/** Who a record or metric is about. */
interface Subject {
  threadId: string;
  model: string;
  originator: string;
}

/** SSE kinds that say the stream opened, not that the model answered (not a first chunk). */
const PREAMBLE_KINDS = new Set(["response.created", "response.in_progress"]);

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

function commonRecord(parts: OtelParts, subject: Subject): Attributes {
  return {
    "conversation.id": subject.threadId,
    "app.version": VERSION,
    auth_mode: parts.authMode,
    originator: subject.originator,
    "terminal.type": parts.terminalType,
    model: subject.model,
    slug: subject.model,
  };
}

function commonTags(parts: OtelParts, subject: Partial<Subject> | undefined): OtelAttributes {
  return clean({
    "app.version": VERSION,
    auth_mode: parts.authMode,
    model: subject?.model,
    originator: subject?.originator,
    session_source: parts.sessionSource,
    service_name: parts.serviceName,
  });
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

/** `gen_ai.provider.name` for a provider id: the semconv names where one exists. */
export function genAiProvider(provider: string): string {
  if (provider === "azure") return "azure.ai.openai";
  return provider;
}

function spanCarrier(span: Span): TraceCarrier {
  const context = span.spanContext();
  return carrierOf(
    context.traceId,
    context.spanId,
    context.traceFlags,
    context.traceState?.serialize() ?? "",
  );
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

interface TurnState {
  parts: OtelParts;
  info: TurnStartInfo;
  span: Span;
  context: Context;
  common: Attributes;
  tags: OtelAttributes;
  onChunk(kind: string): void;
  onToolCall(): void;
}

function usageAttributes(usage: TokenUsage): Attributes {
  return {
    "gen_ai.usage.input_tokens": usage.input_tokens,
    "gen_ai.usage.output_tokens": usage.output_tokens,
    "gen_ai.usage.cache_read.input_tokens": usage.cached_input_tokens,
    "gen_ai.usage.reasoning.output_tokens": usage.reasoning_output_tokens,
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

function serverOf(url: string): { address?: string; port?: number; path: string } {
  try {
    const parsed = new URL(url);
    const port = parsed.port ? Number(parsed.port) : parsed.protocol === "https:" ? 443 : 80;
    return { address: parsed.hostname, port, path: parsed.pathname };
  } catch {
    return { path: url };
  }
}

function modelRequest(turn: TurnState, request: ModelRequestInfo): ModelRequestTelemetry {
  const { parts } = turn;
  const { api, settings, instruments } = parts;
  const started = performance.now();
  const server = serverOf(request.url);
  const provider = genAiProvider(request.provider);
  const semconv = clean({
    "gen_ai.operation.name": "chat",
    "gen_ai.provider.name": provider,
    "gen_ai.request.model": request.model,
    "server.address": server.address,
    "server.port": server.port,
  });
  const span = parts.tracer.startSpan(
    `chat ${request.model}`,
    { kind: api.SpanKind.CLIENT, attributes: { ...settings.spanAttributes, ...semconv } },
    turn.context,
  );
  const common = turn.common;
  const tags = turn.tags;
  let firstChunkSeen = false;
  let ended = false;
  const finish = (extra: OtelAttributes) => {
    ended = true;
    instruments.genAiOperationDuration.record((performance.now() - started) / 1000, { ...semconv, ...extra });
    span.end();
  };
  return {
    headers() {
      const carrier = spanCarrier(span);
      return carrier.tracestate
        ? { traceparent: carrier.traceparent, tracestate: carrier.tracestate }
        : { traceparent: carrier.traceparent };
    },
    attempt(attempt) {
      const ok = attempt.status !== undefined && attempt.status < 400 && !attempt.error;
      parts.events.emit(
        "codex.api_request",
        common,
        {
          duration_ms: Math.round(attempt.durationMs),
          "http.response.status_code": attempt.status,
          attempt: attempt.attempt,
          endpoint: server.path,
          "error.message": attempt.error,
        },
        span,
      );
      const attemptTags = { ...tags, status: String(attempt.status ?? "none"), success: String(ok) };
      instruments.apiRequest.add(1, attemptTags);
      instruments.apiRequestDuration.record(attempt.durationMs, attemptTags);
    },
    sseEvent(kind, durationMs) {
      if (!firstChunkSeen && !PREAMBLE_KINDS.has(kind)) {
        firstChunkSeen = true;
        instruments.genAiTimeToFirstChunk.record((performance.now() - started) / 1000, semconv);
      }
      turn.onChunk(kind);
      const eventTags = { ...tags, kind, success: "true" };
      instruments.sseEvent.add(1, eventTags);
      instruments.sseEventDuration.record(durationMs, eventTags);
      if (kind.endsWith(".delta") && !settings.logSseDeltas) return;
      parts.events.emit(
        "codex.sse_event",
        common,
        { "event.kind": kind, duration_ms: Math.round(durationMs) },
        span,
      );
    },
    completed({ responseId, model, usage }) {
      if (ended) return;
      const responseModel = model ?? request.model;
      span.setAttributes({ "gen_ai.response.id": responseId, "gen_ai.response.model": responseModel });
      if (usage) {
        span.setAttributes(clean(usageAttributes(usage)));
        parts.events.emit(
          "codex.sse_event",
          common,
          {
            "event.kind": "response.completed",
            input_token_count: usage.input_tokens,
            output_token_count: usage.output_tokens,
            cached_token_count: usage.cached_input_tokens,
            reasoning_token_count: usage.reasoning_output_tokens,
            tool_token_count: usage.total_tokens,
          },
          span,
        );
        const tokenTags = { ...semconv, "gen_ai.response.model": responseModel };
        instruments.genAiTokenUsage.record(usage.input_tokens, {
          ...tokenTags,
          "gen_ai.token.type": "input",
        });
        instruments.genAiTokenUsage.record(usage.output_tokens, {
          ...tokenTags,
          "gen_ai.token.type": "output",
        });
      }
      finish({ "gen_ai.response.model": responseModel });
    },
    failed({ type, message }) {
      if (ended) return;
      const errorType = type || "_OTHER";
      span.setAttribute("error.type", errorType);
      span.setStatus({ code: api.SpanStatusCode.ERROR, message });
      finish({ "error.type": errorType });
    },
  };
}

/** Lines in `text`, a last line without its newline included. */
function lineCount(text: string): number {
  if (text === "") return 0;
  const newlines = text.split("\n").length - 1;
  return text.endsWith("\n") ? newlines : newlines + 1;
}

function toolCall(turn: TurnState, call: ToolCallInfo): ToolTelemetry {
  const { parts } = turn;
  const { api, settings, instruments } = parts;
  const started = performance.now();
  const toolType = call.origin === "mcp" ? "extension" : "function";
  const maxBytes = settings.toolResultMaxBytes;
  const span = parts.tracer.startSpan(
    `execute_tool ${call.name}`,
    {
      kind: api.SpanKind.INTERNAL,
      attributes: clean({
        ...settings.spanAttributes,
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": call.name,
        "gen_ai.tool.call.id": call.callId,
        "gen_ai.tool.type": toolType,
        tool_origin: call.origin,
        mcp_server: call.mcpServer,
        "gen_ai.tool.call.arguments":
          maxBytes === undefined ? undefined : capBytes(call.arguments, maxBytes).text,
      }),
    },
    turn.context,
  );
  turn.onToolCall();
  let decided = false;
  let ended = false;
  return {
    carrier: () => spanCarrier(span),
    decision(decision, source) {
      if (decided) return;
      decided = true;
      parts.events.emit(
        "codex.tool_decision",
        turn.common,
        { tool_name: call.name, call_id: call.callId, decision, source },
        span,
      );
    },
    end({ success, output }) {
      if (ended) return;
      ended = true;
      const elapsed = performance.now() - started;
      const content: Attributes = {};
      if (maxBytes !== undefined) {
        const args = capBytes(call.arguments, maxBytes);
        const out = capBytes(output, maxBytes);
        Object.assign(content, {
          arguments: args.text,
          output: out.text,
          output_truncated: args.truncated || out.truncated,
        });
        span.setAttribute("gen_ai.tool.call.result", out.text);
      }
      parts.events.emit(
        "codex.tool_result",
        turn.common,
        {
          tool_name: call.name,
          call_id: call.callId,
          duration_ms: Math.round(elapsed),
          success,
          tool_origin: call.origin,
          mcp_server: call.mcpServer ?? "",
          output_length: output.length,
          output_line_count: lineCount(output),
          ...content,
        },
        span,
      );
      const tags = { ...turn.tags, tool: call.name, success: String(success) };
      instruments.toolCall.add(1, tags);
      instruments.toolCallDuration.record(elapsed, tags);
      if (call.origin === "mcp") {
        const mcpTags = { ...tags, server: call.mcpServer ?? "" };
        instruments.mcpCall.add(1, mcpTags);
        instruments.mcpCallDuration.record(elapsed, mcpTags);
        if (!success)
          instruments.mcpCallError.add(1, { ...turn.tags, tool: call.name, server: call.mcpServer ?? "" });
      }
      instruments.genAiExecuteToolDuration.record(
        elapsed / 1000,
        clean({
          "gen_ai.operation.name": "execute_tool",
          "gen_ai.tool.name": call.name,
          "gen_ai.tool.type": toolType,
          "error.type": success ? undefined : "_OTHER",
        }),
      );
      if (!success) {
        span.setAttribute("error.type", "_OTHER");
        span.setStatus({ code: api.SpanStatusCode.ERROR });
      }
      span.end();
    },
  };
}
