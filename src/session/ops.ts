/** What goes into a Thread (ops) and what a turn comes back as (TurnResult). */
import type { UserInputReply } from "../protocol/agents.js";
import type { ClientToolResult, ClientToolSpec } from "../protocol/client-tools.js";
import type { ElicitationResult, ReviewDecision } from "../protocol/events.js";
import type { ResponseItem, TokenUsage, ToolCallItem } from "../protocol/items.js";
import type { TurnOverrides, UserInput } from "./settings.js";

export type Op =
  /** `review`: a review turn (review mode): `hint` names what is reviewed (see review.ts). */
  | {
      type: "user_turn";
      turnId: string;
      input: UserInput;
      overrides?: TurnOverrides;
      review?: { hint: string };
    }
  /**
   * Continue the parked turn with the client's outputs (function_call_output items for its
   * pending calls; a pending call left without one gets a failed output).
   */
  | { type: "continue_turn"; turnId: string; outputs: ResponseItem[]; overrides?: TurnOverrides }
  | { type: "interrupt" }
  /** A shell command the user runs as a turn of its own (user-shell.ts). */
  | {
      type: "user_shell";
      turnId: string;
      command: string;
      timeoutMs?: number | undefined;
      overrides?: undefined;
    }
  /**
   * The answer to an exec_approval_request / apply_patch_approval_request (id = its call_id;
   * `agent_id`: the sub-agent that asked, when the question carried one).
   */
  | { type: "exec_approval"; id: string; decision: ReviewDecision; agent_id?: string | undefined }
  | { type: "patch_approval"; id: string; decision: ReviewDecision; agent_id?: string | undefined }
  /** The answer to a request_user_input question (id = its call_id); null: nobody can answer. */
  | { type: "user_input_answer"; id: string; response: UserInputReply; agent_id?: string | undefined }
  /** The answer to an elicitation_request (id = its id). */
  | { type: "elicitation_answer"; id: string; result: ElicitationResult }
  /** The client's answer to a client_tool_call_request (id = its call_id). */
  | { type: "client_tool_response"; id: string; result: ClientToolResult }
  | { type: "shutdown" }
  /**
   * Summarise the history now and continue from the summary (as auto-compaction does); with
   * `turnId`, as a turn of its own (Codex's manual compaction).
   */
  | { type: "compact"; turnId?: string };

/** "parked": stopped on client tool calls (ThreadSettings.parkClientCalls); continue it later. */
export type TurnStatus = "completed" | "interrupted" | "failed" | "parked";

export interface TurnResult {
  turnId: string;
  status: TurnStatus;
  finalResponse: string | null;
  /** Items this turn added to history (the user message included). */
  items: ResponseItem[];
  usage: TokenUsage;
  error: string | null;
  /** status "parked": the client calls waiting for outputs (empty otherwise). */
  pendingCalls: ToolCallItem[];
}

/** A turn stopped on client tool calls: its history is recorded, these calls lack outputs. */
export interface ParkedTurn {
  turnId: string;
  calls: ToolCallItem[];
  /** When it parked (ms since the epoch): front-ends expire parked turns after a TTL. */
  parkedAt: number;
}

/** The history note a turn leaves when it was interrupted. */
export function turnAbortedMessage(turnId: string): string {
  return [
    "<turn_aborted>",
    `  <turn_id>${turnId}</turn_id>`,
    "  <reason>interrupted</reason>",
    "  <guidance>The user stopped the previous turn. Commands it started may not have finished; check before relying on their effects.</guidance>",
    "</turn_aborted>",
  ].join("\n");
}

/** What a resumed or forked thread continues from (see Thread.restore). */
export interface RestoredState {
  history: readonly ResponseItem[];
  usage: TokenUsage;
  /** Turns already run: the next turn id. */
  turns: number;
  lastUsage: TokenUsage | null;
  /** The client tools the thread last used (from its `client_tools_changed` lines). */
  clientTools?: ClientToolSpec[] | undefined;
  /** The last turn parked on these client calls (its `turn_parked` line) and was not continued. */
  parked?: { turnId: string; callIds: string[]; parkedAt: number } | null | undefined;
}

/** An answer to a question a sub-agent asked through a thread. */
export type ForwardedAnswer = { approval: ReviewDecision } | { userInput: UserInputReply };

/** Where answers to forwarded questions go (Thread.routeAnswers): true when it took it. */
export type AnswerRoute = (agentId: string, callId: string, answer: ForwardedAnswer) => boolean;
