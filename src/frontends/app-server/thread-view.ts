import { turnScopedIds } from "../../protocol/item-tracker.js";
import type { ResponseItem } from "../../protocol/items.js";
import { replayLines } from "../../session/replay-items.js";
import type { EffectiveSettings } from "../../session/thread.js";
import type { StoredThread } from "../../store/index.js";
import { VERSION } from "../../version.js";
import { activeProfileOf, approvalToWire, wireSandboxOf } from "./permissions-wire.js";
import type {
  ThreadItem,
  ThreadOpenedResponse,
  ThreadSettingsWire,
  ThreadStatus,
  ThreadWire,
  Turn,
  TurnError,
} from "./protocol/common.js";
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

/** What a thread in memory adds to its stored view: a thread channel whose thread is live. */
export interface LiveThreadView {
  /** The turn in progress now. */
  running: string | null;
  settings: EffectiveSettings;
}

/** The one environment a tscodex thread runs in: this machine, rooted at its cwd. */
function environmentsOf(cwd: string): ThreadWire["environments"] {
  return [{ environmentId: "local", cwd, runtimeWorkspaceRoots: [cwd] }];
}

function statusOf(live: LiveThreadView | null): ThreadStatus {
  if (!live) return { type: "notLoaded" };
  return live.running ? { type: "active", activeFlags: [] } : { type: "idle" };
}

/**
 * `stored` as a Thread; with `includeTurns`, its turns. `live`: the thread is in memory here
 * (its status, the model and effort it runs with, and the turn in progress).
 */
export function storedThreadView(
  stored: StoredThread,
  options: { includeTurns?: boolean; live?: LiveThreadView | null } = {},
): ThreadWire {
  const { meta } = stored;
  const live = options.live ?? null;
  const updatedAt = seconds(stored.updated);
  return {
    id: meta.id,
    environments: environmentsOf(meta.cwd),
    extra: null,
    sessionId: meta.id,
    forkedFromId: meta.forked_from ?? null,
    attachedToThreadId: null,
    parentThreadId: meta.parent_id ?? null,
    preview: stored.firstPrompt ?? "",
    ephemeral: false,
    section: null,
    sectionEnteredAt: null,
    projectId: stored.projectId,
    modelProvider: meta.provider,
    model: live?.settings.model ?? meta.model,
    reasoningEffort: effortOf(live?.settings.effort ?? null),
    createdAt: seconds(meta.created),
    updatedAt,
    recencyAt: updatedAt,
    status: statusOf(live),
    // Codex always has a rollout file; a thread in a database has none.
    path: stored.path ?? "",
    cwd: meta.cwd,
    cliVersion: VERSION,
    originator: null,
    source: sourceOf(meta.source),
    threadSource: meta.thread_source ?? null,
    agentNickname: null,
    agentRole: meta.agent_type ?? null,
    gitInfo: stored.gitInfo
      ? { sha: stored.gitInfo.sha, branch: stored.gitInfo.branch, originUrl: stored.gitInfo.origin_url }
      : null,
    name: stored.name,
    daybreakEnabled: stored.daybreakEnabled,
    turns: options.includeTurns ? turnsOf(stored, live?.running ?? null) : [],
  };
}

/** A thread that was just created (nothing stored yet but its metadata); it is loaded and idle. */
export function newThreadView(id: string, path: string, settings: EffectiveSettings): ThreadWire {
  const now = Math.floor(Date.now() / 1000);
  return {
    id,
    environments: environmentsOf(settings.cwd),
    extra: null,
    sessionId: id,
    forkedFromId: null,
    attachedToThreadId: null,
    parentThreadId: null,
    preview: "",
    ephemeral: false,
    section: null,
    sectionEnteredAt: null,
    projectId: null,
    modelProvider: settings.provider,
    model: settings.model,
    reasoningEffort: effortOf(settings.effort),
    createdAt: now,
    updatedAt: now,
    recencyAt: now,
    status: { type: "idle" },
    path,
    cwd: settings.cwd,
    cliVersion: VERSION,
    originator: null,
    source: "vscode",
    threadSource: null,
    agentNickname: null,
    agentRole: null,
    gitInfo: null,
    name: null,
    daybreakEnabled: null,
    turns: [],
  };
}

/**
 * The reply to thread/start, thread/resume and thread/fork. `instructionSources`: the
 * AGENTS.md files the thread's prompt carries. No plugins, permission profiles or service tiers
 * in tscodex; approvals go to the client ("user"); sub-agents start on the model's request only.
 */
export function openedResponse(
  thread: ThreadWire,
  settings: EffectiveSettings,
  instructionSources: string[],
): ThreadOpenedResponse {
  return {
    thread,
    model: settings.model,
    modelProvider: settings.provider,
    serviceTier: null,
    disabledPluginIds: [],
    cwd: settings.cwd,
    runtimeWorkspaceRoots: [settings.cwd],
    instructionSources,
    approvalPolicy: approvalToWire(settings.approvalPolicy, settings.granular),
    approvalsReviewer: settings.approvalsReviewer,
    sandbox: wireSandboxOf(settings.permissions),
    activePermissionProfile: activeProfileOf(settings.permissions),
    reasoningEffort: effortOf(settings.effort),
    multiAgentMode: "explicitRequestOnly",
  };
}

