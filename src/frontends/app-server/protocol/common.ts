/**
 * The app-server's wire vocabulary (Codex's v2 protocol, camelCase): threads, turns, items,
 * policies, token usage and client (dynamic) tools. One zod source serves three purposes:
 * validating what clients send, typing what we send, and `generate-json-schema`. Schemas with a
 * `meta({ id })` become named definitions in the generated JSON Schema, as Codex's do.
 * Shapes follow reference/app-server schema-089 (v2), plus 0.169's dynamicTools.
 */
import { z } from "zod";
import { approvalPolicySchema, granularApprovalSchema, sandboxModeSchema } from "../../../protocol/policy.js";

/** A policy name, or Codex 0.171's granular object (GranularAskForApproval). */
export const askForApproval = z
  .union([approvalPolicySchema, granularApprovalSchema.strict()])
  .meta({ id: "AskForApproval" });
export const sandboxMode = sandboxModeSchema.meta({ id: "SandboxMode" });

export const reasoningEffort = z
  .enum(["none", "minimal", "low", "medium", "high", "xhigh"])
  .meta({ id: "ReasoningEffort" });
export const reasoningSummary = z
  .enum(["auto", "concise", "detailed", "none"])
  .meta({ id: "ReasoningSummary" });

/** The sandbox a turn runs under (turn/start `sandboxPolicy`, and every thread response). */
export const sandboxPolicy = z
  .discriminatedUnion("type", [
    z.object({ type: z.literal("dangerFullAccess") }),
    z.object({ type: z.literal("readOnly") }),
    z.object({
      type: z.literal("externalSandbox"),
      networkAccess: z.enum(["restricted", "enabled"]).optional(),
    }),
    z.object({
      type: z.literal("workspaceWrite"),
      writableRoots: z.array(z.string()).optional(),
      networkAccess: z.boolean().optional(),
      excludeTmpdirEnvVar: z.boolean().optional(),
      excludeSlashTmp: z.boolean().optional(),
    }),
  ])
  .meta({ id: "SandboxPolicy" });
export type SandboxPolicy = z.infer<typeof sandboxPolicy>;

const textElement = z
  .object({
    byteRange: z.object({ start: z.number().int().nonnegative(), end: z.number().int().nonnegative() }),
    placeholder: z.string().nullish(),
  })
  .meta({ id: "TextElement" });

/** One piece of a user's turn input. */
export const userInput = z
  .discriminatedUnion("type", [
    z.object({ type: z.literal("text"), text: z.string(), text_elements: z.array(textElement).optional() }),
    z.object({ type: z.literal("image"), url: z.string() }),
    z.object({ type: z.literal("localImage"), path: z.string() }),
  ])
  .meta({ id: "UserInput" });
export type UserInputWire = z.infer<typeof userInput>;

/** How a command line reads, one entry per simple command (for display). */
export const commandAction = z
  .discriminatedUnion("type", [
    z.object({ type: z.literal("read"), command: z.string(), name: z.string(), path: z.string() }),
    z.object({ type: z.literal("listFiles"), command: z.string(), path: z.string().nullable() }),
    z.object({
      type: z.literal("search"),
      command: z.string(),
      query: z.string().nullable(),
      path: z.string().nullable(),
    }),
    z.object({ type: z.literal("unknown"), command: z.string() }),
  ])
  .meta({ id: "CommandAction" });
export type CommandAction = z.infer<typeof commandAction>;

const commandExecutionStatus = z
  .enum(["inProgress", "completed", "failed", "declined"])
  .meta({ id: "CommandExecutionStatus" });
const patchApplyStatus = z
  .enum(["inProgress", "completed", "failed", "declined"])
  .meta({ id: "PatchApplyStatus" });
const toolCallStatus = z.enum(["inProgress", "completed", "failed"]).meta({ id: "McpToolCallStatus" });

export const fileUpdateChange = z
  .object({
    path: z.string(),
    kind: z.discriminatedUnion("type", [
      z.object({ type: z.literal("add") }),
      z.object({ type: z.literal("delete") }),
      z.object({ type: z.literal("update"), move_path: z.string().nullish() }),
    ]),
    diff: z.string(),
  })
  .meta({ id: "FileUpdateChange" });
