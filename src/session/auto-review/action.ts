/**
 * The planned action as the reviewer sees it: the approval question as pretty JSON, exactly what
 * would run or change, cut at ~16k tokens (a huge patch must not push out the rules).
 */
import type { FileChange } from "../../protocol/events.js";
import type { ApprovalQuestion } from "../../tools/types.js";
import { cutText } from "./truncate.js";

export const ACTION_TOKENS = 16_000;

/** The planned action as pretty JSON, cut at ACTION_TOKENS with a marker. */
export function actionJson(question: ApprovalQuestion, cwd: string): string {
  return cutText(JSON.stringify(plannedAction(question, cwd), null, 2), ACTION_TOKENS);
}

/** The action's fields, named for a reader who has never seen our types. */
export function plannedAction(question: ApprovalQuestion, cwd: string): Record<string, unknown> {
  switch (question.kind) {
    case "exec":
      return {
        tool: "shell",
        command: question.command,
        cwd: question.cwd,
        justification: question.reason,
      };
    case "patch":
      return {
        tool: "apply_patch",
        cwd,
        files: Object.entries(question.changes).map(([path, change]) => fileChange(path, change)),
        justification: question.reason,
        // Approving the patch would also make this directory writable for the rest of the session.
        ...(question.grantRoot ? { grant_write_access_to: question.grantRoot } : {}),
      };
    case "network":
      return {
        tool: "network_access",
        host: question.host,
        protocol: question.protocol,
        command: question.command,
        cwd: question.cwd,
        justification: question.reason,
      };
    case "mcp":
      return {
        tool: "mcp_tool_call",
        server: question.server,
        mcp_tool: question.tool,
        arguments: question.arguments,
        cwd: question.cwd,
      };
  }
}

function fileChange(path: string, change: FileChange): Record<string, unknown> {
  switch (change.type) {
    case "add":
      return { path, change: "add", content: change.content };
    case "delete":
      return { path, change: "delete", content: change.content };
    case "update":
      return {
        path,
        change: "update",
        diff: change.unified_diff,
        ...(change.move_path ? { move_to: change.move_path } : {}),
      };
  }
}
