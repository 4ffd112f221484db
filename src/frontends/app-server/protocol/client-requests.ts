/**
 * The client → server methods we serve: for each, the schema its params are validated with and
 * the schema of its result, plus the type names `generate-json-schema` files them under (Codex's
 * names, so a client generated from Codex's schema finds the same files).
 * Params are lenient where Codex's are: unknown fields are ignored, `null` means "not given".
 */

import { z } from "zod";
import { accountRequests } from "./account-requests.js";
import { approveDeniedActionParams } from "./auto-review-messages.js";
import {
  collaborationModeListResponse,
  collaborationModeParam,
  threadShellCommandParams,
} from "./collaboration-requests.js";
import { commandExecRequests } from "./command-exec-requests.js";
import {
  approvalsReviewer,
  askForApproval,
  dynamicToolSpec,
  reasoningEffort,
  reasoningSummary,
  sandboxPolicy,
  thread,
  threadOpenedResponse,
  threadSettingsParams,
  turn,
  userInput,
} from "./common.js";

import { fsRequests } from "./fs-requests.js";
import { fuzzySearchRequests } from "./fuzzy-search-requests.js";
import { threadGoalRequests } from "./goal-requests.js";
import { hooksListParams, hooksListResponse } from "./hooks-requests.js";
import { initializeRequest } from "./initialize-request.js";
import { environmentId, mcpConfigRequests } from "./mcp-config-requests.js";
import { lazy, method } from "./method-spec.js";
import { reviewStartParams, reviewStartResponse, threadCompactStartParams } from "./review-requests.js";
import {
  skillsConfigWriteParams,
  skillsConfigWriteResponse,
  skillsExtraRootsSetParams,
  skillsExtraRootsSetResponse,
  skillsListParams,
  skillsListResponse,
} from "./skills-requests.js";
import {
  threadInjectItemsParams,
  threadItemsListParams,
  threadItemsListResponse,
  threadMetadataUpdateParams,
  threadOnlyResponse,
  threadRevertParams,
  threadSetNameParams,
} from "./thread-metadata-requests.js";
import { legacyClientRequests } from "./v1-requests.js";

const threadId = lazy(() => z.string());
/** Beyond Codex 0.89: client tools (0.169's experimental `dynamicTools`). */
const dynamicTools = lazy(() => z.array(dynamicToolSpec).nullish());

const threadStartParams = lazy(() =>
  z.object({
    ...threadSettingsParams,
    dynamicTools: dynamicTools(),
    experimentalRawEvents: z.boolean().optional(),
    /** Codex's ThreadStartSource: "clear" when the thread replaces one the user cleared. */
    sessionStartSource: z.enum(["startup", "clear"]).nullish(),
  }),
);

const threadResumeParams = lazy(() =>
  z.object({
    threadId: threadId(),
    /** A rollout path; wins over threadId when given. */
    path: z.string().nullish(),
    ...threadSettingsParams,
    /** Beyond Codex: re-declare the client tools (they are kept in the rollout too). */
    dynamicTools: dynamicTools(),
    /** Answer without the turns (the client pages them with thread/turns/list). */
    excludeTurns: z.boolean().nullish(),
  }),
);

const threadForkParams = lazy(() =>
  z.object({ threadId: threadId(), path: z.string().nullish(), ...threadSettingsParams }),
);

const paging = lazy(() => ({
  cursor: z.string().nullish(),
  limit: z.number().int().nonnegative().nullish(),
}));

const threadListParams = lazy(() =>
  z.object({
    ...paging(),
    archived: z.boolean().nullish(),
    modelProviders: z.array(z.string()).nullish(),
    sortKey: z.enum(["created_at", "updated_at"]).nullish(),
    /** 0.169: only threads started in this directory (or one of these). */
    cwd: z.union([z.string(), z.array(z.string())]).nullish(),
    /** 0.171: only these threads (up to 100; an empty list matches none). */
    includedThreadIds: z.array(z.string()).max(100).nullish(),
  }),
);
const threadListResponse = lazy(() => z.object({ data: z.array(thread), nextCursor: z.string().nullable() }));

const threadLoadedListResponse = lazy(() =>
  z.object({ data: z.array(z.string()), nextCursor: z.string().nullable() }),
);

const threadReadParams = lazy(() => z.object({ threadId: threadId(), includeTurns: z.boolean().optional() }));
const threadOnly = lazy(() => z.object({ thread }));

