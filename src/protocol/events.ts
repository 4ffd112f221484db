/**
 * Events a Thread emits: one stream that every front-end translates (exec JSONL, MCP
 * progress, app-server notifications, SSE). Names follow Codex's EventMsg `type`s.
 * Contract: events of one turn arrive in order; `turn_complete` or `turn_aborted` or
 * `turn_failed` ends every turn that `turn_started` began.
 */
import type { AgentStatus, UserQuestion } from "./agents.js";
import type { ReviewedAction, ReviewOutcome } from "./auto-review.js";
import type { ClientToolResult, ClientToolSpec } from "./client-tools.js";
import type { ResponseItem, TokenUsage } from "./items.js";

export type PlanStatus = "pending" | "in_progress" | "completed";
export interface PlanItem {
  step: string;
  status: PlanStatus;
}

export type FileChange =
  | { type: "add"; content: string }
  | { type: "delete"; content: string }
  | { type: "update"; unified_diff: string; move_path?: string | null };

export type ExecStream = "stdout" | "stderr";

export type McpStartupStatus =
  | { state: "starting" }
  | { state: "ready" }
  | { state: "failed"; error: string }
  | { state: "cancelled" };

/** Which MCP tool a call went to, with its arguments as parsed JSON (null when there were none). */
/** An MCP server's `elicitation/create`: a form to fill, or a URL to open (MCP 2025-11-25). */
export type ElicitationRequest =
  | { mode: "form"; message: string; requestedSchema: Record<string, unknown> }
  | { mode: "url"; message: string; url: string; elicitationId: string };

/** The answer to an elicitation, as MCP's ElicitResult: accept (with the form's content), decline, cancel. */
export interface ElicitationResult {
  action: "accept" | "decline" | "cancel";
  content?: Record<string, unknown>;
}

export interface McpInvocation {
  server: string;
  tool: string;
  arguments: unknown;
}

/** A tools/call result as the server sent it (content blocks are passed through). */
export interface McpToolResult {
  content: Record<string, unknown>[];
  structuredContent?: Record<string, unknown> | null | undefined;
  isError?: boolean | null | undefined;
}

/** How a hook run ended (Codex's HookRunStatus; `running` while it runs). */
export type HookRunStatus = "running" | "completed" | "failed" | "blocked" | "stopped";

/** What a hook run said, by kind (Codex's HookOutputEntry). */
export interface HookOutputEntry {
  kind: "warning" | "stop" | "feedback" | "context" | "error";
  text: string;
}

/** One run of a hook, as Codex's HookRunSummary (snake_case here, camelCase on the app-server wire). */
export interface HookRunSummary {
  /** `<event label>:<display order>:<source path>`, e.g. `stop:2:/home/me/.codex/hooks.json`. */
  id: string;
  /** Codex's event name (`PreToolUse`). */
  event_name: string;
  /** `command`: a configured command; `callback`: a library callback (in process). */
  handler_type: "command" | "callback";
  execution_mode: "sync";
  /** `thread` for SessionStart / SubagentStart, `turn` for the rest. */
  scope: "thread" | "turn";
  /** The file a command came from; `callback:<function name>` for a callback. */
  source_path: string;
  /**
   * The config layer a command came from; `sessionFlags` for a callback (given with the
   * thread's options, as Codex names hooks given for one session).
   */
  source: "user" | "project" | "sessionFlags";
  display_order: number;
  status: HookRunStatus;
  status_message: string | null;
  /** Unix seconds. */
  started_at: number;
  completed_at: number | null;
  duration_ms: number | null;
  entries: HookOutputEntry[];
}

/** How a blocked request reached the managed proxy (Codex's NetworkApprovalProtocol). */
export type NetworkApprovalProtocol = "http" | "https" | "socks5Tcp" | "socks5Udp";

/** The host a network approval question is about. */
export interface NetworkApprovalContext {
  host: string;
  protocol: NetworkApprovalProtocol;
}

export interface SessionConfiguredEvent {
  type: "session_configured";
  session_id: string;
  model: string;
  model_provider_id: string;
  cwd: string;
  approval_policy: string;
  sandbox_mode: string;
}

