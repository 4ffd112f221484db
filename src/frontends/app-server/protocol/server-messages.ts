/**
 * What the server sends unasked: notifications (thread, turn and item progress) and requests the
 * client must answer (approvals, client tool calls), each with its Codex type name for
 * `generate-json-schema`. The event mapper builds notifications typed by these schemas.
 */
import { z } from "zod";
import { autoReviewNotifications } from "./auto-review-messages.js";
import { commandExecNotifications } from "./command-exec-requests.js";
import {
  commandAction,
  dynamicToolContentItem,
  fileUpdateChange,
  thread,
  threadItem,
  threadSettings,
  threadStatus,
  threadTokenUsage,
  turn,
  turnError,
  turnPlanStep,
} from "./common.js";
import { fsNotifications } from "./fs-requests.js";
import { fuzzySearchNotifications } from "./fuzzy-search-requests.js";
import { threadGoal } from "./goal-requests.js";
import { hookRunSummary } from "./hooks-requests.js";
import { mcpConfigNotifications } from "./mcp-config-requests.js";

const inTurn = { threadId: z.string(), turnId: z.string() };
const delta = z.object({ ...inTurn, itemId: z.string(), delta: z.string() });

function notification<P extends z.ZodType>(params: P, name: string) {
  return { params, name };
}

/** Every notification the server sends, by method. */
export const serverNotifications = {
  error: notification(z.object({ error: turnError, willRetry: z.boolean(), ...inTurn }), "ErrorNotification"),
  "thread/started": notification(z.object({ thread }), "ThreadStartedNotification"),
  "thread/archived": notification(z.object({ threadId: z.string() }), "ThreadArchivedNotification"),
  "thread/deleted": notification(z.object({ threadId: z.string() }), "ThreadDeletedNotification"),
  "thread/closed": notification(z.object({ threadId: z.string() }), "ThreadClosedNotification"),
  "thread/unarchived": notification(z.object({ threadId: z.string() }), "ThreadUnarchivedNotification"),
  "thread/reverted": notification(z.object({ threadId: z.string() }), "ThreadRevertedNotification"),
  "thread/status/changed": notification(
    z.object({ threadId: z.string(), status: threadStatus }),
    "ThreadStatusChangedNotification",
  ),
  "thread/settings/updated": notification(
    z.object({ threadId: z.string(), threadSettings }),
    "ThreadSettingsUpdatedNotification",
  ),
  "serverRequest/resolved": notification(
    z.object({ threadId: z.string(), requestId: z.union([z.string(), z.number().int()]) }),
    "ServerRequestResolvedNotification",
  ),
  "thread/name/updated": notification(
    z.object({ threadId: z.string(), threadName: z.string().nullable() }),
    "ThreadNameUpdatedNotification",
  ),
  "thread/goal/updated": notification(
    z.object({ threadId: z.string(), turnId: z.string().nullable(), goal: z.lazy(threadGoal) }),
    "ThreadGoalUpdatedNotification",
  ),
  "thread/goal/cleared": notification(z.object({ threadId: z.string() }), "ThreadGoalClearedNotification"),
  /** The API key in force changed (account/login/start, account/logout). */
  "account/updated": notification(
    z.object({ authMode: z.literal("apikey").nullable(), planType: z.null() }),
    "AccountUpdatedNotification",
  ),
  /** A login ended; an API-key login ends within its request (no `loginId`). */
  "account/login/completed": notification(
    z.object({ loginId: z.string().nullable(), success: z.boolean(), error: z.string().nullable() }),
    "AccountLoginCompletedNotification",
  ),
  "thread/tokenUsage/updated": notification(
    z.object({ ...inTurn, tokenUsage: threadTokenUsage }),
    "ThreadTokenUsageUpdatedNotification",
  ),
  "thread/compacted": notification(z.object(inTurn), "ContextCompactedNotification"),
  "turn/started": notification(z.object({ threadId: z.string(), turn }), "TurnStartedNotification"),
  "turn/completed": notification(z.object({ threadId: z.string(), turn }), "TurnCompletedNotification"),
  "turn/diff/updated": notification(z.object({ ...inTurn, diff: z.string() }), "TurnDiffUpdatedNotification"),
  "turn/plan/updated": notification(
    z.object({ ...inTurn, explanation: z.string().nullable(), plan: z.array(turnPlanStep) }),
    "TurnPlanUpdatedNotification",
  ),
  "item/started": notification(
    // startedAtMs / completedAtMs: required since 0.169 (when the core saw the item start / complete).
    z.object({ ...inTurn, item: threadItem, startedAtMs: z.number().int() }),
    "ItemStartedNotification",
  ),
  "item/completed": notification(
    z.object({ ...inTurn, item: threadItem, completedAtMs: z.number().int() }),
    "ItemCompletedNotification",
  ),
  "item/agentMessage/delta": notification(delta, "AgentMessageDeltaNotification"),
  "item/plan/delta": notification(delta, "PlanDeltaNotification"),
  "item/reasoning/summaryTextDelta": notification(
    delta.extend({ summaryIndex: z.number().int() }),
    "ReasoningSummaryTextDeltaNotification",
  ),
  "item/reasoning/summaryPartAdded": notification(
    z.object({ ...inTurn, itemId: z.string(), summaryIndex: z.number().int() }),
    "ReasoningSummaryPartAddedNotification",
  ),
  "item/reasoning/textDelta": notification(
    delta.extend({ contentIndex: z.number().int() }),
    "ReasoningTextDeltaNotification",
  ),
  "item/commandExecution/outputDelta": notification(delta, "CommandExecutionOutputDeltaNotification"),
  "item/fileChange/outputDelta": notification(delta, "FileChangeOutputDeltaNotification"),
  // 0.171: the changes an apply_patch call describes so far, while the model writes it.
  "item/fileChange/patchUpdated": notification(
    z.object({ ...inTurn, itemId: z.string(), changes: z.array(fileUpdateChange) }),
    "FileChangePatchUpdatedNotification",
  ),
  "item/mcpToolCall/progress": notification(
    z.object({ ...inTurn, itemId: z.string(), message: z.string() }),
    "McpToolCallProgressNotification",
  ),
  "hook/started": notification(
    z.object({ threadId: z.string(), turnId: z.string().nullable(), run: hookRunSummary() }),
    "HookStartedNotification",
  ),
  "hook/completed": notification(
    z.object({ threadId: z.string(), turnId: z.string().nullable(), run: hookRunSummary() }),
    "HookCompletedNotification",
  ),
  /** The skills a thread would find changed (a skills/config/write or skills/extraRoots/set). */
  "skills/changed": notification(z.object({}), "SkillsChangedNotification"),
  "mcpServer/oauthLogin/completed": notification(
    z.object({ name: z.string(), success: z.boolean(), error: z.string().nullish() }),
    "McpServerOauthLoginCompletedNotification",
  ),
  ...commandExecNotifications,
  ...autoReviewNotifications,
  ...fsNotifications,
  ...fuzzySearchNotifications,
  ...mcpConfigNotifications,
};

