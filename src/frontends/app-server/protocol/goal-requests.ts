/**
 * Codex 0.171's thread goals: `thread/goal/set|get|clear`, with the ThreadGoal shape its schema
 * has (times in Unix seconds).
 */
import { z } from "zod";
import { lazy, method } from "./method-spec.js";

export const threadGoalStatus = lazy(() =>
  z.enum(["active", "paused", "blocked", "usageLimited", "budgetLimited", "complete"]),
);
const origin = lazy(() => z.enum(["user", "automatic"]).nullish());

export const threadGoal = lazy(() =>
  z.object({
    threadId: z.string(),
    objective: z.string(),
    status: threadGoalStatus(),
    tokenBudget: z.number().int().nullable(),
    tokensUsed: z.number().int(),
    timeUsedSeconds: z.number().int(),
    createdAt: z.number().int(),
    updatedAt: z.number().int(),
  }),
);

export const threadGoalRequests = {
  "thread/goal/set": method(
    () =>
      z.object({
        threadId: z.string(),
        objective: z.string().nullish(),
        status: threadGoalStatus().nullish(),
        tokenBudget: z.number().int().nullish(),
        origin: origin(),
      }),
    () => z.object({ goal: threadGoal() }),
    "ThreadGoalSetParams",
    "ThreadGoalSetResponse",
  ),
  "thread/goal/get": method(
    () => z.object({ threadId: z.string() }),
    () => z.object({ goal: threadGoal().nullable() }),
    "ThreadGoalGetParams",
    "ThreadGoalGetResponse",
  ),
  "thread/goal/clear": method(
    () => z.object({ threadId: z.string(), origin: origin() }),
    () => z.object({ cleared: z.boolean() }),
    "ThreadGoalClearParams",
    "ThreadGoalClearResponse",
  ),
};
