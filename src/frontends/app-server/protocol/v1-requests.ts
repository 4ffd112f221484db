/**
 * The v1 client methods as Codex 0.89 serves them (reference/app-server schema-089/v1):
 * conversations, their listeners, turns and the auth status, for older clients such as
 * codex-app-server-proxy. v1 spells sandbox policies in kebab-case and input items as
 * `{type, data}`; both are translated to the v2 vocabulary before the shared code sees them.
 */
import { z } from "zod";
import {
  askForApproval,
  reasoningEffort,
  reasoningSummary,
  sandboxMode,
  threadSettingsParams,
} from "./common.js";
import { lazy, method } from "./method-spec.js";

const conversationId = lazy(() => z.string());

/** v1's sandbox policy (kebab-case type, snake_case fields). */
export const legacySandboxPolicy = lazy(() =>
  z
    .discriminatedUnion("type", [
      z.object({ type: z.literal("danger-full-access") }),
      z.object({ type: z.literal("read-only") }),
      z.object({
        type: z.literal("external-sandbox"),
        network_access: z.enum(["restricted", "enabled"]).optional(),
      }),
      z.object({
        type: z.literal("workspace-write"),
        writable_roots: z.array(z.string()).optional(),
        network_access: z.boolean().optional(),
        exclude_tmpdir_env_var: z.boolean().optional(),
        exclude_slash_tmp: z.boolean().optional(),
      }),
    ])
    .meta({ id: "V1SandboxPolicy" }),
);
export type LegacySandboxPolicy = z.infer<ReturnType<typeof legacySandboxPolicy>>;

/** v1's input item. */
export const inputItem = lazy(() =>
  z
    .discriminatedUnion("type", [
      z.object({
        type: z.literal("text"),
        data: z.object({ text: z.string(), text_elements: z.array(z.unknown()).optional() }),
      }),
      z.object({ type: z.literal("image"), data: z.object({ image_url: z.string() }) }),
      z.object({ type: z.literal("localImage"), data: z.object({ path: z.string() }) }),
    ])
    .meta({ id: "InputItem" }),
);
export type InputItem = z.infer<ReturnType<typeof inputItem>>;

const newConversationParams = lazy(() =>
  z.object({
    ...threadSettingsParams,
    approvalPolicy: askForApproval.nullish(),
    sandbox: sandboxMode.nullish(),
    profile: z.string().nullish(),
    compactPrompt: z.string().nullish(),
    includeApplyPatchTool: z.boolean().nullish(),
  }),
);
export type NewConversationParams = z.output<ReturnType<typeof newConversationParams>>;

const openedConversation = lazy(() => ({
  conversationId: conversationId(),
  model: z.string(),
  rolloutPath: z.string(),
}));

const conversationSummary = lazy(() =>
  z
    .object({
      conversationId: conversationId(),
      path: z.string(),
      preview: z.string(),
      timestamp: z.string().nullable(),
      updatedAt: z.string().nullable(),
      modelProvider: z.string(),
      cwd: z.string(),
      cliVersion: z.string(),
      source: z.string(),
      gitInfo: z.null(),
    })
    .meta({ id: "ConversationSummary" }),
);

/** One v1 method: params, result (each built on first use) and Codex's type names (all filed under v1/). */
function legacy<P extends z.ZodType, R extends z.ZodType>(
  params: () => P,
  result: () => R,
  paramsName: string | null,
  resultName: string,
) {
  return method(params, result, paramsName, resultName, "v1");
}

const empty = lazy(() => z.object({}));

export const legacyClientRequests = {
  newConversation: legacy(
    newConversationParams,
    () => z.object({ ...openedConversation(), reasoningEffort: reasoningEffort.nullable() }),
    "NewConversationParams",
    "NewConversationResponse",
  ),
  resumeConversation: legacy(
    () =>
      z.object({
        conversationId: conversationId().nullish(),
        path: z.string().nullish(),
        history: z.array(z.unknown()).nullish(),
        overrides: newConversationParams().nullish(),
      }),
    () => z.object({ ...openedConversation(), initialMessages: z.array(z.unknown()).nullable() }),
    "ResumeConversationParams",
    "ResumeConversationResponse",
  ),
  listConversations: legacy(
    () =>
      z.object({
        pageSize: z.number().int().nonnegative().nullish(),
        cursor: z.string().nullish(),
        modelProviders: z.array(z.string()).nullish(),
      }),
    () => z.object({ items: z.array(conversationSummary()), nextCursor: z.string().nullable() }),
    "ListConversationsParams",
    "ListConversationsResponse",
  ),
  addConversationListener: legacy(
    () => z.object({ conversationId: conversationId(), experimentalRawEvents: z.boolean().optional() }),
    () => z.object({ subscriptionId: z.string() }),
    "AddConversationListenerParams",
    "AddConversationSubscriptionResponse",
  ),
  removeConversationListener: legacy(
    () => z.object({ subscriptionId: z.string() }),
    empty,
    "RemoveConversationListenerParams",
    "RemoveConversationSubscriptionResponse",
  ),
  sendUserMessage: legacy(
    () => z.object({ conversationId: conversationId(), items: z.array(inputItem()) }),
    empty,
    "SendUserMessageParams",
    "SendUserMessageResponse",
  ),
  sendUserTurn: legacy(
    () =>
      z.object({
        conversationId: conversationId(),
        items: z.array(inputItem()),
        cwd: z.string(),
        approvalPolicy: askForApproval,
        sandboxPolicy: legacySandboxPolicy(),
        model: z.string(),
        effort: reasoningEffort.nullish(),
        summary: reasoningSummary,
        outputSchema: z.record(z.string(), z.unknown()).nullish(),
      }),
    empty,
    "SendUserTurnParams",
    "SendUserTurnResponse",
  ),
  interruptConversation: legacy(
    () => z.object({ conversationId: conversationId() }),
    () => z.object({ abortReason: z.enum(["interrupted", "replaced", "review_ended"]) }),
    "InterruptConversationParams",
    "InterruptConversationResponse",
  ),
  getAuthStatus: legacy(
    () => z.object({ includeToken: z.boolean().nullish(), refreshToken: z.boolean().nullish() }),
    () =>
      z.object({
        authMethod: z.enum(["apikey", "chatgpt"]).nullable(),
        authToken: z.string().nullable(),
        requiresOpenaiAuth: z.boolean().nullable(),
      }),
    "GetAuthStatusParams",
    "GetAuthStatusResponse",
  ),
};
