/**
 * review/start and thread/compact/start: params and results as Codex 0.169's schema has them.
 * Review delivery is `inline` only (0.169's schema knows no other): the review runs as a turn
 * of the thread itself, so `reviewThreadId` is that thread's id.
 */
import { z } from "zod";
import { turn } from "./common.js";
import { lazy } from "./method-spec.js";

const threadId = lazy(() => z.string());

export const reviewTarget = lazy(() =>
  z
    .discriminatedUnion("type", [
      z.object({ type: z.literal("uncommittedChanges") }),
      z.object({ type: z.literal("baseBranch"), branch: z.string() }),
      z.object({ type: z.literal("commit"), sha: z.string(), title: z.string().nullish() }),
      z.object({ type: z.literal("custom"), instructions: z.string() }),
    ])
    .meta({ id: "ReviewTarget" }),
);
export type ReviewTargetWire = z.infer<ReturnType<typeof reviewTarget>>;

export const reviewStartParams = lazy(() =>
  z.object({
    threadId: threadId(),
    target: reviewTarget(),
    delivery: z.enum(["inline"]).nullish(),
  }),
);

export const reviewStartResponse = lazy(() => z.object({ turn, reviewThreadId: z.string() }));

export const threadCompactStartParams = lazy(() => z.object({ threadId: threadId() }));
