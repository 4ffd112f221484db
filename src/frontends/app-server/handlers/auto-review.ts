/**
 * `thread/approveGuardianDeniedAction`: the client's user approves what automatic review denied;
 * the action's next request on that thread runs without review (a person's explicit approval is
 * final). The review is named by the `reviewId` (or `id`) of the event the client was sent.
 */

import type { ParamsOf, ResultOf } from "../protocol/client-requests.js";
import { RpcError } from "../protocol/jsonrpc.js";
import type { HandlerContext } from "./context.js";

export async function approveGuardianDeniedAction(
  params: ParamsOf<"thread/approveGuardianDeniedAction">,
  context: HandlerContext,
): Promise<ResultOf<"thread/approveGuardianDeniedAction">> {
  const thread = context.runtime.channel(params.threadId)?.thread;
  if (!thread) throw RpcError.invalidRequest(`thread not found: ${params.threadId}`);
  const reviewId = params.event.reviewId ?? params.event.id;
  if (!reviewId) throw RpcError.invalidParams("Invalid params: event: the review's `reviewId` is missing");
  if (!thread.approveDeniedAction(reviewId))
    throw RpcError.invalidRequest(
      `no action denied by automatic review ${reviewId} on thread ${params.threadId}`,
    );
  return {};
}