const threadRollbackParams = lazy(() =>
  z.object({ threadId: threadId(), numTurns: z.number().int().nonnegative() }),
);

const turnStartParams = lazy(() =>
  z.object({
    threadId: threadId(),
    input: z.array(userInput),
    cwd: z.string().nullish(),
    approvalPolicy: askForApproval.nullish(),
    /** Who answers approval questions from this turn on: the client, or the reviewer model. */
    approvalsReviewer: approvalsReviewer.nullish(),
    sandboxPolicy: sandboxPolicy.nullish(),
    /** 0.171 (experimental): a permission profile id from this turn on; never with `sandboxPolicy`. */
    permissions: z.string().nullish(),
    model: z.string().nullish(),
    effort: reasoningEffort.nullish(),
    summary: reasoningSummary.nullish(),
    /** JSON Schema the final message must match. */
    outputSchema: z.record(z.string(), z.unknown()).nullish(),
    /** Plan or default mode from this turn on; its model and effort win over the fields above. */
    collaborationMode: collaborationModeParam().nullish(),
    /** Beyond Codex: replaces the thread's client tools from this turn on (`[]` clears them). */
    dynamicTools: dynamicTools(),
    /** 0.169: the client's id for this input; tscodex makes a resent turn/start with it start no second turn. */
    clientUserMessageId: z.string().min(1).max(255).nullish(),
  }),
);
const turnOnly = lazy(() => z.object({ turn }));

const turnInterruptParams = lazy(() => z.object({ threadId: threadId(), turnId: z.string() }));

/** turn/steer: input for the running turn, which must be `expectedTurnId`. */
const turnSteerParams = lazy(() =>
  z.object({
    threadId: threadId(),
    expectedTurnId: z.string(),
    input: z.array(userInput),
    clientUserMessageId: z.string().nullish(),
    additionalContext: z.record(z.string(), z.unknown()).nullish(),
    responsesapiClientMetadata: z.record(z.string(), z.string()).nullish(),
    responsesapiClientMetadataPatch: z.record(z.string(), z.string()).nullish(),
  }),
);

const reasoningEffortOption = lazy(() => z.object({ reasoningEffort, description: z.string() }));
const model = lazy(() =>
  z
    .object({
      id: z.string(),
      model: z.string(),
      displayName: z.string(),
      description: z.string(),
      supportedReasoningEfforts: z.array(reasoningEffortOption()),
      defaultReasoningEffort: reasoningEffort,
      isDefault: z.boolean(),
      // 0.171: whether pickers leave it out (tscodex lists only models it means to offer).
      hidden: z.boolean(),
    })
    .meta({ id: "Model" }),
);
const modelListResponse = lazy(() => z.object({ data: z.array(model()), nextCursor: z.string().nullable() }));

const mcpTool = lazy(() =>
  z.object({
    name: z.string(),
    title: z.string().nullish(),
    description: z.string().nullish(),
    inputSchema: z.unknown(),
  }),
);
const mcpServerStatus = lazy(() =>
  z
    .object({
      name: z.string(),
      tools: z.record(z.string(), mcpTool()),
      resources: z.array(z.record(z.string(), z.unknown())),
      resourceTemplates: z.array(z.record(z.string(), z.unknown())),
      authStatus: z.enum(["unsupported", "notLoggedIn", "bearerToken", "oAuth"]),
      /** 0.171: the environment whose registration this is (null: thread-wide). */
      environmentId: z.string().nullish(),
    })
    .meta({ id: "McpServerStatus" }),
);
const mcpServerStatusResponse = lazy(() =>
  z.object({
    data: z.array(mcpServerStatus()),
    nextCursor: z.string().nullable(),
  }),
);

const layerMetadata = lazy(() =>
  z
    .object({
      name: z.object({ type: z.literal("user"), file: z.string() }),
      version: z.string(),
    })
    .meta({ id: "ConfigLayerMetadata" }),
);
const configReadParams = lazy(() =>
  z.object({ cwd: z.string().nullish(), includeLayers: z.boolean().optional() }),
);
const configReadResponse = lazy(() =>
  z.object({
    config: z.record(z.string(), z.unknown()),
    origins: z.record(z.string(), layerMetadata()),
    layers: z.array(layerMetadata().extend({ config: z.unknown() })).nullish(),
  }),
);

