/**
 * One tools/call as both stdio paths run it: the SDK server's (server.ts) and the stdio server's
 * own first call (stdio-quick-call.ts). The context a tool gets (progress, raw notifications,
 * elicitation, cancellation) and the rule that a throwing tool answers an isError result. No
 * zod and no SDK here.
 */

import type { TraceCarrier } from "../../protocol/telemetry.js";
import { DEFAULT_APPROVAL_TIMEOUT_MS } from "../../session/approvals.js";
import { errorMessage } from "../../util/errors.js";
import type { ServerToolResult } from "./results.js";
import type { ServerRuntime, ServerSettings, ServerTool, ServerToolContext } from "./server-tool.js";

/** What the connection gives one call. */
export interface CallChannel {
  runtime: ServerRuntime;
  signal: AbortSignal;
  requestId: string | number;
  /** The call's `_meta.progressToken`, if the client gave one. */
  progressToken?: string | number | undefined;
  /** Sends a notification tied to the call (dropped once the call is cancelled). */
  notify(method: string, params: Record<string, unknown>): void;
  /** Present when the client declared elicitation. */
  elicit?: ServerToolContext["elicit"];
  /** The caller's trace context (`_meta.traceparent`, or the HTTP request's header). */
  trace?: TraceCarrier | undefined;
}

/** The tool context of one call over `channel`. */
export function toolContext(channel: CallChannel): ServerToolContext {
  const { runtime, signal, requestId, progressToken, notify, elicit, trace } = channel;
  let progress = 0;
  return {
    runtime,
    signal,
    requestId,
    progress(message) {
      if (progressToken === undefined) return;
      progress += 1;
      notify("notifications/progress", { progressToken, progress, message });
    },
    notify,
    ...(elicit ? { elicit } : {}),
    ...(trace ? { trace } : {}),
  };
}

/** A tool's result as the wire carries it (the SDK's result type has an index signature). */
export type CallResult = ServerToolResult & { [key: string]: unknown };

/** Run a tool; a throw (a bug) becomes an isError result, never a dead request or server. */
export async function callTool(
  tool: Pick<ServerTool, "name" | "handle">,
  args: Record<string, unknown>,
  context: ServerToolContext,
): Promise<CallResult> {
  try {
    return { ...(await tool.handle(args, context)) };
  } catch (error) {
    return errorResult(`Internal error in ${tool.name}: ${errorMessage(error)}`);
  }
}

export function errorResult(text: string): CallResult {
  return { content: [{ type: "text", text }], isError: true };
}

/**
 * The thread denies an unanswered question after the same bound; ours ends a little earlier
 * so the declared outcome is answered by us, not raced by the thread's own timer.
 */
export function elicitTimeout(settings: ServerSettings): number {
  const bound = settings.approvalTimeoutMs ?? DEFAULT_APPROVAL_TIMEOUT_MS;
  return Math.max(1, bound - Math.min(250, bound / 10));
}

/** The params of the elicitation/create a tool's `elicit` request sends. */
export function elicitationParams(
  request: Parameters<NonNullable<ServerToolContext["elicit"]>>[0],
): Record<string, unknown> {
  const { message, meta, requestedSchema } = request;
  return { message, requestedSchema: requestedSchema ?? { type: "object", properties: {} }, ...meta };
}
