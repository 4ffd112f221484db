/**
 * review/start and thread/compact/start: params and results as Codex 0.169's schema has them.
 * Review delivery is `inline` only (0.169's schema knows no other): the review runs as a turn
 * of the thread itself, so `reviewThreadId` is that thread's id.
 */
import { z } from "zod";
import { turn } from "./common.js";

const threadId = z.string();

export const reviewTarget = z
  .discriminatedUnion("type", [
    z.object({ type: z.literal("uncommittedChanges") }),
    z.object({ type: z.literal("baseBranch"), branch: z.string() }),
    z.object({ type: z.literal("commit"), sha: z.string(), title: z.string().nullish() }),
    z.object({ type: z.literal("custom"), instructions: z.string() }),
  ])
  .meta({ id: "ReviewTarget" });
export type ReviewTargetWire = z.infer<typeof reviewTarget>;

export const reviewStartParams = z.object({
  threadId,
  target: reviewTarget,
  delivery: z.enum(["inline"]).nullish(),
});

export const reviewStartResponse = z.object({ turn, reviewThreadId: z.string() });

export const threadCompactStartParams = z.object({ threadId });