const mergeStrategy = lazy(() => z.enum(["replace", "upsert"]).meta({ id: "MergeStrategy" }));
const configEdit = lazy(() =>
  z.object({ keyPath: z.string().min(1), value: z.unknown(), mergeStrategy: mergeStrategy() }),
);
const configValueWriteParams = lazy(() =>
  configEdit().extend({
    filePath: z.string().nullish(),
    expectedVersion: z.string().nullish(),
  }),
);
const configBatchWriteParams = lazy(() =>
  z.object({
    edits: z.array(configEdit()),
    filePath: z.string().nullish(),
    expectedVersion: z.string().nullish(),
  }),
);
const configWriteResponse = lazy(() =>
  z.object({
    status: z.enum(["ok", "okOverridden"]),
    version: z.string(),
    filePath: z.string(),
    overriddenMetadata: z.unknown().nullable(),
  }),
);

const empty = lazy(() => z.object({}));

const threadTurnsListParams = lazy(() =>
  z.object({
    threadId: threadId(),
    ...paging(),
    sortDirection: z.enum(["asc", "desc"]).nullish(),
    itemsView: z.enum(["notLoaded", "summary", "full"]).nullish(),
  }),
);
const threadTurnsListResponse = lazy(() =>
  z.object({
    data: z.array(turn.extend({ itemsView: z.enum(["notLoaded", "summary", "full"]).optional() })),
    nextCursor: z.string().nullable(),
    backwardsCursor: z.string().nullable(),
  }),
);

