/**
 * Rollout lines: what every thread store keeps of a thread. Its metadata line first, then one
 * line per history item and per key event, as they happen. Here: the line types, which events
 * become lines, and where the JSONL store puts a thread's file
 * (`$TSCODEX_HOME/sessions/YYYY/MM/DD/`; writing it: rollout-recorder.ts).
 */
import { join } from "node:path";
import type { ClientToolSpec } from "../protocol/client-tools.js";
import type { Event, EventOf } from "../protocol/events.js";
import type { ResponseItem, TokenUsage } from "../protocol/items.js";
import { localDateParts } from "../util/local-time.js";

/** The first line of every rollout. */
export interface SessionMeta {
  id: string;
  /** ISO time the thread was created. */
  created: string;
  cwd: string;
  model: string;
  provider: string;
  approval_policy: string;
  sandbox_mode: string;
  /** The permission profile the thread started under (`sandbox_mode` is then how it reads as a mode). */
  permission_profile?: string;
  /** Who started the thread: "exec", "sdk", "cli", a server name. */
  source: string;
  /** Custom base instructions, when the thread did not use the built-in ones. */
  instructions?: string;
  /** The thread this one was forked from. */
  forked_from?: string;
  /** A sub-agent's parent thread, its depth (1: a child of a top thread) and its agent type. */
  parent_id?: string;
  depth?: number;
  agent_type?: string;
  /** What the client said started the thread (`exec --thread-source`). */
  thread_source?: string;
  /** `exec --cyber-access-program`, as the Codex SDK passes it. */
  cyber_access_program?: string;
  /** The client tools the thread started with (later changes are `client_tools_changed` events). */
  client_tools?: ClientToolSpec[];
}

/** Events worth keeping: turn boundaries, usage and the user's prompts (without images). */
export type RolloutEvent =
  | { type: "turn_started"; turn_id: string }
  | { type: "turn_complete"; turn_id: string; usage: TokenUsage }
  | { type: "turn_aborted"; turn_id: string }
  | { type: "turn_failed"; turn_id: string; message: string }
  | { type: "token_count"; last: TokenUsage | null; total: TokenUsage }
  | { type: "user_message"; message: string }
  | { type: "client_tools_changed"; tools: ClientToolSpec[] }
  /** The turn stopped on these client calls (their items are in history without outputs). */
  | { type: "turn_parked"; turn_id: string; call_ids: string[]; usage: TokenUsage }
  | { type: "turn_continued"; turn_id: string }
  /** A review turn began / gave its verdict (so a replay shows the review, not its prompt). */
  | { type: "entered_review_mode" | "exited_review_mode"; turn_id: string; review: string }
  /** The user named the thread (null: the name was cleared). Codex keeps `thread_name_updated` too. */
  | { type: "thread_name_updated"; thread_name: string | null }
  /** Fields the client set on the thread; an absent field is unchanged, null clears it. */
  | { type: "thread_metadata_updated"; metadata: ThreadMetadataUpdate }
  /** The thread's goal was set or changed (thread/goal/set), or cleared (null). */
  | { type: "thread_goal_updated"; goal: StoredGoal | null }
  | StoredToolEvent;

/**
 * The ends of a turn's tool work, kept so that a stored turn shows every item the live stream
 * showed (commands with their output, patches, MCP and client tool calls, sub-agents), as
 * Codex's rollouts keep them. A command keeps its aggregated output only (stdout and stderr are
 * parts of it; its formatted output is the tool output already in history).
 */
export type StoredToolEvent =
  | Omit<EventOf<"exec_command_end">, "stdout" | "stderr" | "formatted_output">
  | EventOf<"patch_apply_end">
  | EventOf<"mcp_tool_call_end">
  | EventOf<"client_tool_call_end">
  | EventOf<"agent_spawned">
  | EventOf<"agent_finished">;

/** Events about the thread, not its turns: a rollback or revert keeps them. */
export const THREAD_ANNOTATIONS: readonly string[] = [
  "thread_name_updated",
  "thread_metadata_updated",
  "thread_goal_updated",
];

