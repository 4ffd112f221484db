/**
 * `thread/goal/set|get|clear` (Codex 0.171): the objective a client gives a thread. The goal is
 * a rollout line in the thread store (JSONL or PostgreSQL), as a thread's name is, so it
 * survives a restart; followers hear `thread/goal/updated` / `thread/goal/cleared`.
 * tscodex keeps and reports the goal but does not yet drive turns by it or charge its budget:
 * `tokensUsed` and `timeUsedSeconds` stay 0.
 */
import type { StoredGoal } from "../../../store/index.js";
import type { ParamsOf, ResultOf } from "../protocol/client-requests.js";
import { RpcError } from "../protocol/jsonrpc.js";
import { requireStored } from "../thread-files.js";
import { checkThreadId } from "../thread-id.js";
import type { HandlerContext } from "./context.js";
import { tellThreadClients } from "./thread-lifecycle.js";
import { record } from "./thread-metadata.js";

type ThreadGoal = ResultOf<"thread/goal/set">["goal"];

async function storedGoal(context: HandlerContext, threadId: string): Promise<StoredGoal | null> {
  return (await requireStored(await context.runtime.threads(), threadId)).goal;
}

function goalView(threadId: string, goal: StoredGoal): ThreadGoal {
  return {
    threadId,
    objective: goal.objective,
    status: goal.status,
    tokenBudget: goal.token_budget,
    tokensUsed: 0,
    timeUsedSeconds: 0,
    createdAt: goal.created_at,
    updatedAt: goal.updated_at,
  };
}

/** Set the goal, or change the one there (absent or null fields keep their value). */
export async function threadGoalSet(
  params: ParamsOf<"thread/goal/set">,
  context: HandlerContext,
): Promise<ResultOf<"thread/goal/set">> {
  checkThreadId(params.threadId);
  const before = await storedGoal(context, params.threadId);
  const objective = params.objective?.trim() ?? before?.objective;
  if (objective === undefined || objective === "")
    throw RpcError.invalidParams("Invalid request: a new goal needs a non-empty objective");
  const now = Math.floor(Date.now() / 1000);
  // A new objective is a new goal; otherwise the goal keeps its start.
  const fresh = before === null || (params.objective != null && params.objective.trim() !== before.objective);
  const goal: StoredGoal = {
    objective,
    status: params.status ?? (fresh ? "active" : (before?.status ?? "active")),
    token_budget: params.tokenBudget !== undefined ? params.tokenBudget : (before?.token_budget ?? null),
    created_at: fresh ? now : (before?.created_at ?? now),
    updated_at: now,
  };
  await record(context, params.threadId, { type: "thread_goal_updated", goal });
  const view = goalView(params.threadId, goal);
  tellThreadClients(context, params.threadId, "thread/goal/updated", {
    threadId: params.threadId,
    turnId: null,
    goal: view,
  });
  return { goal: view };
}

export async function threadGoalGet(
  params: ParamsOf<"thread/goal/get">,
  context: HandlerContext,
): Promise<ResultOf<"thread/goal/get">> {
  checkThreadId(params.threadId);
  const goal = await storedGoal(context, params.threadId);
  return { goal: goal ? goalView(params.threadId, goal) : null };
}

export async function threadGoalClear(
  params: ParamsOf<"thread/goal/clear">,
  context: HandlerContext,
): Promise<ResultOf<"thread/goal/clear">> {
  checkThreadId(params.threadId);
  if ((await storedGoal(context, params.threadId)) === null) return { cleared: false };
  await record(context, params.threadId, { type: "thread_goal_updated", goal: null });
  tellThreadClients(context, params.threadId, "thread/goal/cleared", { threadId: params.threadId });
  return { cleared: true };
}
