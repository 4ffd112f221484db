/**
 * MCP and configuration methods of Codex 0.169 (reference schema-169-experimental): calling a
 * thread's MCP server tool or reading its resource directly, the model providers and what they
 * can do, the managed requirements, the feature flags; and the notifications that go with them
 * (server startup progress, warnings about the configuration).
 */
import { z } from "zod";
import { askForApproval, sandboxMode } from "./common.js";
import { lazy, method } from "./method-spec.js";

const jsonObject = lazy(() => z.record(z.string(), z.unknown()));
/** 0.171: the execution environment whose registration of the server is meant (mcp-environment.ts). */
export const environmentId = lazy(() => z.string().nullish());

export const mcpServerToolCallParams = lazy(() =>
  z.object({
    threadId: z.string(),
    server: z.string(),
    tool: z.string(),
    /** The tool's arguments: a JSON object (null or absent: none). */
    arguments: jsonObject().nullish(),
    _meta: z.unknown().optional(),
    environmentId: environmentId(),
  }),
);

/** The server's CallToolResult, passed on as it answered. */
export const mcpServerToolCallResponse = lazy(() =>
  z.object({
    content: z.array(z.unknown()),
    structuredContent: z.unknown().optional(),
    isError: z.boolean().nullish(),
    _meta: z.unknown().optional(),
  }),
);

export const mcpResourceReadParams = lazy(() =>
  z.object({
    /** The thread whose servers to ask; absent: the server as the configuration declares it. */
    threadId: z.string().nullish(),
    server: z.string(),
    uri: z.string(),
    environmentId: environmentId(),
  }),
);

const resourceContent = lazy(() =>
  z
    .union([
      z.object({
        uri: z.string(),
        mimeType: z.string().nullish(),
        text: z.string(),
        _meta: z.unknown().optional(),
      }),
      z.object({
        uri: z.string(),
        mimeType: z.string().nullish(),
        blob: z.string(),
        _meta: z.unknown().optional(),
      }),
    ])
    .meta({ id: "ResourceContent" }),
);

export const mcpResourceReadResponse = lazy(() => z.object({ contents: z.array(resourceContent()) }));

const gatewayAuth = lazy(() =>
  z
    .union([
      z.object({ mode: z.literal("none") }),
      z.object({ mode: z.literal("environmentVariable"), envKey: z.string() }),
      z.object({ mode: z.literal("externallyConfigured"), envKey: z.string().nullish() }),
    ])
    .meta({ id: "GatewayAuth" }),
);

const providerSettings = lazy(() =>
  z
    .union([
      z.object({ type: z.literal("openai") }),
      z.object({ type: z.literal("customGateway"), auth: gatewayAuth() }),
    ])
    .meta({ id: "ProviderSettings" }),
);

const modelProviderSummary = lazy(() =>
  z
    .object({
      id: z.string(),
      name: z.string(),
      baseUrl: z.string().nullish(),
      settings: providerSettings(),
      canEdit: z.boolean(),
    })
    .meta({ id: "ModelProviderSummary" }),
);

export const modelProviderListResponse = lazy(() =>
  z.object({
    data: z.array(modelProviderSummary()),
    defaultProviderId: z.string(),
    canChangeDefault: z.boolean(),
  }),
);

export const modelProviderCapabilitiesResponse = lazy(() =>
  z.object({
    webSearch: z.boolean(),
    imageGeneration: z.boolean(),
  }),
);

/** The operator's requirements.toml (Codex's ConfigRequirements: the fields tscodex enforces); null: none. */
export const configRequirementsReadResponse = lazy(() =>
  z.object({
    requirements: z
      .object({
        allowedSandboxModes: z.array(sandboxMode).nullable(),
        allowedApprovalPolicies: z.array(askForApproval).nullable(),
        allowedPermissionProfiles: z.record(z.string(), z.boolean()).nullable(),
      })
      .meta({ id: "ConfigRequirements" })
      .nullable(),
  }),
);