/** A thread's goal (Codex 0.171's thread goals); times in Unix seconds. */
export interface StoredGoal {
  objective: string;
  status: "active" | "paused" | "blocked" | "usageLimited" | "budgetLimited" | "complete";
  token_budget: number | null;
  created_at: number;
  updated_at: number;
}

/** Git facts a client records on a thread (thread/metadata/update). */
export interface ThreadGitInfo {
  sha: string | null;
  branch: string | null;
  origin_url: string | null;
}

/** What thread/metadata/update changes: only the fields present. */
export interface ThreadMetadataUpdate {
  git_info?: Partial<ThreadGitInfo> | null;
  project_id?: string | null;
  daybreak_enabled?: boolean | null;
}

/** One line of a rollout (`timestamp` is an ISO time). */
export type RolloutLine =
  | { timestamp: string; type: "session_meta"; payload: SessionMeta }
  | { timestamp: string; type: "response_item"; payload: ResponseItem }
  | { timestamp: string; type: "event"; payload: RolloutEvent }
  /** History was replaced by a compaction; `replacement_history` is the new history. */
  | {
      timestamp: string;
      type: "compacted";
      payload: { summary: string; replacement_history: ResponseItem[] };
    };

export type LineType = RolloutLine["type"];
export type PayloadOf<T extends LineType> = Extract<RolloutLine, { type: T }>["payload"];

/**
 * `sessions/YYYY/MM/DD/rollout-YYYY-MM-DDThh-mm-ss-<id>.jsonl` (local date, as Codex). Local time
 * comes from the zone file, not Date's getHours() & co.: their first use loads V8's ICU zone data,
 * 0.5 MB of a one-turn exec's peak RSS (util/local-time.ts).
 */
export function rolloutPath(home: string, id: string, created: Date): string {
  const pad = (n: number) => String(n).padStart(2, "0");
  const local = localDateParts(created.getTime());
  const [y, m, d] = [String(local.year), pad(local.month), pad(local.day)];
  const time = `${y}-${m}-${d}T${pad(local.hours)}-${pad(local.minutes)}-${pad(local.seconds)}`;
  return join(sessionsDir(home), y, m, d, `rollout-${time}-${id}.jsonl`);
}

export function sessionsDir(home: string): string {
  return join(home, "sessions");
}

/** Something to record: a Thread's subscribe(). */
export interface EventSource {
  subscribe(listener: (event: Event) => void, options?: { outputDeltas?: boolean }): () => void;
}

/** The rollout line an event is kept as, or null for events not worth keeping. */
export function lineOfEvent(event: Event): { type: LineType; payload: PayloadOf<LineType> } | null {
  switch (event.type) {
    case "raw_response_item":
      return { type: "response_item", payload: event.item };
    case "turn_started":
    case "turn_aborted":
    case "turn_continued":
      return { type: "event", payload: { type: event.type, turn_id: event.turn_id } };
    case "turn_complete":
      return { type: "event", payload: { type: event.type, turn_id: event.turn_id, usage: event.usage } };
    case "turn_failed":
      return { type: "event", payload: { type: event.type, turn_id: event.turn_id, message: event.message } };
    case "turn_parked":
      return {
        type: "event",
        payload: { type: event.type, turn_id: event.turn_id, call_ids: event.call_ids, usage: event.usage },
      };
    case "token_count":
      return { type: "event", payload: { type: event.type, last: event.last, total: event.total } };
    case "user_message":
      return { type: "event", payload: { type: event.type, message: event.message } };
    case "client_tools_changed":
      return { type: "event", payload: { type: event.type, tools: event.tools } };
    case "entered_review_mode":
    case "exited_review_mode":
      return { type: "event", payload: { type: event.type, turn_id: event.turn_id, review: event.review } };
    case "exec_command_end": {
      const { stdout: _stdout, stderr: _stderr, formatted_output: _formatted, ...kept } = event;
      return { type: "event", payload: kept };
    }
    case "patch_apply_end":
    case "mcp_tool_call_end":
    case "client_tool_call_end":
    case "agent_spawned":
    case "agent_finished":
      return { type: "event", payload: event };
    case "context_compacted":
      return {
        type: "compacted",
        payload: { summary: event.summary, replacement_history: event.replacement_history },
      };
    default:
      return null;
  }
}