export type NotificationMethod = keyof typeof serverNotifications;
export type NotificationParams<M extends NotificationMethod> = z.input<
  (typeof serverNotifications)[M]["params"]
>;
/** One notification, typed by its method. */
export type ServerNotification = {
  [M in NotificationMethod]: { method: M; params: NotificationParams<M> };
}[NotificationMethod];

const approvalDecision = z.enum(["accept", "acceptForSession", "decline", "cancel"]);
const networkApprovalContext = z.object({
  host: z.string(),
  protocol: z.enum(["http", "https", "socks5Tcp", "socks5Udp"]),
});
const networkPolicyAmendment = z.object({ host: z.string(), action: z.enum(["allow", "deny"]) });

/** Every request the server sends the client, by method: params, and the result it expects. */
const v2ServerRequests = {
  "item/commandExecution/requestApproval": {
    params: z.object({
      ...inTurn,
      itemId: z.string(),
      startedAtMs: z.number().int(),
      reason: z.string().nullable(),
      command: z.string().nullable(),
      cwd: z.string().nullable(),
      commandActions: z.array(commandAction).nullable(),
      proposedExecpolicyAmendment: z.array(z.string()).nullable(),
      /** 0.171: set when the question is a host the managed proxy blocked. */
      networkApprovalContext: networkApprovalContext.nullish(),
      proposedNetworkPolicyAmendments: z.array(networkPolicyAmendment).nullish(),
    }),
    result: z.object({
      decision: z.union([
        approvalDecision,
        z.object({
          acceptWithExecpolicyAmendment: z.object({ execpolicy_amendment: z.array(z.string()) }),
        }),
        z.object({
          applyNetworkPolicyAmendment: z.object({ network_policy_amendment: networkPolicyAmendment }),
        }),
      ]),
    }),
    paramsName: "CommandExecutionRequestApprovalParams",
    resultName: "CommandExecutionRequestApprovalResponse",
  },
  "item/fileChange/requestApproval": {
    params: z.object({
      ...inTurn,
      itemId: z.string(),
      startedAtMs: z.number().int(),
      reason: z.string().nullable(),
      grantRoot: z.string().nullable(),
    }),
    result: z.object({ decision: approvalDecision }),
    paramsName: "FileChangeRequestApprovalParams",
    resultName: "FileChangeRequestApprovalResponse",
  },
  "item/tool/requestUserInput": {
    params: z.object({
      ...inTurn,
      itemId: z.string(),
      isBlocking: z.boolean(),
      questions: z.array(
        z.object({
          id: z.string(),
          header: z.string(),
          question: z.string(),
          options: z.array(z.object({ label: z.string(), description: z.string() })).nullable(),
        }),
      ),
    }),
    result: z.object({ answers: z.record(z.string(), z.object({ answers: z.array(z.string()) })) }),
    paramsName: "ToolRequestUserInputParams",
    resultName: "ToolRequestUserInputResponse",
  },
  "item/tool/call": {
    params: z.object({
      ...inTurn,
      callId: z.string(),
      namespace: z.string().nullable(),
      tool: z.string(),
      arguments: z.unknown(),
    }),
    result: z.object({ contentItems: z.array(dynamicToolContentItem), success: z.boolean() }),
    paramsName: "DynamicToolCallParams",
    resultName: "DynamicToolCallResponse",
  },
  "mcpServer/elicitation/request": {
    params: z.object({
      threadId: z.string(),
      turnId: z.string().nullable(),
      serverName: z.string(),
      mode: z.enum(["form", "url"]),
      message: z.string(),
      requestedSchema: z.record(z.string(), z.unknown()).optional(),
      url: z.string().optional(),
      elicitationId: z.string().optional(),
    }),
    result: z.object({
      action: z.enum(["accept", "decline", "cancel"]),
      content: z.record(z.string(), z.unknown()).nullish(),
    }),
    paramsName: "McpServerElicitationRequestParams",
    resultName: "McpServerElicitationRequestResponse",
  },
};

