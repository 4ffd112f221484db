import { resolve } from "node:path";
import { replayLines } from "../../session/replay-items.js";
import type { EffectiveSettings } from "../../session/thread.js";
import type { StoredThread } from "../../store/index.js";
import { VERSION } from "../../version.js";
import type { SandboxPolicy, ThreadOpenedResponse, ThreadWire, Turn, TurnError } from "./protocol/common.js";
import { threadItemOf } from "./thread-items.js";

/** Unix seconds of an ISO time (Codex's createdAt / updatedAt). */
function seconds(iso: string): number {
  return Math.floor(Date.parse(iso) / 1000);
}

/** Codex's SessionSource for our rollouts' `source`: app-server threads show as "vscode", as Codex's do. */
function sourceOf(source: string): ThreadWire["source"] {
  if (source === "app-server") return "vscode";
  if (source === "exec" || source === "cli") return source;
  return "unknown";
}

/** `stored` as a Thread; with `includeTurns`, its turns (`runningTurn`: the one in progress now). */
export function storedThreadView(
  stored: StoredThread,
  options: { includeTurns?: boolean; runningTurn?: string | null } = {},
): ThreadWire {
  return {
    id: stored.meta.id,
    preview: stored.firstPrompt ?? "",
    modelProvider: stored.meta.provider,
    createdAt: seconds(stored.meta.created),
    updatedAt: seconds(stored.updated),
    // Codex always has a rollout file; a thread in a database has none.
    path: stored.path ?? "",
    cwd: stored.meta.cwd,
    cliVersion: VERSION,
    source: sourceOf(stored.meta.source),
    gitInfo: null,
    turns: options.includeTurns ? turnsOf(stored, options.runningTurn ?? null) : [],
  };
}

/** A thread that was just created (nothing stored yet but its metadata). */
export function newThreadView(id: string, path: string, settings: EffectiveSettings): ThreadWire {
  const now = Math.floor(Date.now() / 1000);
  return {
    id,
    preview: "",
    modelProvider: settings.provider,
    createdAt: now,
    updatedAt: now,
    path,
    cwd: settings.cwd,
    cliVersion: VERSION,
    source: "vscode",
    gitInfo: null,
    turns: [],
  };
}

/** The reply to thread/start, thread/resume and thread/fork: the thread and what the core runs it with. */
export function openedResponse(thread: ThreadWire, settings: EffectiveSettings): ThreadOpenedResponse {
  return {
    thread,
    model: settings.model,
    modelProvider: settings.provider,
    cwd: settings.cwd,
    approvalPolicy: settings.approvalPolicy,
    sandbox: sandboxPolicyOf(settings),
    reasoningEffort: effortOf(settings.effort),
  };
}

function effortOf(effort: string | null): ThreadOpenedResponse["reasoningEffort"] {
  const known = ["none", "minimal", "low", "medium", "high", "xhigh"] as const;
  return known.find((candidate) => candidate === effort) ?? null;
}

/**
 * The settings' sandbox as Codex's SandboxPolicy; /tmp or $TMPDIR missing from the temp roots
 * shows as excluded.
 */
export function sandboxPolicyOf(settings: EffectiveSettings, tmpdir = process.env.TMPDIR): SandboxPolicy {
  switch (settings.sandboxMode) {
    case "danger-full-access":
      return { type: "dangerFullAccess" };
    case "read-only":
      return { type: "readOnly" };
    case "workspace-write":
      return {
        type: "workspaceWrite",
        writableRoots: [...settings.writableRoots],
        networkAccess: settings.networkAccess,
        excludeTmpdirEnvVar: tmpdir ? !settings.tempRoots.includes(resolve(tmpdir)) : false,
        excludeSlashTmp: !settings.tempRoots.includes("/tmp"),
      };
  }
}

/**
 * The stored thread's turns, its items replayed through the core's ItemTracker as the live
 * stream was: stored events and response items in order (a rollout keeps no tool events, so
 * only messages, reasoning and searches come back).
 */
function turnsOf(stored: StoredThread, runningTurn: string | null): Turn[] {
  const turns: Turn[] = [];
  let current: Turn | null = null;
  for (const { event, items } of replayLines(stored.lines)) {
    if (event.type === "turn_started") {
      current = { id: event.turn_id, items: [], status: "inProgress", error: null };
      turns.push(current);
    } else if (current && event.type === "turn_complete") current.status = "completed";
    else if (current && event.type === "turn_aborted") current.status = "interrupted";
    else if (current && event.type === "turn_failed") {
      current.status = "failed";
      current.error = errorOf(event.message);
    }
    for (const change of items) {
      const item = change.type === "item_completed" && current ? threadItemOf(change.item) : null;
      if (item) current?.items.push(item);
    }
  }
  // A turn without an end is running only if it is the live one; otherwise it died with its process.
  for (const turn of turns)
    if (turn.status === "inProgress" && turn.id !== runningTurn) turn.status = "interrupted";
  return turns;
}

function errorOf(message: string): TurnError {
  return { message, codexErrorInfo: null, additionalDetails: null };
}
