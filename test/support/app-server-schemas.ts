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

/** Reply schemas of the methods both implementations have. */
const RESPONSES: Record<string, string> = {
  initialize: "schema-089/v1/InitializeResponse.json",
  "thread/start": "schema-089/v2/ThreadStartResponse.json",
  "thread/resume": "schema-089/v2/ThreadResumeResponse.json",
  "thread/fork": "schema-089/v2/ThreadForkResponse.json",
  "thread/archive": "schema-089/v2/ThreadArchiveResponse.json",
  "thread/rollback": "schema-089/v2/ThreadRollbackResponse.json",
  "thread/list": "schema-089/v2/ThreadListResponse.json",
  "thread/loaded/list": "schema-089/v2/ThreadLoadedListResponse.json",
  "thread/read": "schema-089/v2/ThreadReadResponse.json",
  "turn/start": "schema-089/v2/TurnStartResponse.json",
  "turn/interrupt": "schema-089/v2/TurnInterruptResponse.json",
  "model/list": "schema-089/v2/ModelListResponse.json",
  "mcpServerStatus/list": "schema-089/v2/ListMcpServerStatusResponse.json",
  "mcpServer/oauth/login": "schema-089/v2/McpServerOauthLoginResponse.json",
  "config/mcpServer/reload": "schema-089/v2/McpServerRefreshResponse.json",
  "config/read": "schema-089/v2/ConfigReadResponse.json",
  "config/value/write": "schema-089/v2/ConfigWriteResponse.json",
  "config/batchWrite": "schema-089/v2/ConfigWriteResponse.json",
  "command/exec": "schema-089/v2/CommandExecResponse.json",
};

/** Whether a message concerns client tools or MCP elicitation (0.169 only). */
function isClientToolMessage(message: WireMessage): boolean {
  return (
    message.method === "item/tool/call" ||
    message.method === "mcpServer/elicitation/request" ||
    message.params?.item?.type === "dynamicToolCall" ||
    message.params?.dynamicTools !== undefined
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
      const file = method ? RESPONSES[method] : undefined;
      if (file) check(validator(file), message.result, `reply to ${method}`, failures);
    }
  }
  return failures;
}
