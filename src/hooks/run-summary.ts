/**
 * A hook's run as Codex's HookRunSummary: what `hook_started` and `hook_completed` carry (run
 * id, layer, order, status, and what the hook said as output entries). A library callback has
 * no file or layer: it is handler type `callback`, source `sessionFlags`, and its source path
 * names the function (`callback:<name>`).
 */
import type { HookOutputEntry, HookRunStatus, HookRunSummary } from "../protocol/events.js";
import type { ReadAnswer } from "./answers.js";
import { eventKeyLabel } from "./events.js";
import type { Hook } from "./handler.js";

/** Codex's run id: `<event label>:<display order>:<source path>` (`stop:2:/home/me/.codex/hooks.json`). */
export function hookRunId(hook: Hook): string {
  return `${eventKeyLabel(hook.event)}:${hook.displayOrder}:${sourcePath(hook)}`;
}

function sourcePath(hook: Hook): string {
  return hook.kind === "command" ? hook.source : `callback:${hook.callback.name || "anonymous"}`;
}

/** The summary of `hook` starting now. */
export function runningSummary(hook: Hook, startedMs: number): HookRunSummary {
  return {
    id: hookRunId(hook),
    event_name: hook.event,
    handler_type: hook.kind,
    execution_mode: "sync",
    scope: hook.event === "SessionStart" || hook.event === "SubagentStart" ? "thread" : "turn",
    source_path: sourcePath(hook),
    source: hook.kind === "command" ? hook.layer : "sessionFlags",
    display_order: hook.displayOrder,
    status: "running",
    status_message: hook.kind === "command" ? hook.statusMessage : null,
    started_at: Math.floor(startedMs / 1000),
    completed_at: null,
    duration_ms: null,
    entries: [],
  };
}

/** The summary once it answered `read` (a failure, a timeout, or its interpreted answer). */
export function completedSummary(
  running: HookRunSummary,
  startedMs: number,
  read: ReadAnswer,
): HookRunSummary {
  const now = Date.now();
  const { answer, problem } = read;
  const entries: HookOutputEntry[] = [];
  if (problem) entries.push({ kind: "error", text: problem });
  if (answer.systemMessage) entries.push({ kind: "warning", text: answer.systemMessage });
  if (answer.additionalContext) entries.push({ kind: "context", text: answer.additionalContext });
  const feedback =
    answer.block ?? (answer.permission?.behavior === "deny" ? answer.permission.message : undefined);
  if (feedback) entries.push({ kind: "feedback", text: feedback });
  if (answer.stop?.reason) entries.push({ kind: "stop", text: answer.stop.reason });
  let status: HookRunStatus = "completed";
  if (problem) status = "failed";
  else if (answer.stop) status = "stopped";
  else if (feedback !== undefined) status = "blocked";
  return {
    ...running,
    status,
    completed_at: Math.floor(now / 1000),
    duration_ms: Math.max(0, Math.round(now - startedMs)),
    entries,
  };
}
