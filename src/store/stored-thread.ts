/**
 * A rollout's validated lines replayed into a StoredThread (history, turns, usage, client tools),
 * and the errors of reading one. Apart from rollout-reader.ts (the zod parse boundary) so the
 * thread stores load zod only when they read a rollout back.
 */
import type { ClientToolSpec } from "../protocol/client-tools.js";
import { addUsage, emptyUsage, type ResponseItem, type TokenUsage } from "../protocol/items.js";
import type { RolloutEvent, RolloutLine, SessionMeta, StoredGoal, ThreadGitInfo } from "./rollout.js";
import { closeUnpairedCalls } from "./unpaired-calls.js";

export class RolloutError extends Error {
  override name = "RolloutError";
}

/** A stored thread, replayed: the history a resumed thread continues from, and its summary. */
export interface StoredThread {
  /** The rollout file; null when the store is not files (a database). */
  path: string | null;
  meta: SessionMeta;
  history: ResponseItem[];
  /** Turns started (a resumed thread numbers its next turn after these). */
  turns: number;
  usage: TokenUsage;
  /** Usage of the last model response (for auto-compaction after a resume). */
  lastUsage: TokenUsage | null;
  /** The client tools in force at the end (from the metadata line and later changes). */
  clientTools: ClientToolSpec[];
  /** The last turn, when it parked on client calls and was not continued since (parkedAt: ms). */
  parked: { turnId: string; callIds: string[]; parkedAt: number } | null;
  firstPrompt: string | null;
  /** The name the user gave the thread (thread/name/set), or null. */
  name: string | null;
  /** What clients recorded with thread/metadata/update (null: never set or cleared). */
  gitInfo: ThreadGitInfo | null;
  projectId: string | null;
  daybreakEnabled: boolean | null;
  /** The thread's goal (thread/goal/set), or null. */
  goal: StoredGoal | null;
  /** ISO time of the last line. */
  updated: string;
  compactions: number;
  skippedLines: number;
  lines: RolloutLine[];
}

/** Replay validated lines into a StoredThread; throws RolloutError without a metadata line. */
export function replayRollout(path: string, lines: RolloutLine[], skippedLines = 0): StoredThread {
  const first = lines[0];
  if (first?.type !== "session_meta") throw new RolloutError(`${path}: no session metadata line`);
  const stored: StoredThread = {
    path,
    meta: first.payload,
    history: [],
    turns: 0,
    usage: emptyUsage(),
    lastUsage: null,
    clientTools: first.payload.client_tools ?? [],
    parked: null,
    firstPrompt: null,
    name: null,
    gitInfo: null,
    projectId: null,
    daybreakEnabled: null,
    goal: null,
    updated: first.timestamp,
    compactions: 0,
    skippedLines,
    lines,
  };
  for (const line of lines) {
    stored.updated = line.timestamp;
    if (line.type === "response_item") stored.history.push(line.payload);
    else if (line.type === "compacted") {
      stored.history = [...line.payload.replacement_history];
      stored.compactions += 1;
      stored.lastUsage = null;
    } else if (line.type === "event") applyEvent(stored, line.payload, line.timestamp);
  }
  // A parked turn's client calls stay open: their outputs are what its follow-up brings.
  stored.history = closeUnpairedCalls(stored.history, new Set(stored.parked?.callIds ?? []));
  return stored;
}

function applyEvent(stored: StoredThread, event: RolloutEvent, timestamp: string): void {
  switch (event.type) {
    case "turn_started":
      stored.turns += 1;
      stored.parked = null;
      return;
    case "turn_continued":
      stored.parked = null;
      return;
    case "turn_parked":
      stored.parked = { turnId: event.turn_id, callIds: event.call_ids, parkedAt: Date.parse(timestamp) };
      return;
    case "token_count":
      // Totals restart at 0 in each process, so sum the per-response usage instead.
      if (event.last) stored.usage = addUsage(stored.usage, event.last);
      stored.lastUsage = event.last;
      return;
    case "user_message":
      stored.firstPrompt ??= event.message;
      return;
    case "client_tools_changed":
      stored.clientTools = event.tools;
      return;
    case "thread_name_updated":
      stored.name = event.thread_name;
      return;
    case "thread_metadata_updated":
      applyMetadata(stored, event.metadata);
      return;
    case "thread_goal_updated":
      stored.goal = event.goal;
      return;
    default:
      return;
  }
}

function applyMetadata(
  stored: StoredThread,
  update: Extract<RolloutEvent, { type: "thread_metadata_updated" }>["metadata"],
): void {
  if (update.git_info === null) stored.gitInfo = null;
  else if (update.git_info) {
    const base = stored.gitInfo ?? { sha: null, branch: null, origin_url: null };
    const merged = { ...base, ...update.git_info };
    // A git info whose every field was cleared is no git info.
    stored.gitInfo =
      merged.sha === null && merged.branch === null && merged.origin_url === null ? null : merged;
  }
  if (update.project_id !== undefined) stored.projectId = update.project_id;
  if (update.daybreak_enabled !== undefined) stored.daybreakEnabled = update.daybreak_enabled;
}

/** The lines of the first `turns` turns (metadata and what precedes turn 1 included). */
export function linesUpToTurn(lines: RolloutLine[], turns: number): RolloutLine[] {
  let started = 0;
  const kept: RolloutLine[] = [];
  for (const line of lines) {
    if (line.type === "event" && line.payload.type === "turn_started") {
      started += 1;
      if (started > turns) break;
    }
    kept.push(line);
  }
  return kept;
}