/** v1 (Codex 0.89) decisions: the core's own names. */
const reviewDecision = z.union([
  z.enum(["approved", "approved_for_session", "denied", "abort"]),
  z.object({
    approved_execpolicy_amendment: z.object({ proposed_execpolicy_amendment: z.array(z.string()) }),
  }),
]);
const fileChange = z.union([
  z.object({ type: z.literal("add"), content: z.string() }),
  z.object({ type: z.literal("delete"), content: z.string() }),
  z.object({ type: z.literal("update"), unified_diff: z.string(), move_path: z.string().nullish() }),
]);

/** The questions v1 turns (sendUserTurn, sendUserMessage) ask, as Codex 0.89 asks them. */
const legacyServerRequests = {
  execCommandApproval: {
    params: z.object({
      conversationId: z.string(),
      callId: z.string(),
      command: z.array(z.string()),
      cwd: z.string(),
      reason: z.string().nullable(),
      parsedCmd: z.array(z.record(z.string(), z.unknown())),
    }),
    result: z.object({ decision: reviewDecision }),
    paramsName: "ExecCommandApprovalParams",
    resultName: "ExecCommandApprovalResponse",
  },
  applyPatchApproval: {
    params: z.object({
      conversationId: z.string(),
      callId: z.string(),
      fileChanges: z.record(z.string(), fileChange),
      reason: z.string().nullable(),
      grantRoot: z.string().nullable(),
    }),
    result: z.object({ decision: reviewDecision }),
    paramsName: "ApplyPatchApprovalParams",
    resultName: "ApplyPatchApprovalResponse",
  },
};
export const serverRequests = { ...v2ServerRequests, ...legacyServerRequests };

export type ServerRequestMethod = keyof typeof serverRequests;
export type ServerRequestParams<M extends ServerRequestMethod> = z.input<
  (typeof serverRequests)[M]["params"]
>;
export type ServerRequestResult<M extends ServerRequestMethod> = z.output<
  (typeof serverRequests)[M]["result"]
>;
