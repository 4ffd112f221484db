/**
 * An MCP server's elicitation (during one of the thread's MCP tool calls) passed on to our own
 * client by elicitation: a form goes out with its schema; a URL request goes out as a form with
 * no fields whose message carries the URL (accept = the user went there). No elicitation
 * support, no answer in time or an unreadable answer: declined.
 */
import type { ElicitationResult, EventOf } from "../../protocol/events.js";
import type { ServerToolContext } from "./server-tool.js";

export async function forwardElicitation(
  event: EventOf<"elicitation_request">,
  threadId: string,
  context: ServerToolContext,
): Promise<ElicitationResult> {
  if (!context.elicit) return { action: "decline" };
  const { request } = event;
  const meta = { threadId, codex_elicitation: "mcp-server-elicitation", codex_mcp_server: event.server_name };
  const answer = await context
    .elicit(
      request.mode === "form"
        ? { message: request.message, meta, requestedSchema: request.requestedSchema }
        : { message: `${request.message}\n${request.url}`, meta: { ...meta, codex_url: request.url } },
    )
    .catch(() => null);
  const action = answer?.action;
  if (action === "accept") {
    const content = answer?.content;
    return {
      action,
      ...(content !== null && typeof content === "object"
        ? { content: content as Record<string, unknown> }
        : {}),
    };
  }
  return { action: action === "cancel" ? "cancel" : "decline" };
}
