/**
 * `update_plan`: the model records its step list; clients render it from the `plan_update`
 * event. Nothing runs, so the answer is always `Plan updated` (reference section 3).
 */
import { z } from "zod";
import { defineFunctionTool, looseEnum, withSerde } from "../define-tool.js";
import type { ToolDefinition } from "../types.js";

// Rust names (UpdatePlanArgs, PlanItemArg) appear in serde messages such as
// "expected struct PlanItemArg"; status is validated but shown as a plain string.
const planItem = withSerde(
  z.object({
    step: z.string(),
    status: looseEnum(["pending", "in_progress", "completed"]).describe(
      "Where this step stands: pending, in_progress or completed.",
    ),
  }),
  { rust: "PlanItemArg" },
);

const parameters = withSerde(
  z.object({
    explanation: z.string().optional(),
    plan: z
      .array(planItem)
      .describe("Every step of the plan, in order. Keep at most one step in_progress at a time."),
  }),
  { rust: "UpdatePlanArgs" },
);

const DESCRIPTION =
  "Record or revise your plan for the current task as a short list of steps, each pending, in_progress " +
  "or completed. Send the whole list every time; add an explanation when the plan changes direction.";

/** The update_plan tool. */
export function updatePlanTool(): ToolDefinition {
  return defineFunctionTool({
    name: "update_plan",
    description: DESCRIPTION,
    parameters,
    supportsParallel: false,
    handle: async (args, inv) => {
      inv.turn.emit({ type: "plan_update", explanation: args.explanation ?? null, plan: args.plan });
      return { content: "Plan updated" };
    },
  });
}