export type FileUpdateChange = z.infer<typeof fileUpdateChange>;

/** What a client tool answers: text and images the model reads (0.169's DynamicToolCallResponse). */
export const dynamicToolContentItem = z
  .discriminatedUnion("type", [
    z.object({ type: z.literal("inputText"), text: z.string() }),
    z.object({ type: z.literal("inputImage"), imageUrl: z.string() }),
  ])
  .meta({ id: "DynamicToolCallOutputContentItem" });

/** A tool the client brings (0.169's FunctionDynamicToolSpec); the client runs it. */
export const dynamicToolSpec = z
  .object({
    type: z.literal("function").optional(),
    name: z
      .string()
      .min(1)
      .max(128)
      .regex(/^[a-zA-Z0-9_-]+$/, "letters, digits, `_` and `-` only"),
    description: z.string(),
    /** Any JSON Schema; sanitized before the model sees it. */
    inputSchema: z.record(z.string(), z.unknown()),
  })
  .meta({ id: "DynamicToolSpec" });
export type DynamicToolSpec = z.infer<typeof dynamicToolSpec>;

/** An entry of a turn: what the user said, what the agent did and said. */
export const threadItem = z
  .discriminatedUnion("type", [
    z.object({ type: z.literal("userMessage"), id: z.string(), content: z.array(userInput) }),
    z.object({ type: z.literal("agentMessage"), id: z.string(), text: z.string() }),
    /** 0.169: a hook's prompt that kept the turn going (a Stop hook's block). */
    z.object({
      type: z.literal("hookPrompt"),
      id: z.string(),
      fragments: z.array(z.object({ hookRunId: z.string(), text: z.string() })),
    }),
    z.object({
      type: z.literal("reasoning"),
      id: z.string(),
      summary: z.array(z.string()),
      content: z.array(z.string()),
    }),
    z.object({
      type: z.literal("commandExecution"),
      id: z.string(),
      command: z.string(),
      cwd: z.string(),
      processId: z.string().nullable(),
      /** 0.169: who ran it; sent for a user's shell command only (absent means the agent). */
      source: z.enum(["agent", "userShell"]).optional(),
      status: commandExecutionStatus,
      commandActions: z.array(commandAction),
      aggregatedOutput: z.string().nullable(),
      exitCode: z.number().int().nullable(),
      durationMs: z.number().int().nullable(),
    }),
    z.object({
      type: z.literal("fileChange"),
      id: z.string(),
      changes: z.array(fileUpdateChange),
      status: patchApplyStatus,
    }),
    z.object({
      type: z.literal("mcpToolCall"),
      id: z.string(),
      server: z.string(),
      tool: z.string(),
      status: toolCallStatus,
      arguments: z.unknown(),
      result: z
        .object({ content: z.array(z.record(z.string(), z.unknown())), structuredContent: z.unknown() })
        .nullable(),
      error: z.object({ message: z.string() }).nullable(),
      durationMs: z.number().int().nullable(),
    }),
    z.object({
      type: z.literal("dynamicToolCall"),
      id: z.string(),
      namespace: z.string().nullable(),
      tool: z.string(),
      arguments: z.unknown(),
      status: toolCallStatus,
      contentItems: z.array(dynamicToolContentItem).nullable(),
      success: z.boolean().nullable(),
      durationMs: z.number().int().nullable(),
    }),
    z.object({ type: z.literal("webSearch"), id: z.string(), query: z.string() }),
    z.object({ type: z.literal("enteredReviewMode"), id: z.string(), review: z.string() }),
    z.object({ type: z.literal("exitedReviewMode"), id: z.string(), review: z.string() }),
    z.object({ type: z.literal("contextCompaction"), id: z.string() }),
    /** 0.169: the plan a plan-mode turn proposes. */
    z.object({ type: z.literal("plan"), id: z.string(), text: z.string() }),
    /** A sub-agent this thread started (spawn_agent): the child thread and how it is doing. */
    z.object({
      type: z.literal("collabAgentToolCall"),
      id: z.string(),
      tool: z.enum(["spawnAgent", "sendInput", "resumeAgent", "wait", "closeAgent"]),
      status: z.enum(["inProgress", "completed", "failed", "interrupted"]),
      senderThreadId: z.string(),
      receiverThreadIds: z.array(z.string()),
      prompt: z.string().nullable(),
      model: z.string().nullable(),
      reasoningEffort: z.string().nullable(),
      agentsStates: z.record(
        z.string(),
        z.object({
          status: z.enum([
            "pendingInit",
            "running",
            "interrupted",
            "completed",
            "errored",
            "shutdown",
            "notFound",
          ]),
          message: z.string().nullable(),
        }),
      ),
    }),
  ])
  .meta({ id: "ThreadItem" });