export type Event =
  | SessionConfiguredEvent
  | { type: "turn_started"; turn_id: string; model_context_window: number | null }
  | { type: "turn_complete"; turn_id: string; last_agent_message: string | null; usage: TokenUsage }
  | { type: "turn_aborted"; turn_id: string; reason: "interrupted" | "replaced" }
  | { type: "turn_failed"; turn_id: string; message: string }
  | { type: "user_message"; message: string; images: string[] }
  | { type: "agent_message_delta"; delta: string }
  | { type: "agent_message"; message: string }
  /**
   * A piece of a reasoning summary (Codex's AgentReasoningDelta); `item_id`: the model's
   * reasoning item id, when known (it names the item a stream without summary parts opens).
   */
  | { type: "agent_reasoning_delta"; delta: string; item_id?: string }
  /** A piece of raw reasoning text (models that send their chain of thought). */
  | { type: "agent_reasoning_raw_content_delta"; delta: string; item_id?: string }
  /** A new reasoning summary part begins; `item_id` is the model's reasoning item id ("" if none). */
  | { type: "agent_reasoning_section_break"; item_id: string; summary_index: number }
  | { type: "agent_reasoning"; text: string }
  | {
      type: "exec_command_begin";
      call_id: string;
      turn_id: string;
      command: string[];
      cwd: string;
      /** Set when the user ran the command (a shell command op), not the model. */
      source?: "user_shell";
    }
  | { type: "exec_command_output_delta"; call_id: string; stream: ExecStream; chunk: Uint8Array }
  | {
      type: "exec_command_end";
      call_id: string;
      turn_id: string;
      command: string[];
      cwd: string;
      source?: "user_shell";
      exit_code: number;
      duration_ms: number;
      stdout: string;
      stderr: string;
      aggregated_output: string;
      formatted_output: string;
    }
  /**
   * An apply_patch call's input as it streams from the model: the changes its complete lines
   * describe so far (paths resolved against the turn's cwd). Sent only when they change; the
   * patch's real changes come with patch_apply_begin.
   */
  | { type: "patch_apply_updated"; call_id: string; turn_id: string; changes: Record<string, FileChange> }
  | {
      type: "patch_apply_begin";
      call_id: string;
      turn_id: string;
      auto_approved: boolean;
      changes: Record<string, FileChange>;
    }
  | {
      type: "patch_apply_end";
      call_id: string;
      turn_id: string;
      stdout: string;
      stderr: string;
      success: boolean;
      changes: Record<string, FileChange>;
    }
  | { type: "turn_diff"; unified_diff: string }
  | { type: "plan_update"; explanation: string | null; plan: PlanItem[] }
  | { type: "token_count"; last: TokenUsage | null; total: TokenUsage; model_context_window: number | null }
  | { type: "web_search_begin"; call_id: string }
  | {
      type: "web_search_end";
      call_id: string;
      query: string;
      /** What the provider did (`{type:"search", query}`, `open_page`…), when it said. */
      action?: { type: string; query?: string };
    }
  /** An MCP server's startup progressed (one per state change, per server). */
  | { type: "mcp_startup_update"; server: string; status: McpStartupStatus }
  /** Every configured MCP server is ready, failed or was cancelled; the thread goes on. */
  | {
      type: "mcp_startup_complete";
      ready: string[];
      failed: { server: string; error: string }[];
      cancelled: string[];
    }
  | { type: "mcp_tool_call_begin"; call_id: string; invocation: McpInvocation }
  /** The MCP server reported progress on the call (`notifications/progress`); never stored. */
  | { type: "mcp_tool_call_progress"; call_id: string; message: string }
  | {
      type: "mcp_tool_call_end";
      call_id: string;
      invocation: McpInvocation;
      duration_ms: number;
      /** Codex's Result: the tools/call result, or the error text for a call that got none. */
      result: { Ok: McpToolResult } | { Err: string };
    }
  | {
      type: "exec_approval_request";
      call_id: string;
      turn_id: string;
      command: string[];
      cwd: string;
      reason: string | null;
      /**
       * Set when the question is about an MCP tool call, not a command (ours: the same request
       * and answer, so every front-end that answers commands answers these; `command` then
       * reads `mcp SERVER TOOL ARGUMENTS`).
       */
      mcp_tool_call?: McpInvocation;
      /**
       * Set when the question is whether a running command may reach a host the managed proxy
       * blocked (Codex's NetworkApprovalContext): approved allows it for the turn,
       * approved_for_session for the thread.
       */
      network_approval_context?: NetworkApprovalContext;
      /** Set when a sub-agent asked (its thread id): the question was forwarded to its parent. */
      agent_id?: string;
    }
  | {
      type: "apply_patch_approval_request";
      call_id: string;
      turn_id: string;
      changes: Record<string, FileChange>;
      reason: string | null;
      grant_root: string | null;
      /** Set when a sub-agent asked (its thread id). */
      agent_id?: string;
    }
  /** The model called a client tool: the front-end answers with `respondToTool(call_id, result)`. */
  | { type: "client_tool_call_request"; call_id: string; turn_id: string; tool: string; arguments: unknown }
  | {
      type: "client_tool_call_end";
      call_id: string;
      turn_id: string;
      tool: string;
      arguments: unknown;
      result: ClientToolResult;
      duration_ms: number;
    }
  /**
   * The turn stopped on client tool calls (ThreadSettings.parkClientCalls): the calls are in
   * history without outputs; a `continue_turn` op resumes it (then `turn_continued`).
   */
  | { type: "turn_parked"; turn_id: string; call_ids: string[]; usage: TokenUsage }
  /** A parked turn resumed with the client's outputs; it ends as any turn does. */
  | { type: "turn_continued"; turn_id: string }
  /** The thread's client tools changed (thread start or a turn that brought its own set). */
  | { type: "client_tools_changed"; tools: ClientToolSpec[] }
  /** A sub-agent (child thread) was started by this thread's model. */
  | { type: "agent_spawned"; agent_id: string; agent_type: string | null; message: string; depth: number }
  /** A sub-agent's status changed (running again after send_input, interrupted, …). */
  | { type: "agent_status"; agent_id: string; status: AgentStatus }
  /** A sub-agent's turn ended; `status` is final for now (send_input starts it again). */
  | { type: "agent_finished"; agent_id: string; status: AgentStatus }
  /** One of a sub-agent's own events, for front-ends that show the child's progress. */
  | { type: "agent_event"; agent_id: string; event: Event }
  /**
   * An MCP server asks the user (`elicitation/create`) during one of its tool calls: answer with
   * `answerElicitation(id, …)`. `message` is the request's, as Codex's event has it.
   */
  | {
      type: "elicitation_request";
      id: string;
      turn_id: string;
      server_name: string;
      message: string;
      request: ElicitationRequest;
    }
  /** The model asks the user (`request_user_input`): answer with `answerUserInput(call_id, …)`. */
  | {
      type: "request_user_input";
      call_id: string;
      turn_id: string;
      questions: UserQuestion[];
      /** Set when a sub-agent asked (its thread id). */
      agent_id?: string;
    }
  /** The reviewer (approvals_reviewer = "auto_review") judges what would have asked a person. */
  | {
      type: "auto_review_started";
      review_id: string;
      turn_id: string;
      /** The call the question is about (the item it would start). */
      call_id: string;
      action: ReviewedAction;
    }
  | {
      type: "auto_review_completed";
      review_id: string;
      turn_id: string;
      call_id: string;
      action: ReviewedAction;
      outcome: ReviewOutcome;
    }
  /** A configured hook started (not persisted: Codex keeps hook runs out of rollouts too). */
  | { type: "hook_started"; turn_id: string | null; run: HookRunSummary }
  /** That hook finished: its status and what it said. */
  | { type: "hook_completed"; turn_id: string | null; run: HookRunSummary }
  /** A model stream failed and is being retried. */
  | { type: "stream_error"; message: string; attempt: number; max_attempts: number; delay_ms: number }
  | { type: "error"; message: string }
  | { type: "warning"; message: string }
  /** Every item appended to history, for rollouts and raw-event consumers. */
  | { type: "raw_response_item"; item: ResponseItem }
  /** A compaction began: the model is summarising the history. */
  | { type: "context_compaction_started" }
  /** History was summarised and replaced (auto-compaction or a `compact` op). */
  | { type: "context_compacted"; summary: string; replacement_history: ResponseItem[] }
  /** A review turn began (Codex's EnteredReviewMode): `review` names what is reviewed. */
  | { type: "entered_review_mode"; turn_id: string; review: string }
  /** A review turn's verdict, as readable text (Codex's ExitedReviewMode, rendered). */
  | { type: "exited_review_mode"; turn_id: string; review: string }
  | { type: "shutdown_complete" };

export type EventType = Event["type"];
export type EventOf<T extends EventType> = Extract<Event, { type: T }>;

/** A question the thread waits on: answer with an exec_approval / patch_approval op (id = call_id). */
export type ApprovalRequestEvent = EventOf<"exec_approval_request"> | EventOf<"apply_patch_approval_request">;

export type ReviewDecision = "approved" | "approved_for_session" | "denied" | "abort";