/** What a thread runs with as 0.169's ThreadSettings (`thread/settings/updated`). */
export function threadSettingsOf(settings: EffectiveSettings): ThreadSettingsWire {
  const effort = effortOf(settings.effort);
  return {
    approvalPolicy: approvalToWire(settings.approvalPolicy, settings.granular),
    approvalsReviewer: settings.approvalsReviewer,
    collaborationMode: {
      mode: settings.collaborationMode.mode,
      settings: {
        model: settings.model,
        reasoning_effort: effort,
        developer_instructions: settings.collaborationMode.developerInstructions,
      },
    },
    cwd: settings.cwd,
    model: settings.model,
    modelProvider: settings.provider,
    sandboxPolicy: wireSandboxOf(settings.permissions),
    effort,
  };
}

function effortOf(effort: string | null): ThreadOpenedResponse["reasoningEffort"] {
  const known = ["none", "minimal", "low", "medium", "high", "xhigh"] as const;
  return known.find((candidate) => candidate === effort) ?? null;
}

/**
 * The stored thread's turns, its items replayed through the core's ItemTracker as the live
 * stream was (stored events and response items in order, ids as the live stream gave them:
 * event-mapper.ts uses the same turnScopedIds), each item as it last completed. Every kind the
 * live stream completes comes back: messages, reasoning, searches and plans from history;
 * commands, patches, MCP and client tool calls and sub-agents from their stored end events.
 */
function turnsOf(stored: StoredThread, runningTurn: string | null): Turn[] {
  const turns: Turn[] = [];
  let current: Turn | null = null;
  /** Where each item of the current turn is, by type and id. */
  let places = new Map<string, number>();
  for (const { event, items } of replayLines(stored.lines, { newId: turnScopedIds(stored.meta.id) })) {
    if (event.type === "turn_started") {
      current = { id: event.turn_id, items: [], itemsView: "full", status: "inProgress", error: null };
      places = new Map();
      turns.push(current);
    } else if (current && event.type === "turn_complete") current.status = "completed";
    else if (current && event.type === "turn_aborted") current.status = "interrupted";
    else if (current && event.type === "turn_failed") {
      current.status = "failed";
      current.error = errorOf(event.message);
    } else if (current && event.type === "raw_response_item") {
      const plan = planOf(event.item);
      if (plan) current.plan = plan;
    }
    for (const change of items) {
      // A review shows both ends: what is reviewed (its start) and the verdict.
      const kept =
        change.type === "item_completed" || (change.type === "item_started" && change.item.type === "review");
      const item = kept && current ? threadItemOf(change.item, stored.meta.id) : null;
      if (item && current) keepLatest(current.items, places, item);
    }
  }
  // A turn without an end is running only if it is the live one; otherwise it died with its process.
  for (const turn of turns)
    if (turn.status === "inProgress" && turn.id !== runningTurn) turn.status = "interrupted";
  return turns;
}

/** update_plan's step statuses as the wire spells them. */
const STEP_STATUS: Record<string, "pending" | "inProgress" | "completed"> = {
  pending: "pending",
  in_progress: "inProgress",
  completed: "completed",
};

/** A stored `update_plan` call as the turn's plan (the steps the tool accepted), else null. */
function planOf(item: ResponseItem): Turn["plan"] | null {
  if (item.type !== "function_call" || item.name !== "update_plan") return null;
  let args: unknown;
  try {
    args = JSON.parse(item.arguments);
  } catch {
    return null;
  }
  if (typeof args !== "object" || args === null || !("plan" in args) || !Array.isArray(args.plan))
    return null;
  const steps = args.plan.flatMap((entry: unknown) => {
    if (typeof entry !== "object" || entry === null) return [];
    const { step, status } = entry as Record<string, unknown>;
    const wire = typeof status === "string" ? STEP_STATUS[status] : undefined;
    return typeof step === "string" && wire ? [{ step, status: wire }] : [];
  });
  const explanation = "explanation" in args && typeof args.explanation === "string" ? args.explanation : null;
  return { explanation, steps };
}

/**
 * Add `item` to a turn's items, or put it in the place of its earlier completion (a sub-agent
 * completes each time its work ends): one item per id and type, as it last completed.
 */
function keepLatest(items: ThreadItem[], places: Map<string, number>, item: ThreadItem): void {
  const key = `${item.type}:${item.id}`;
  const index = places.get(key);
  if (index === undefined) places.set(key, items.push(item) - 1);
  else items[index] = item;
}

/**
 * Codex's `summary` view of a turn's items: its first user message and its last agent message
 * (what a client shows as the turn's title and answer).
 */
export function summaryItems(items: readonly ThreadItem[]): ThreadItem[] {
  const prompt = items.find((item) => item.type === "userMessage");
  const answer = items.findLast((item) => item.type === "agentMessage");
  return [...(prompt ? [prompt] : []), ...(answer ? [answer] : [])];
}

function errorOf(message: string): TurnError {
  return { message, codexErrorInfo: null, additionalDetails: null };
}
