/**
 * tscodex's client tools over ACP (an extension in `_meta`, as ACP reserves it): a session started
 * with `_meta["tscodex/clientTools"]: [{name, description, inputSchema}]` gives the model those
 * tools, and each call the model makes is sent to the editor as the request
 * `_tscodex/client_tool_call {sessionId, callId, tool, arguments}`, whose answer
 * `{contentItems: [{type: "inputText", text} | {type: "inputImage", imageUrl}], success}` is the
 * call's output (Codex's dynamic-tool result shape). Bounded like every question: a client that
 * does not answer fails the call, which the model reads.
 */
import { RequestError } from "@agentclientprotocol/sdk";
import { z } from "zod";
import {
  type ClientToolResult,
  type ClientToolSpec,
  failedClientResult,
} from "../../protocol/client-tools.js";
import { clientToolResultSchema, clientToolSpecSchema } from "../../protocol/client-tools-schema.js";
import type { EventOf } from "../../protocol/events.js";
import { errorMessage } from "../../util/errors.js";
import type { SessionHost } from "./host.js";

export const CLIENT_TOOLS_META = "tscodex/clientTools";
export const CLIENT_TOOL_CALL = "_tscodex/client_tool_call";

/** The tools a session's `_meta` brings; -32602 when they are malformed. */
export function clientToolsOf(
  meta: Record<string, unknown> | null | undefined,
): ClientToolSpec[] | undefined {
  const given = meta?.[CLIENT_TOOLS_META];
  if (given === undefined) return undefined;
  const parsed = z.array(clientToolSpecSchema).safeParse(given);
  if (!parsed.success)
    throw RequestError.invalidParams({ [CLIENT_TOOLS_META]: parsed.error.issues }, "malformed client tools");
  return parsed.data;
}

/** Ask the editor to run one call; any failure becomes a failed result the model reads. */
export async function callClientTool(
  host: SessionHost,
  sessionId: string,
  request: EventOf<"client_tool_call_request">,
): Promise<ClientToolResult> {
  try {
    const answer = await host.client.request(CLIENT_TOOL_CALL, {
      sessionId,
      callId: request.call_id,
      tool: request.tool,
      arguments: request.arguments,
    });
    const result = clientToolResultSchema.safeParse(answer);
    return result.success
      ? result.data
      : failedClientResult(`the client answered ${request.tool} with no result`);
  } catch (error) {
    return failedClientResult(`the client failed to run ${request.tool}: ${errorMessage(error)}`);
  }
}
