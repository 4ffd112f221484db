/**
 * An approval question as ACP's `session/request_permission`: allow once / allow always (for the
 * session) / reject once / reject always, and the answer back as the core's decision. "Always"
 * allow is the core's session approval (`approved_for_session`); "always" reject is kept here,
 * per session, and answers the same question again without asking. A cancelled request (the
 * prompt was cancelled) aborts the turn, as Codex's `cancel` decision does.
 */
import type { PermissionOption, RequestPermissionResponse } from "@agentclientprotocol/sdk";
import type { ApprovalRequestEvent, ReviewDecision } from "../../protocol/events.js";

export const PERMISSION_OPTIONS: PermissionOption[] = [
  { optionId: "allow_once", name: "Allow once", kind: "allow_once" },
  { optionId: "allow_always", name: "Allow for this session", kind: "allow_always" },
  { optionId: "reject_once", name: "Reject", kind: "reject_once" },
  { optionId: "reject_always", name: "Reject for this session", kind: "reject_always" },
];

/** What makes two questions the same question: the command, the files, the tool or the host. */
export function questionKey(event: ApprovalRequestEvent): string {
  if (event.type === "apply_patch_approval_request")
    return `patch:${Object.keys(event.changes).sort().join("\0")}`;
  if (event.network_approval_context) return `host:${event.network_approval_context.host}`;
  if (event.mcp_tool_call) return `mcp:${event.mcp_tool_call.server}/${event.mcp_tool_call.tool}`;
  return `exec:${event.command.join("\0")}`;
}

/** The core's decision for the client's answer; `rejectAlways` is told to remember the key. */
export function decisionOf(response: RequestPermissionResponse, rejectAlways: () => void): ReviewDecision {
  const { outcome } = response;
  if (outcome.outcome === "cancelled") return "abort";
  switch (outcome.optionId) {
    case "allow_once":
      return "approved";
    case "allow_always":
      return "approved_for_session";
    case "reject_always":
      rejectAlways();
      return "denied";
    default:
      return "denied";
  }
}
