/**
 * Validate a recorded app-server conversation against Codex's published JSON Schemas (copies of
 * reference/app-server schema-089 and schema-169-experimental under
 * test/fixtures/reference/app-server/, same relative paths): every notification, server request,
 * reply and client request, for every method both implementations have. Client tools
 * (dynamicTools, dynamicToolCall, item/tool/call) exist only in 0.169 and are checked against
 * it; everything else against 0.89's v2 shapes.
 * Known, deliberate differences are not failures: a parse error's reply has `id: null` (Codex
 * sends none), and `jsonrpc` is present (extra fields are allowed by the schemas).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Ajv, type ValidateFunction } from "ajv";
import type { AppClient, WireMessage } from "./app-server-client.js";

const ROOT = fileURLToPath(new URL("../fixtures/reference/app-server/", import.meta.url));

const ajv = new Ajv({ strict: false, validateFormats: false, allErrors: false });
const compiled = new Map<string, ValidateFunction>();

function validator(relative: string): ValidateFunction {
  let validate = compiled.get(relative);
  if (!validate) {
    const schema = JSON.parse(readFileSync(join(ROOT, relative), "utf8")) as Record<string, unknown>;
    validate = ajv.compile(schema);
    compiled.set(relative, validate);
  }
  return validate;
}

/** Both versions' schemas of a reply whose shape 0.169 extended (a 0.89 client reads it too). */
function both(name: string): string[] {
  return [`schema-089/v2/${name}.json`, `schema-169-experimental/v2/${name}.json`];
}

/** Reply schemas of the methods both implementations have (every one listed must match). */
export const RESPONSES: Record<string, string | string[]> = {
  initialize: "schema-089/v1/InitializeResponse.json",
  "thread/start": both("ThreadStartResponse"),
  "thread/resume": both("ThreadResumeResponse"),
  "thread/fork": both("ThreadForkResponse"),
  "thread/archive": "schema-089/v2/ThreadArchiveResponse.json",
  "thread/rollback": "schema-089/v2/ThreadRollbackResponse.json",
  "thread/list": both("ThreadListResponse"),
  "thread/loaded/list": "schema-089/v2/ThreadLoadedListResponse.json",
  "thread/read": both("ThreadReadResponse"),
  "turn/start": "schema-089/v2/TurnStartResponse.json",
  "turn/interrupt": "schema-089/v2/TurnInterruptResponse.json",
  "model/list": "schema-089/v2/ModelListResponse.json",
  "mcpServerStatus/list": "schema-089/v2/ListMcpServerStatusResponse.json",
  "mcpServer/oauth/login": "schema-089/v2/McpServerOauthLoginResponse.json",
  "config/mcpServer/reload": "schema-089/v2/McpServerRefreshResponse.json",
  "config/read": "schema-089/v2/ConfigReadResponse.json",
  "config/value/write": "schema-089/v2/ConfigWriteResponse.json",
  "config/batchWrite": "schema-089/v2/ConfigWriteResponse.json",
  "thread/delete": "schema-169-experimental/v2/ThreadDeleteResponse.json",
  "thread/unsubscribe": "schema-169-experimental/v2/ThreadUnsubscribeResponse.json",
  "thread/turns/list": "schema-169-experimental/v2/ThreadTurnsListResponse.json",
  "hooks/list": "schema-169-experimental/v2/HooksListResponse.json",
  "skills/list": "schema-169-experimental/v2/SkillsListResponse.json",
  "skills/config/write": "schema-169-experimental/v2/SkillsConfigWriteResponse.json",
  "skills/extraRoots/set": "schema-169-experimental/v2/SkillsExtraRootsSetResponse.json",
  "thread/name/set": "schema-169-experimental/v2/ThreadSetNameResponse.json",
  "thread/metadata/update": "schema-169-experimental/v2/ThreadMetadataUpdateResponse.json",
  "thread/unarchive": "schema-169-experimental/v2/ThreadUnarchiveResponse.json",
  "thread/revert": "schema-169-experimental/v2/ThreadRevertResponse.json",
  "thread/items/list": "schema-169-experimental/v2/ThreadItemsListResponse.json",
  "thread/inject_items": "schema-169-experimental/v2/ThreadInjectItemsResponse.json",
  "review/start": both("ReviewStartResponse"),
  "thread/compact/start": "schema-169-experimental/v2/ThreadCompactStartResponse.json",
  "collaborationMode/list": "schema-169-experimental/v2/CollaborationModeListResponse.json",
  "thread/shellCommand": "schema-169-experimental/v2/ThreadShellCommandResponse.json",
  "turn/steer": "schema-169-experimental/v2/TurnSteerResponse.json",
  "command/exec": "schema-169-experimental/v2/CommandExecResponse.json",
  "command/exec/write": "schema-169-experimental/v2/CommandExecWriteResponse.json",
  "command/exec/resize": "schema-169-experimental/v2/CommandExecResizeResponse.json",
  "command/exec/terminate": "schema-169-experimental/v2/CommandExecTerminateResponse.json",
  "fs/readFile": "schema-169-experimental/v2/FsReadFileResponse.json",
  "fs/writeFile": "schema-169-experimental/v2/FsWriteFileResponse.json",
  "fs/createDirectory": "schema-169-experimental/v2/FsCreateDirectoryResponse.json",
  "fs/getMetadata": "schema-169-experimental/v2/FsGetMetadataResponse.json",
  "fs/readDirectory": "schema-169-experimental/v2/FsReadDirectoryResponse.json",
  "fs/remove": "schema-169-experimental/v2/FsRemoveResponse.json",
  "fs/copy": "schema-169-experimental/v2/FsCopyResponse.json",
  "fs/watch": "schema-169-experimental/v2/FsWatchResponse.json",
  "fs/unwatch": "schema-169-experimental/v2/FsUnwatchResponse.json",
  fuzzyFileSearch: "schema-169-experimental/FuzzyFileSearchResponse.json",
  "fuzzyFileSearch/sessionStart": "schema-169-experimental/FuzzyFileSearchSessionStartResponse.json",
  "fuzzyFileSearch/sessionUpdate": "schema-169-experimental/FuzzyFileSearchSessionUpdateResponse.json",
  "fuzzyFileSearch/sessionStop": "schema-169-experimental/FuzzyFileSearchSessionStopResponse.json",
  "mcpServer/tool/call": "schema-169-experimental/v2/McpServerToolCallResponse.json",
  "mcpServer/resource/read": "schema-169-experimental/v2/McpResourceReadResponse.json",
  "modelProvider/list": "schema-169-experimental/v2/ModelProviderListResponse.json",
  "modelProvider/capabilities/read": "schema-169-experimental/v2/ModelProviderCapabilitiesReadResponse.json",
  "configRequirements/read": "schema-169-experimental/v2/ConfigRequirementsReadResponse.json",
  "experimentalFeature/list": "schema-169-experimental/v2/ExperimentalFeatureListResponse.json",
  newConversation: "schema-089/v1/NewConversationResponse.json",
  resumeConversation: "schema-089/v1/ResumeConversationResponse.json",
  addConversationListener: "schema-089/v1/AddConversationSubscriptionResponse.json",
  removeConversationListener: "schema-089/v1/RemoveConversationSubscriptionResponse.json",
  sendUserMessage: "schema-089/v1/SendUserMessageResponse.json",
  sendUserTurn: "schema-089/v1/SendUserTurnResponse.json",
  interruptConversation: "schema-089/v1/InterruptConversationResponse.json",
  getAuthStatus: "schema-089/v1/GetAuthStatusResponse.json",
};