export const experimentalFeatureStage = lazy(() =>
  z
    .enum(["beta", "underDevelopment", "stable", "deprecated", "removed"])
    .meta({ id: "ExperimentalFeatureStage" }),
);

const experimentalFeature = lazy(() =>
  z
    .object({
      name: z.string(),
      stage: experimentalFeatureStage(),
      displayName: z.string().nullish(),
      description: z.string().nullish(),
      announcement: z.string().nullish(),
      enabled: z.boolean(),
      defaultEnabled: z.boolean(),
    })
    .meta({ id: "ExperimentalFeature" }),
);

export const experimentalFeatureListParams = lazy(() =>
  z.object({
    cursor: z.string().nullish(),
    limit: z.number().int().nonnegative().nullish(),
    threadId: z.string().nullish(),
  }),
);

export const experimentalFeatureListResponse = lazy(() =>
  z.object({
    data: z.array(experimentalFeature()),
    nextCursor: z.string().nullable(),
  }),
);

/** `mcpServer/startupStatus/updated`: one configured server of a thread changed state. */
export const mcpServerStatusUpdated = lazy(() =>
  z.object({
    threadId: z.string().nullish(),
    name: z.string(),
    status: z.enum(["starting", "ready", "failed", "cancelled"]),
    error: z.string().nullish(),
    /** 0.171: the registration's environment; null, as tscodex's servers are thread-wide. */
    environmentId: z.string().nullish(),
  }),
);

export const warningNotification = lazy(() =>
  z.object({ threadId: z.string().nullish(), message: z.string() }),
);

const textPosition = lazy(() =>
  z.object({
    line: z.number().int().nonnegative(),
    column: z.number().int().nonnegative(),
  }),
);

export const configWarningNotification = lazy(() =>
  z.object({
    summary: z.string(),
    details: z.string().nullish(),
    path: z.string().nullish(),
    range: z.object({ start: textPosition(), end: textPosition() }).nullish(),
  }),
);

export const deprecationNoticeNotification = lazy(() =>
  z.object({
    summary: z.string(),
    details: z.string().nullish(),
  }),
);

const empty = lazy(() => z.object({}));

/** The client requests above, for the method table (client-requests.ts). */
export const mcpConfigRequests = {
  "mcpServer/tool/call": method(
    mcpServerToolCallParams,
    mcpServerToolCallResponse,
    "McpServerToolCallParams",
    "McpServerToolCallResponse",
  ),
  "mcpServer/resource/read": method(
    mcpResourceReadParams,
    mcpResourceReadResponse,
    "McpResourceReadParams",
    "McpResourceReadResponse",
  ),
  "modelProvider/list": method(
    empty,
    modelProviderListResponse,
    "ModelProviderListParams",
    "ModelProviderListResponse",
  ),
  "modelProvider/capabilities/read": method(
    empty,
    modelProviderCapabilitiesResponse,
    "ModelProviderCapabilitiesReadParams",
    "ModelProviderCapabilitiesReadResponse",
  ),
  // No params in Codex's schema: whatever a client sends is ignored.
  "configRequirements/read": method(
    empty,
    configRequirementsReadResponse,
    null,
    "ConfigRequirementsReadResponse",
  ),
  "experimentalFeature/list": method(
    experimentalFeatureListParams,
    experimentalFeatureListResponse,
    "ExperimentalFeatureListParams",
    "ExperimentalFeatureListResponse",
  ),
};

/** The notifications above, for the notification table (server-messages.ts). */
export const mcpConfigNotifications = {
  "mcpServer/startupStatus/updated": {
    params: mcpServerStatusUpdated(),
    name: "McpServerStatusUpdatedNotification",
  },
  warning: { params: warningNotification(), name: "WarningNotification" },
  configWarning: { params: configWarningNotification(), name: "ConfigWarningNotification" },
  deprecationNotice: { params: deprecationNoticeNotification(), name: "DeprecationNoticeNotification" },
};