export type ThreadItem = z.infer<typeof threadItem>;
export type ItemOf<T extends ThreadItem["type"]> = Extract<ThreadItem, { type: T }>;

export const turnError = z
  .object({
    message: z.string(),
    codexErrorInfo: z.unknown().nullable(),
    additionalDetails: z.string().nullable(),
  })
  .meta({ id: "TurnError" });
export type TurnError = z.infer<typeof turnError>;

export const turnStatus = z
  .enum(["completed", "interrupted", "failed", "inProgress"])
  .meta({ id: "TurnStatus" });

/** How much of a turn's items a Turn carries (0.169): none, its prompt and answer, or all. */
export const turnItemsView = z.enum(["notLoaded", "summary", "full"]).meta({ id: "TurnItemsView" });

/**
 * Beyond Codex: a stored turn's last `update_plan` (Codex's protocol keeps no plan with a
 * turn, so a resumed thread could not show its checklist). Absent on live turns.
 */
export const turnPlan = z.object({
  explanation: z.string().nullable(),
  steps: z.array(z.object({ step: z.string(), status: z.enum(["pending", "inProgress", "completed"]) })),
});

export const turn = z
  .object({
    id: z.string(),
    items: z.array(threadItem),
    itemsView: turnItemsView.optional(),
    status: turnStatus,
    error: turnError.nullable(),
    plan: turnPlan.optional(),
  })
  .meta({ id: "Turn" });
export type Turn = z.infer<typeof turn>;

const gitInfo = z
  .object({ sha: z.string().nullable(), branch: z.string().nullable(), originUrl: z.string().nullable() })
  .meta({ id: "GitInfo" });

/** Whether a thread is in memory, and whether it runs a turn (0.169's ThreadStatus). */
export const threadStatus = z
  .discriminatedUnion("type", [
    z.object({ type: z.literal("notLoaded") }),
    z.object({ type: z.literal("idle") }),
    z.object({ type: z.literal("systemError") }),
    z.object({
      type: z.literal("active"),
      activeFlags: z.array(z.enum(["waitingOnApproval", "waitingOnUserInput"])),
    }),
  ])
  .meta({ id: "ThreadStatus" });
export type ThreadStatus = z.infer<typeof threadStatus>;

/** Where a thread runs (0.169's ThreadEnvironment; tscodex has the local one). */
const threadEnvironment = z
  .object({ environmentId: z.string(), cwd: z.string(), runtimeWorkspaceRoots: z.array(z.string()) })
  .meta({ id: "ThreadEnvironment" });

/** A thread as 0.169 shows it (0.89's fields, which 0.169 keeps, among them), in 0.169's order. */
export const thread = z
  .object({
    id: z.string(),
    environments: z.array(threadEnvironment).nullable(),
    extra: z.record(z.string(), z.unknown()).nullable(),
    sessionId: z.string(),
    forkedFromId: z.string().nullable(),
    attachedToThreadId: z.string().nullable(),
    parentThreadId: z.string().nullable(),
    preview: z.string(),
    ephemeral: z.boolean(),
    section: z.null(),
    sectionEnteredAt: z.null(),
    projectId: z.string().nullable(),
    modelProvider: z.string(),
    model: z.string().nullable(),
    reasoningEffort: reasoningEffort.nullable(),
    createdAt: z.number().int(),
    updatedAt: z.number().int(),
    recencyAt: z.number().int().nullable(),
    status: threadStatus,
    path: z.string(),
    cwd: z.string(),
    cliVersion: z.string(),
    originator: z.string().nullable(),
    source: z.enum(["cli", "vscode", "exec", "appServer", "unknown"]),
    threadSource: z.string().nullable(),
    agentNickname: z.string().nullable(),
    agentRole: z.string().nullable(),
    gitInfo: gitInfo.nullable(),
    name: z.string().nullable(),
    daybreakEnabled: z.boolean().nullable(),
    turns: z.array(turn),
  })
  .meta({ id: "Thread" });