/**
 * A v1 `codex/event/<type>` notification: Codex 0.89 lists no schema for the envelope, so its
 * `msg` is checked against EventMsg and the envelope's fields by hand.
 */
export function checkLegacyEvent(message: WireMessage, failures: string[]): void {
  const params = message.params as { id?: unknown; msg?: { type?: unknown }; conversationId?: unknown };
  const type = message.method?.slice("codex/event/".length);
  if (
    typeof params?.id !== "string" ||
    typeof params.conversationId !== "string" ||
    params.msg?.type !== type
  )
    failures.push(`notification ${message.method}: bad envelope ${JSON.stringify(params).slice(0, 300)}`);
  check(validator("schema-089/EventMsg.json"), params?.msg, `notification ${message.method}`, failures);
}

/** Methods only 0.169 has: their messages are checked against 0.169's schemas. */
const ONLY_169 = new Set([
  "thread/delete",
  "thread/unsubscribe",
  "thread/turns/list",
  "hooks/list",
  "skills/list",
  "skills/config/write",
  "skills/extraRoots/set",
  "skills/changed",
  "hook/started",
  "hook/completed",
  "thread/archived",
  "thread/deleted",
  "thread/closed",
  "thread/name/set",
  "thread/name/updated",
  "thread/metadata/update",
  "thread/unarchive",
  "thread/unarchived",
  "thread/revert",
  "thread/reverted",
  "thread/items/list",
  "thread/inject_items",
  "thread/compact/start",
  "collaborationMode/list",
  "thread/shellCommand",
  "item/plan/delta",
  "item/fileChange/patchUpdated",
  "turn/steer",
  "thread/status/changed",
  "serverRequest/resolved",
  "thread/settings/updated",
  "item/mcpToolCall/progress",
  // Commands and files (0.89's command/exec has no streaming; the rest is new in 0.169).
  "command/exec",
  "command/exec/write",
  "command/exec/resize",
  "command/exec/terminate",
  "fs/readFile",
  "fs/writeFile",
  "fs/createDirectory",
  "fs/getMetadata",
  "fs/readDirectory",
  "fs/remove",
  "fs/copy",
  "fs/watch",
  "fs/unwatch",
  "fuzzyFileSearch",
  "fuzzyFileSearch/sessionStart",
  "fuzzyFileSearch/sessionUpdate",
  "fuzzyFileSearch/sessionStop",
  "command/exec/outputDelta",
  "fs/changed",
  "fuzzyFileSearch/sessionUpdated",
  "fuzzyFileSearch/sessionCompleted",
  "mcpServer/tool/call",
  "mcpServer/resource/read",
  "modelProvider/list",
  "modelProvider/capabilities/read",
  "configRequirements/read",
  "experimentalFeature/list",
  "mcpServer/startupStatus/updated",
  "warning",
  "configWarning",
  "deprecationNotice",
]);

