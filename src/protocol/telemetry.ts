/**
 * What the core tells telemetry, and nothing of how it is exported. The core calls these hooks
 * at the points a turn passes (thread start, turn, model request, SSE event, tool call and its
 * decision, hook run); `src/telemetry/` implements them with OpenTelemetry and is loaded only when
 * `[otel]` asks for it. Until then every hook is the no-op below, so a run without `[otel]` loads
 * no OpenTelemetry code and pays one property read per hook.
 *
 * Handles carry the trace: a turn's handle opens its model requests and tool calls as children,
 * and hands out a W3C carrier for what runs elsewhere (a sub-agent's turn, an outgoing request).
 */
import type { TokenUsage } from "./items.js";

/** W3C trace context, as a caller sent it (app-server `trace`, HTTP `traceparent`, MCP `_meta`). */
export interface TraceCarrier {
  traceparent: string;
  tracestate?: string | undefined;
}

/** A thread began (Codex's `codex.conversation_starts`, metric `codex.thread.started`). */
export interface ThreadStartInfo {
  threadId: string;
  model: string;
  /** The provider's id (config `model_provider`), e.g. `openai`. */
  provider: string;
  reasoningEffort?: string | undefined;
  reasoningSummary?: string | undefined;
  contextWindow: number | null;
  autoCompactTokenLimit?: number | undefined;
  approvalPolicy: string;
  /** The sandbox as a mode name (`read-only`, `workspace-write`, `danger-full-access`). */
  sandboxPolicy: string;
  /** The permission profile in force, when one is (`:workspace`, a named profile). */
  activeProfile?: string | undefined;
  mcpServers: readonly string[];
  /** Who drives the agent: `codex_exec`-style originator (exec, mcp-server, the client's name). */
  originator: string;
  /** The spawning thread, when this is a sub-agent's. */
  parentThreadId?: string | undefined;
}

/** A turn began: an `invoke_agent` span, `codex.user_prompt`, the turn metrics. */
export interface TurnStartInfo {
  threadId: string;
  turnId: string;
  model: string;
  provider: string;
  originator: string;
  /** `gen_ai.agent.name`: "tscodex" for a top thread, the role or nickname of a sub-agent. */
  agentName: string;
  /** The user's text for this turn ("" for a continued or compaction turn); redacted unless opted in. */
  prompt: string;
  /** Images given with the prompt. */
  imageCount: number;
  /** The caller's trace (the turn's spans join it); absent: the turn starts a trace. */
  parent?: TraceCarrier | undefined;
}

/** How a turn ended. */
export interface TurnEndInfo {
  status: "completed" | "interrupted" | "failed" | "parked";
  usage: TokenUsage;
  /** The failure message (status "failed"). */
  error?: string | undefined;
  /** The final agent message, exported only with `log_agent_responses`. */
  lastAgentMessage?: string | null | undefined;
}

/** One model request (a `chat {model}` CLIENT span), retries and reconnects included. */
export interface ModelRequestInfo {
  model: string;
  provider: string;
  wireApi: "responses" | "chat";
  /** The full URL posted to (server.address / server.port come from it; `endpoint` is its path). */
  url: string;
}

/** One HTTP attempt of a model request (`codex.api_request`). */
export interface ApiAttemptInfo {
  /** 0 for the first attempt. */
  attempt: number;
  /** The HTTP status; absent when no answer came (connection refused, timeout). */
  status?: number | undefined;
  durationMs: number;
  /** The failure, for a non-2xx or a transport error. */
  error?: string | undefined;
}

export interface ModelRequestTelemetry {
  /** Headers that carry this request's trace to the provider (`traceparent`, `tracestate`). */
  headers(): Record<string, string>;
  /** An HTTP attempt ended (its status is known, or it failed). */
  attempt(info: ApiAttemptInfo): void;
  /**
   * One SSE event of the stream, by its wire type (`response.output_text.delta`, or `chat.chunk`
   * on the chat wire); `durationMs` since the previous event. The first marks time to first chunk.
   */
  sseEvent(kind: string, durationMs: number): void;
  /** The response completed: its id, the model that answered, usage. Ends the span. */
  completed(info: { responseId: string; model?: string | undefined; usage: TokenUsage | null }): void;
  /** The request failed for good (`error.type`: an error code or class, `_OTHER` when none). Ends the span. */
  failed(info: { type: string; message: string }): void;
}

