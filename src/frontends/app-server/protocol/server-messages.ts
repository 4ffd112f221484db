/**
 * What the server sends unasked: notifications (thread, turn and item progress) and requests the
 * client must answer (approvals, client tool calls), each with its Codex type name for
 * `generate-json-schema`. The event mapper builds notifications typed by these schemas.
 */
import { z } from "zod";
import {
  commandAction,
  dynamicToolContentItem,
  thread,
  threadItem,
  threadTokenUsage,
  turn,
  turnError,
  turnPlanStep,
} from "./common.js";

const inTurn = { threadId: z.string(), turnId: z.string() };
const delta = z.object({ ...inTurn, itemId: z.string(), delta: z.string() });

function notification<P extends z.ZodType>(params: P, name: string) {
  return { params, name };
}

/** Every notification the server sends, by method. */
export const serverNotifications = {
  error: notification(z.object({ error: turnError, willRetry: z.boolean(), ...inTurn }), "ErrorNotification"),
  "thread/started": notification(z.object({ thread }), "ThreadStartedNotification"),
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
    // startedAtMs: 0.169's field, sent with client tool calls (which only 0.169 has).
    z.object({ ...inTurn, item: threadItem, startedAtMs: z.number().int().optional() }),
    "ItemStartedNotification",
  ),
  "item/completed": notification(
    z.object({ ...inTurn, item: threadItem, completedAtMs: z.number().int().optional() }),
    "ItemCompletedNotification",
  ),
  "item/agentMessage/delta": notification(delta, "AgentMessageDeltaNotification"),
  "item/commandExecution/outputDelta": notification(delta, "CommandExecutionOutputDeltaNotification"),
  "item/fileChange/outputDelta": notification(delta, "FileChangeOutputDeltaNotification"),
  "mcpServer/oauthLogin/completed": notification(
    z.object({ name: z.string(), success: z.boolean(), error: z.string().nullish() }),
    "McpServerOauthLoginCompletedNotification",
  ),
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

/** Every request the server sends the client, by method: params, and the result it expects. */
export const serverRequests = {
  "item/commandExecution/requestApproval": {
    params: z.object({
      ...inTurn,
      itemId: z.string(),
      reason: z.string().nullable(),
      command: z.string().nullable(),
      cwd: z.string().nullable(),
      commandActions: z.array(commandAction).nullable(),
      proposedExecpolicyAmendment: z.array(z.string()).nullable(),
    }),
    result: z.object({
      decision: z.union([
        approvalDecision,
        z.object({
          acceptWithExecpolicyAmendment: z.object({ execpolicy_amendment: z.array(z.string()) }),
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

export type ServerRequestMethod = keyof typeof serverRequests;
export type ServerRequestParams<M extends ServerRequestMethod> = z.input<
  (typeof serverRequests)[M]["params"]
>;
export type ServerRequestResult<M extends ServerRequestMethod> = z.output<
  (typeof serverRequests)[M]["result"]
>;