export type ThreadWire = z.infer<typeof thread>;

export const tokenUsageBreakdown = z
  .object({
    totalTokens: z.number().int(),
    inputTokens: z.number().int(),
    cachedInputTokens: z.number().int(),
    outputTokens: z.number().int(),
    reasoningOutputTokens: z.number().int(),
  })
  .meta({ id: "TokenUsageBreakdown" });

export const threadTokenUsage = z
  .object({
    total: tokenUsageBreakdown,
    last: tokenUsageBreakdown,
    modelContextWindow: z.number().int().nullable(),
  })
  .meta({ id: "ThreadTokenUsage" });

export const turnPlanStep = z
  .object({ step: z.string(), status: z.enum(["pending", "inProgress", "completed"]) })
  .meta({ id: "TurnPlanStep" });

/** Who answers the thread's approval requests: the user (the client), or the reviewer model. */
export const approvalsReviewer = z
  .enum(["user", "auto_review", "guardian_subagent"])
  .meta({ id: "ApprovalsReviewer" });

/** What thread/start, thread/resume and thread/fork answer (0.169's fields, in its order). */
export const threadOpenedResponse = z.object({
  thread,
  model: z.string(),
  modelProvider: z.string(),
  serviceTier: z.string().nullable(),
  disabledPluginIds: z.array(z.string()),
  cwd: z.string(),
  runtimeWorkspaceRoots: z.array(z.string()),
  instructionSources: z.array(z.string()),
  approvalPolicy: askForApproval,
  approvalsReviewer,
  sandbox: sandboxPolicy,
  activePermissionProfile: z.object({ id: z.string(), extends: z.string().nullable() }).nullable(),
  reasoningEffort: reasoningEffort.nullable(),
  multiAgentMode: z.enum(["explicitRequestOnly", "proactive"]),
});
export type ThreadOpenedResponse = z.infer<typeof threadOpenedResponse>;

/** Settings a thread may be opened with (thread/start, thread/resume, thread/fork). */
export const threadSettingsParams = {
  cwd: z.string().nullish(),
  model: z.string().nullish(),
  modelProvider: z.string().nullish(),
  approvalPolicy: askForApproval.nullish(),
  /** `auto_review` (or its old name `guardian_subagent`): the reviewer model answers this thread's questions. */
  approvalsReviewer: approvalsReviewer.nullish(),
  sandbox: sandboxMode.nullish(),
  /** 0.171 (experimental): a permission profile id for this thread; never with `sandbox`. */
  permissions: z.string().nullish(),
  /** Config overrides for this thread: dotted keys (`"model_reasoning_effort"`) → values. */
  config: z.record(z.string(), z.unknown()).nullish(),
  baseInstructions: z.string().nullish(),
  developerInstructions: z.string().nullish(),
};

/** What a thread runs with (0.169's ThreadSettings, as `thread/settings/updated` carries it). */
export const threadSettings = z
  .object({
    approvalPolicy: askForApproval,
    approvalsReviewer,
    collaborationMode: z.object({
      mode: z.enum(["plan", "default"]),
      settings: z.object({
        model: z.string(),
        reasoning_effort: reasoningEffort.nullable(),
        developer_instructions: z.string().nullable(),
      }),
    }),
    cwd: z.string(),
    model: z.string(),
    modelProvider: z.string(),
    sandboxPolicy,
    effort: reasoningEffort.nullable(),
  })
  .meta({ id: "ThreadSettings" });
export type ThreadSettingsWire = z.infer<typeof threadSettings>;
