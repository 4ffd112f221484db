/** Public library API. */
export {
  AgentThread,
  type ApprovalHandler,
  clientTool,
  type ElicitationHandler,
  type JsonSchemaValue,
  type LibraryTool,
  type LibraryToolContext,
  type RunOptions,
  type StartThreadOptions,
  type ThreadOptions,
  Tscodex,
  type TscodexOptions,
  type UserInputHandler,
} from "./agent.js";
export { type Config, loadConfig } from "./config/load.js";
export type {
  HookCallback,
  HookCallbacks,
  HookEventName,
  HookInput,
  ThreadStartSource,
} from "./hooks/index.js";
export type { AgentStatus, UserInputReply, UserInputResponse, UserQuestion } from "./protocol/agents.js";
export type { ClientToolContentItem, ClientToolResult, ClientToolSpec } from "./protocol/client-tools.js";
export type {
  ApprovalRequestEvent,
  ElicitationRequest,
  ElicitationResult,
  Event,
  EventType,
  PlanItem,
  ReviewDecision,
} from "./protocol/events.js";
export { ItemTracker, type ItemTrackerOptions } from "./protocol/item-tracker.js";
export type { ResponseItem, TokenUsage } from "./protocol/items.js";
export type { ApprovalPolicy, SandboxMode } from "./protocol/policy.js";
export type {
  ItemDelta,
  ItemEvent,
  ItemStatus,
  ThreadEvent,
  TurnItem,
  TurnItemOf,
  TurnItemType,
} from "./protocol/turn-items.js";
export type { TurnOverrides, TurnResult, TurnStatus, UserInput } from "./session/thread.js";
export {
  DEFAULT_SESSION_TTL_MS,
  ThreadManager,
  type ThreadManagerOptions,
} from "./session/thread-manager.js";
export type { SessionMeta, ThreadSummary } from "./store/index.js";
export type { ToolDefinition } from "./tools/types.js";
export { VERSION } from "./version.js";