/** Where a tool comes from (`tool_origin`; `gen_ai.tool.type`: function, or extension for MCP). */
export type ToolOrigin = "builtin" | "mcp" | "client";

export interface ToolCallInfo {
  /** The name the model called (`exec_command`, `mcp__docs__search`). */
  name: string;
  callId: string;
  origin: ToolOrigin;
  /** The MCP server (origin "mcp"). */
  mcpServer?: string | undefined;
  /** The raw arguments (JSON text, or a freeform tool's input); exported only with opt-in. */
  arguments: string;
}

/** Codex's `codex.tool_decision` values. */
export type ToolDecisionSource = "Config" | "User" | "Hook";

export interface ToolTelemetry {
  /** Context for work this call starts elsewhere (a sub-agent's turn). */
  carrier(): TraceCarrier | null;
  /** Whether the call may run, and who decided (`codex.tool_decision`). At most once per call. */
  decision(
    decision: "approved" | "approved_for_session" | "denied" | "abort",
    source: ToolDecisionSource,
  ): void;
  /** The call ended: `output` is what the model sees (`codex.tool_result`, metrics). Ends the span. */
  end(info: { success: boolean; output: string }): void;
}

/** A hook handler ran (`codex.hooks.run`). */
export interface HookRunInfo {
  /** Codex's event name: `PreToolUse`, `Stop`, ... */
  event: string;
  /** The handler (its command or callback name). */
  handler: string;
  durationMs: number;
  /** What it decided: `allow`, `deny`, `block`, `error`, `none`... */
  outcome: string;
}

export interface TurnTelemetry {
  /** The turn span's context, for a sub-agent's turn started from it. */
  carrier(): TraceCarrier | null;
  modelRequest(info: ModelRequestInfo): ModelRequestTelemetry;
  toolCall(info: ToolCallInfo): ToolTelemetry;
  hookRun(info: HookRunInfo): void;
  /** Ends the turn span and records the turn metrics. Called once. */
  end(info: TurnEndInfo): void;
}

export interface Telemetry {
  /** False for the no-op: callers may skip building what only telemetry reads. */
  readonly enabled: boolean;
  threadStarted(info: ThreadStartInfo): void;
  startTurn(info: TurnStartInfo): TurnTelemetry;
  /** A hook outside any turn (SessionStart). */
  hookRun(info: HookRunInfo): void;
  /** Export what is buffered now (bounded); servers call it on their own schedule, if ever. */
  flush(): Promise<void>;
  /** Flush and stop, within a bounded time (an unreachable collector never holds the exit). */
  shutdown(): Promise<void>;
}

const noopRequest: ModelRequestTelemetry = {
  headers: () => ({}),
  attempt: () => {},
  sseEvent: () => {},
  completed: () => {},
  failed: () => {},
};
const noopTool: ToolTelemetry = { carrier: () => null, decision: () => {}, end: () => {} };
const noopTurn: TurnTelemetry = {
  carrier: () => null,
  modelRequest: () => noopRequest,
  toolCall: () => noopTool,
  hookRun: () => {},
  end: () => {},
};

export const NOOP_TELEMETRY: Telemetry = {
  enabled: false,
  threadStarted: () => {},
  startTurn: () => noopTurn,
  hookRun: () => {},
  flush: async () => {},
  shutdown: async () => {},
};

/**
 * The process's telemetry. One per process, as OpenTelemetry's own providers are: a front-end
 * installs it at start-up when `[otel]` is configured, and every thread reports to it.
 */
let installed: Telemetry = NOOP_TELEMETRY;

export function telemetry(): Telemetry {
  return installed;
}

export function installTelemetry(value: Telemetry): void {
  installed = value;
}