/** Every client request the server answers, by method name. */
export const clientRequests = {
  initialize: initializeRequest,
  "thread/start": method(
    threadStartParams,
    () => threadOpenedResponse,
    "ThreadStartParams",
    "ThreadStartResponse",
  ),
  "thread/resume": method(
    threadResumeParams,
    () => threadOpenedResponse,
    "ThreadResumeParams",
    "ThreadResumeResponse",
  ),
  "thread/fork": method(
    threadForkParams,
    () => threadOpenedResponse,
    "ThreadForkParams",
    "ThreadForkResponse",
  ),
  "thread/archive": method(
    () => z.object({ threadId: threadId() }),
    empty,
    "ThreadArchiveParams",
    "ThreadArchiveResponse",
  ),
  "thread/rollback": method(
    threadRollbackParams,
    threadOnly,
    "ThreadRollbackParams",
    "ThreadRollbackResponse",
  ),
  "thread/delete": method(
    () => z.object({ threadId: threadId() }),
    empty,
    "ThreadDeleteParams",
    "ThreadDeleteResponse",
  ),
  "thread/unsubscribe": method(
    () => z.object({ threadId: threadId() }),
    () => z.object({ status: z.enum(["notLoaded", "notSubscribed", "unsubscribed"]) }),
    "ThreadUnsubscribeParams",
    "ThreadUnsubscribeResponse",
  ),
  "thread/turns/list": method(
    threadTurnsListParams,
    threadTurnsListResponse,
    "ThreadTurnsListParams",
    "ThreadTurnsListResponse",
  ),
  "thread/list": method(threadListParams, threadListResponse, "ThreadListParams", "ThreadListResponse"),
  "thread/loaded/list": method(
    () => z.object(paging()),
    threadLoadedListResponse,
    "ThreadLoadedListParams",
    "ThreadLoadedListResponse",
  ),
  "thread/read": method(threadReadParams, threadOnly, "ThreadReadParams", "ThreadReadResponse"),
  "turn/start": method(turnStartParams, turnOnly, "TurnStartParams", "TurnStartResponse"),
  "turn/interrupt": method(turnInterruptParams, empty, "TurnInterruptParams", "TurnInterruptResponse"),
  "turn/steer": method(
    turnSteerParams,
    () => z.object({ turnId: z.string() }),
    "TurnSteerParams",
    "TurnSteerResponse",
  ),
  "model/list": method(() => z.object(paging()), modelListResponse, "ModelListParams", "ModelListResponse"),
  "mcpServerStatus/list": method(
    () =>
      z.object({
        ...paging(),
        /** 0.171: one server's registration in an environment (accepted: tscodex has the local one). */
        environmentId: environmentId(),
      }),
    mcpServerStatusResponse,
    "ListMcpServerStatusParams",
    "ListMcpServerStatusResponse",
  ),
  "config/mcpServer/reload": method(empty, empty, null, "McpServerRefreshResponse"),
  "mcpServer/oauth/login": method(
    () =>
      z.object({
        name: z.string(),
        scopes: z.array(z.string()).nullish(),
        timeoutSecs: z.number().int().positive().nullish(),
        environmentId: environmentId(),
      }),
    () => z.object({ authorizationUrl: z.string() }),
    "McpServerOauthLoginParams",
    "McpServerOauthLoginResponse",
  ),
  "config/read": method(configReadParams, configReadResponse, "ConfigReadParams", "ConfigReadResponse"),
  "config/value/write": method(
    configValueWriteParams,
    configWriteResponse,
    "ConfigValueWriteParams",
    "ConfigWriteResponse",
  ),
  "config/batchWrite": method(
    configBatchWriteParams,
    configWriteResponse,
    "ConfigBatchWriteParams",
    "ConfigWriteResponse",
  ),
  "hooks/list": method(hooksListParams, hooksListResponse, "HooksListParams", "HooksListResponse"),
  "skills/list": method(skillsListParams, skillsListResponse, "SkillsListParams", "SkillsListResponse"),
  "skills/config/write": method(
    skillsConfigWriteParams,
    skillsConfigWriteResponse,
    "SkillsConfigWriteParams",
    "SkillsConfigWriteResponse",
  ),
  "skills/extraRoots/set": method(
    skillsExtraRootsSetParams,
    skillsExtraRootsSetResponse,
    "SkillsExtraRootsSetParams",
    "SkillsExtraRootsSetResponse",
  ),
  "thread/name/set": method(threadSetNameParams, empty, "ThreadSetNameParams", "ThreadSetNameResponse"),
  "thread/approveGuardianDeniedAction": method(
    lazy(approveDeniedActionParams),
    empty,
    "ThreadApproveGuardianDeniedActionParams",
    "ThreadApproveGuardianDeniedActionResponse",
  ),
  "thread/metadata/update": method(
    threadMetadataUpdateParams,
    threadOnlyResponse,
    "ThreadMetadataUpdateParams",
    "ThreadMetadataUpdateResponse",
  ),
  "thread/unarchive": method(
    () => z.object({ threadId: threadId() }),
    threadOnlyResponse,
    "ThreadUnarchiveParams",
    "ThreadUnarchiveResponse",
  ),
  "thread/revert": method(
    threadRevertParams,
    threadOnlyResponse,
    "ThreadRevertParams",
    "ThreadRevertResponse",
  ),
  "thread/items/list": method(
    threadItemsListParams,
    threadItemsListResponse,
    "ThreadItemsListParams",
    "ThreadItemsListResponse",
  ),
  "thread/inject_items": method(
    threadInjectItemsParams,
    empty,
    "ThreadInjectItemsParams",
    "ThreadInjectItemsResponse",
  ),
  "review/start": method(reviewStartParams, reviewStartResponse, "ReviewStartParams", "ReviewStartResponse"),
  "thread/compact/start": method(
    threadCompactStartParams,
    empty,
    "ThreadCompactStartParams",
    "ThreadCompactStartResponse",
  ),
  "collaborationMode/list": method(
    () => z.object({}),
    collaborationModeListResponse,
    "CollaborationModeListParams",
    "CollaborationModeListResponse",
  ),
  "thread/shellCommand": method(
    threadShellCommandParams,
    empty,
    "ThreadShellCommandParams",
    "ThreadShellCommandResponse",
  ),
  ...commandExecRequests,
  ...fsRequests,
  ...fuzzySearchRequests,
  ...mcpConfigRequests,
  ...accountRequests,
  ...threadGoalRequests,
  ...legacyClientRequests,
};

export type ClientMethod = keyof typeof clientRequests;
export type ParamsOf<M extends ClientMethod> = z.output<ReturnType<(typeof clientRequests)[M]["params"]>>;
export type ResultOf<M extends ClientMethod> = z.input<ReturnType<(typeof clientRequests)[M]["result"]>>;

export const CLIENT_METHODS = Object.keys(clientRequests) as ClientMethod[];

export function isClientMethod(name: string): name is ClientMethod {
  return Object.hasOwn(clientRequests, name);
}

/** Client → server notifications we understand (others are ignored, as notifications get no reply). */
export const clientNotifications = { initialized: z.object({}).optional() };
