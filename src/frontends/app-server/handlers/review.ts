/**
 * review/start: Codex's review mode on a thread (inline delivery: a turn of that thread). The
 * turn's prompt carries the diff under review and its final message is the review JSON; the
 * client sees an `enteredReviewMode` item naming the target, the reviewer's work, then an
 * `exitedReviewMode` item with the readable verdict (the core's review item, thread-items.ts).
 */
import { type ReviewTarget, reviewJsonSchema, reviewPrompt } from "../../../session/review.js";
import { errorMessage } from "../../../util/errors.js";
import { enforceTurnCeiling } from "../ceiling.js";
import type { ParamsOf, ResultOf } from "../protocol/client-requests.js";
import { RpcError } from "../protocol/jsonrpc.js";
import type { ReviewTargetWire } from "../protocol/review-requests.js";
import type { HandlerContext } from "./context.js";

export async function reviewStart(
  params: ParamsOf<"review/start">,
  context: HandlerContext,
): Promise<ResultOf<"review/start">> {
  const { target, hint } = targetOf(params.target);
  const channel = await context.runtime.open(params.threadId);
  enforceTurnCeiling(channel, {}, context.runtime.config);
  context.session.follow(channel);
  let prompt: string;
  try {
    prompt = await reviewPrompt(target, channel.settings.cwd);
  } catch (error) {
    throw RpcError.invalidRequest(`cannot review ${hint}: ${errorMessage(error)}`);
  }
  const { turnId, begin } = channel.startTurn(
    context.session,
    [{ type: "text", text: hint, text_elements: [] }],
    { text: prompt },
    { outputSchema: reviewJsonSchema() },
    false,
    { hint },
  );
  context.after(begin);
  return {
    turn: { id: turnId, items: [], status: "inProgress", error: null },
    reviewThreadId: params.threadId,
  };
}

/** The core's target and the line that names it (Codex's wording); blank fields are refused as Codex does. */
function targetOf(wire: ReviewTargetWire): { target: ReviewTarget; hint: string } {
  const required = (value: string, name: string): string => {
    const trimmed = value.trim();
    if (!trimmed) throw RpcError.invalidRequest(`${name} must not be empty`);
    return trimmed;
  };
  switch (wire.type) {
    case "uncommittedChanges":
      return { target: { type: "uncommitted" }, hint: "current changes" };
    case "baseBranch": {
      const branch = required(wire.branch, "branch");
      return { target: { type: "base", branch }, hint: `changes against '${branch}'` };
    }
    case "commit": {
      const sha = required(wire.sha, "sha");
      const title = wire.title?.trim() || undefined;
      const short = sha.slice(0, 7);
      return {
        target: { type: "commit", sha, ...(title ? { title } : {}) },
        hint: title ? `commit ${short}: ${title}` : `commit ${short}`,
      };
    }
    case "custom": {
      const instructions = required(wire.instructions, "instructions");
      return { target: { type: "custom", instructions }, hint: instructions };
    }
  }
}
