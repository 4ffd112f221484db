/**
 * Where the app-server's messages enter the UI, typed by the protocol's own schemas
 * (app-server/protocol/). The imports are type-only: the UI loads no schema library at start-up
 * (test/cli/startup-modules.test.ts), so this is a narrowing, not a parse: a method the UI reads
 * with object params is taken as the protocol's shape for that method, and everything past this
 * file reads typed fields. This file is the only place wire data is cast.
 */
import type { ClientMethod, ResultOf } from "../app-server/protocol/client-requests.js";
import type { ThreadItem } from "../app-server/protocol/common.js";
import type {
  NotificationMethod,
  NotificationParams,
  ServerRequestMethod,
  ServerRequestParams,
} from "../app-server/protocol/server-messages.js";

/** The notifications the UI reads; the others are dropped where they enter. */
const NOTIFICATIONS = [
  "error",
  "thread/compacted",
  "item/autoApprovalReview/completed",
  "thread/tokenUsage/updated",
  "turn/started",
  "turn/completed",
  "turn/plan/updated",
  "item/started",
  "item/completed",
  "item/agentMessage/delta",
  "item/reasoning/summaryTextDelta",
  "item/reasoning/textDelta",
  "item/commandExecution/outputDelta",
  "fuzzyFileSearch/sessionUpdated",
  "fuzzyFileSearch/sessionCompleted",
] as const satisfies readonly NotificationMethod[];

/** The server requests the UI answers; it refuses the others. */
const REQUESTS = [
  "item/commandExecution/requestApproval",
  "item/fileChange/requestApproval",
  "item/tool/requestUserInput",
  "mcpServer/elicitation/request",
] as const satisfies readonly ServerRequestMethod[];

type UiNotificationMethod = (typeof NOTIFICATIONS)[number];
type UiRequestMethod = (typeof REQUESTS)[number];

/** A notification the UI reads, typed by its method. */
export type UiNotification = {
  [M in UiNotificationMethod]: { method: M; params: NotificationParams<M> };
}[UiNotificationMethod];

/** A server request the UI answers, typed by its method. */
export type UiServerRequest = {
  [M in UiRequestMethod]: { method: M; params: ServerRequestParams<M> };
}[UiRequestMethod];

export type ApprovalRequest = Extract<
  UiServerRequest,
  { method: "item/commandExecution/requestApproval" | "item/fileChange/requestApproval" }
>;
export type UserInputParams = ServerRequestParams<"item/tool/requestUserInput">;
export type ElicitationParams = ServerRequestParams<"mcpServer/elicitation/request">;

const notificationMethods: ReadonlySet<string> = new Set(NOTIFICATIONS);
const requestMethods: ReadonlySet<string> = new Set(REQUESTS);

/** A JSON object (not null, not an array). */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

type FieldKind = "string" | "object" | "array";
const delta = { itemId: "string", delta: "string" } as const;
/**
 * The fields the UI dereferences, checked where they enter: a server that sends less (another
 * version, a remote one) has its notification dropped rather than the screen broken.
 */
const REQUIRED: Partial<Record<UiNotificationMethod, Record<string, FieldKind>>> = {
  "turn/started": { turn: "object" },
  "turn/completed": { turn: "object" },
  "thread/tokenUsage/updated": { threadId: "string", tokenUsage: "object" },
  "turn/plan/updated": { plan: "array" },
  "item/agentMessage/delta": delta,
  "item/reasoning/summaryTextDelta": delta,
  "item/reasoning/textDelta": delta,
  "item/commandExecution/outputDelta": delta,
  "fuzzyFileSearch/sessionUpdated": { files: "array" },
};

const requiredOf: ReadonlyMap<string, Record<string, FieldKind>> = new Map(Object.entries(REQUIRED));

function hasKind(value: unknown, kind: FieldKind): boolean {
  if (kind === "array") return Array.isArray(value);
  return kind === "object" ? isRecord(value) : typeof value === "string";
}

/** A notification as the protocol types it; null for one the UI does not read (or malformed). */
export function readNotification(method: string, params: unknown): UiNotification | null {
  if (!notificationMethods.has(method) || !isRecord(params)) return null;
  const required = requiredOf.get(method) ?? {};
  if (!Object.entries(required).every(([field, kind]) => hasKind(params[field], kind))) return null;
  return { method, params } as UiNotification;
}

/** A server request as the protocol types it; null for one the UI does not answer (or malformed). */
export function readServerRequest(method: string, params: unknown): UiServerRequest | null {
  if (!requestMethods.has(method) || !isRecord(params)) return null;
  return { method, params } as UiServerRequest;
}

/** The ThreadItem kinds the UI knows; an item of another kind (a newer server) is not shown. */
const ITEM_TYPES: ReadonlySet<string> = new Set<ThreadItem["type"]>([
  "userMessage",
  "agentMessage",
  "hookPrompt",
  "reasoning",
  "commandExecution",
  "fileChange",
  "mcpToolCall",
  "dynamicToolCall",
  "webSearch",
  "enteredReviewMode",
  "exitedReviewMode",
  "contextCompaction",
  "plan",
  "collabAgentToolCall",
]);

/** A stored or live item as the protocol's ThreadItem; null without a known type and an id. */
export function readThreadItem(value: unknown): ThreadItem | null {
  if (!isRecord(value)) return null;
  const { type, id } = value;
  if (typeof type !== "string" || !ITEM_TYPES.has(type) || typeof id !== "string") return null;
  return value as ThreadItem;
}

/** The reply to a request the UI sent, as the protocol answers `method`; throws if not an object. */
export function readReply<M extends ClientMethod>(method: M, value: unknown): ResultOf<M> {
  if (!isRecord(value)) throw new Error(`the server's reply to ${method} is not an object`);
  return value as ResultOf<M>;
}
