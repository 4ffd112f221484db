/**
 * Automatic approval review on the wire (Codex 0.171, [UNSTABLE] there): `item/autoApprovalReview/
 * started|completed` with the reviewed action and the verdict, and `thread/approveGuardianDeniedAction`,
 * by which the client's user overrides a denial.
 */
import { z } from "zod";

const reviewAction = z
  .discriminatedUnion("type", [
    z.object({
      type: z.literal("command"),
      command: z.string(),
      cwd: z.string(),
      source: z.enum(["shell", "unifiedExec"]),
    }),
    z.object({ type: z.literal("applyPatch"), cwd: z.string(), files: z.array(z.string()) }),
    z.object({
      type: z.literal("networkAccess"),
      host: z.string(),
      port: z.number().int(),
      protocol: z.enum(["http", "https", "socks5Tcp", "socks5Udp"]),
      target: z.string(),
    }),
    z.object({
      type: z.literal("mcpToolCall"),
      server: z.string(),
      toolName: z.string(),
      connectorId: z.string().nullable(),
      connectorName: z.string().nullable(),
      toolTitle: z.string().nullable(),
    }),
  ])
  .meta({ id: "GuardianApprovalReviewAction" });

const review = z
  .object({
    status: z.enum(["inProgress", "approved", "denied", "timedOut", "aborted"]),
    riskLevel: z.enum(["low", "medium", "high", "critical"]).nullable(),
    userAuthorization: z.enum(["unknown", "low", "medium", "high"]).nullable(),
    rationale: z.string().nullable(),
  })
  .meta({ id: "GuardianApprovalReview" });

const reviewBase = {
  threadId: z.string(),
  turnId: z.string(),
  reviewId: z.string(),
  targetItemId: z.string().nullable(),
  startedAtMs: z.number().int(),
  action: reviewAction,
  review,
};

export const autoReviewNotifications = {
  "item/autoApprovalReview/started": {
    params: z.object(reviewBase),
    name: "ItemGuardianApprovalReviewStartedNotification",
  },
  "item/autoApprovalReview/completed": {
    params: z.object({ ...reviewBase, completedAtMs: z.number().int(), decisionSource: z.literal("agent") }),
    name: "ItemGuardianApprovalReviewCompletedNotification",
  },
};

/**
 * `thread/approveGuardianDeniedAction {threadId, event}`: `event` is the review the client was told
 * of (Codex: a serialized GuardianAssessmentEvent); its `reviewId` (or `id`) names it.
 */
export const approveDeniedActionParams = () =>
  z.object({
    threadId: z.string(),
    event: z.looseObject({ reviewId: z.string().optional(), id: z.string().optional() }),
  });

export type ReviewActionWire = z.infer<typeof reviewAction>;
export type ReviewWire = z.infer<typeof review>;
