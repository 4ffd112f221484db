/**
 * The tool call a `session/request_permission` carries for one of the core's approval questions:
 * the same id, kind, title and input the live tool call has (tool-calls.ts), status `pending`, the
 * proposed diffs for a patch, and the question's reason as text content for the others.
 */
import type { ToolCall } from "@agentclientprotocol/sdk";
import type { ApprovalRequestEvent } from "../../protocol/events.js";
import { commandView } from "./command-view.js";
import { diffContentOf } from "./diff-content.js";
import { editTitle, textContent } from "./tool-calls.js";

/**
 * `event`: an `exec_approval_request` (a command, an MCP tool call when `mcp_tool_call` is set, a
 * command's network access when `network_approval_context` is) or an `apply_patch_approval_request`.
 * `cwd`: the session's, against which a patch's paths resolve (they are absolute already).
 * A ToolCall is a complete ToolCallUpdate: pass it as `toolCall` as it is.
 */
export function approvalToolCall(event: ApprovalRequestEvent, cwd = "/"): ToolCall {
  const reason = event.reason ? [textContent(event.reason)] : [];
  if (event.type === "apply_patch_approval_request") {
    const { content, locations } = diffContentOf(event.changes, cwd);
    return {
      toolCallId: event.call_id,
      status: "pending",
      kind: "edit",
      title: editTitle(
        locations.map((location) => location.path),
        cwd,
      ),
      content,
      locations,
      rawInput: {
        paths: locations.map((location) => location.path),
        reason: event.reason,
        grant_root: event.grant_root,
      },
    };
  }
  if (event.mcp_tool_call) {
    const { server, tool, arguments: args } = event.mcp_tool_call;
    return {
      toolCallId: event.call_id,
      status: "pending",
      kind: "other",
      title: `mcp.${server}.${tool}`,
      content: reason,
      rawInput: { server, tool, arguments: args },
    };
  }
  const view = commandView(event.command, event.cwd);
  const network = event.network_approval_context;
  return {
    toolCallId: event.call_id,
    status: "pending",
    kind: view.kind,
    title: view.title,
    content: reason,
    locations: view.locations,
    rawInput: {
      command: view.commandLine,
      cwd: event.cwd,
      ...(network ? { network: { host: network.host, protocol: network.protocol } } : {}),
    },
  };
}