/**
 * Whether a message concerns client tools, MCP elicitation, plan mode, a user's shell command or
 * another 0.169-only method.
 */
export function isClientToolMessage(message: WireMessage): boolean {
  return (
    ONLY_169.has(message.method ?? "") ||
    message.method === "item/tool/call" ||
    message.method === "mcpServer/elicitation/request" ||
    message.params?.item?.type === "dynamicToolCall" ||
    message.params?.item?.type === "contextCompaction" ||
    message.params?.item?.type === "plan" ||
    message.params?.item?.source !== undefined ||
    message.params?.collaborationMode !== undefined ||
    // The granular approval policy object came after 0.89 (whose AskForApproval is a name).
    (typeof message.params?.approvalPolicy === "object" && message.params?.approvalPolicy !== null) ||
    message.params?.item?.type === "collabAgentToolCall" ||
    message.params?.item?.type === "hookPrompt" ||
    message.params?.dynamicTools !== undefined
  );
}

/** Whether a reply's thread holds an item 0.89's ThreadItem has no variant for. */
export function holdsOnly169Items(result: unknown): boolean {
  const policy = (result as { approvalPolicy?: unknown } | null)?.approvalPolicy;
  if (typeof policy === "object" && policy !== null) return true;
  const turns = (result as { thread?: { turns?: { items?: WireMessage["params"][] }[] } })?.thread?.turns;
  return (turns ?? []).some((turn) =>
    (turn.items ?? []).some(
      (item) => item?.type === "plan" || item?.type === "dynamicToolCall" || item?.source,
    ),
  );
}

function check(validate: ValidateFunction, value: unknown, what: string, failures: string[]): void {
  if (validate(value)) return;
  const first = validate.errors?.[0];
  failures.push(
    `${what}: ${first?.instancePath ?? ""} ${first?.message ?? "invalid"} ${JSON.stringify(value).slice(0, 300)}`,
  );
}

/** Problems of notifications given as `{method, params}` (empty when all match the schemas). */
export function notificationFailures(notifications: readonly WireMessage[]): string[] {
  const failures: string[] = [];
  for (const message of notifications) {
    if (message.method?.startsWith("codex/event/")) {
      checkLegacyEvent(message, failures);
      continue;
    }
    const schema = isClientToolMessage(message) ? "schema-169-experimental" : "schema-089";
    check(
      validator(`${schema}/ServerNotification.json`),
      message,
      `notification ${message.method}`,
      failures,
    );
  }
  return failures;
}

/** Every problem found in `client`'s conversation (empty when all of it matches the schemas). */
export function referenceSchemaFailures(client: AppClient): string[] {
  const failures: string[] = [];
  const methodsById = new Map<unknown, string>();
  for (const message of client.sent) {
    if (message.method !== undefined && message.id !== undefined && message.id !== null) {
      methodsById.set(message.id, message.method);
      if (!RESPONSES[message.method]) continue;
      const schema = isClientToolMessage(message) ? "schema-169-experimental" : "schema-089";
      check(validator(`${schema}/ClientRequest.json`), message, `request ${message.method}`, failures);
    }
  }
  for (const message of client.received) {
    const schema = isClientToolMessage(message) ? "schema-169-experimental" : "schema-089";
    if (message.method !== undefined && message.id !== undefined) {
      check(validator(`${schema}/ServerRequest.json`), message, `server request ${message.method}`, failures);
    } else if (message.method?.startsWith("codex/event/")) {
      checkLegacyEvent(message, failures);
    } else if (message.method !== undefined) {
      check(
        validator(`${schema}/ServerNotification.json`),
        message,
        `notification ${message.method}`,
        failures,
      );
    } else if (message.error) {
      if (message.id !== null)
        check(validator("schema-089/JSONRPCError.json"), message, "error reply", failures);
    } else {
      const method = methodsById.get(message.id);
      const files = method ? RESPONSES[method] : undefined;
      const all = typeof files === "string" ? [files] : (files ?? []);
      // A reply holding items only 0.169 has (a stored plan-mode turn) is 0.169's alone.
      const newer = all.filter((file) => file.startsWith("schema-169"));
      const chosen = holdsOnly169Items(message.result) && newer.length > 0 ? newer : all;
      for (const file of chosen)
        check(validator(file), message.result, `reply to ${method} (${file})`, failures);
    }
  }
  return failures;
}
