/**
 * The core's hook_started / hook_completed events as `hook/started` / `hook/completed`
 * notifications. Library callbacks have no place on this wire (Codex's HookHandlerType has no
 * such kind, and the app-server's threads have none): their runs are not sent.
 */
import type { EventOf, HookRunSummary } from "../../protocol/events.js";
import type { ServerNotification } from "./protocol/server-messages.js";

type HookNotification = Extract<ServerNotification, { method: "hook/started" | "hook/completed" }>;
type WireRun = HookNotification["params"]["run"];

export function hookNotification(
  threadId: string,
  event: EventOf<"hook_started"> | EventOf<"hook_completed">,
): HookNotification | null {
  const { run } = event;
  if (run.handler_type !== "command" || run.source === "sessionFlags") return null;
  const params = {
    threadId,
    turnId: event.turn_id,
    run: wireRun({ ...run, handler_type: "command", source: run.source }),
  };
  return event.type === "hook_started"
    ? { method: "hook/started", params }
    : { method: "hook/completed", params };
}

type CommandRun = HookRunSummary & { handler_type: "command"; source: "user" | "project" };

function wireRun(run: CommandRun): WireRun {
  return {
    id: run.id,
    // `PreToolUse` → `preToolUse`, as the v2 HookEventName spells it.
    eventName: `${run.event_name.charAt(0).toLowerCase()}${run.event_name.slice(1)}` as WireRun["eventName"],
    handlerType: run.handler_type,
    executionMode: run.execution_mode,
    scope: run.scope,
    sourcePath: run.source_path,
    source: run.source,
    displayOrder: run.display_order,
    status: run.status,
    statusMessage: run.status_message,
    startedAt: run.started_at,
    completedAt: run.completed_at,
    durationMs: run.duration_ms,
    entries: run.entries,
  };
}
