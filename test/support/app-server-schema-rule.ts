/**
 * The schema rule of the app-server suite: every message of every conversation a test client
 * (app-server-client.ts) has is validated as it passes, against Codex 0.171's JSON Schema
 * (`codex app-server generate-json-schema`, copied under test/fixtures/reference/app-server/) and,
 * where the method exists in 0.89, against 0.89's too (both allow extra fields, so a message can
 * satisfy both). A failure names the method, the schema path and ajv's error; the setup file
 * (schema-rule-setup.ts) fails the test during which it arrived.
 *
 * What is checked:
 * - server notifications and server requests, by their method's variant of ServerNotification /
 *   ServerRequest (0.171's stable schema, else its experimental one);
 * - the server's replies to client requests, against the method's Response schema;
 * - client requests, once the server has answered them with a result: a request the server
 *   rejected is taken as one the test meant to be invalid (malformed-input tests), so it is not.
 * What is not, and why (deliberate, documented differences):
 * - the client's answers to server requests (tests answer with odd decisions on purpose);
 * - methods 0.171 no longer has (the v1 conversation API, `codex/event/*`, `thread/rollback`)
 *   are checked against 0.89 alone; error replies against JSON-RPC's error shape, except a
 *   parse error's (`id: null`, where Codex sends none);
 * - 0.89 is skipped for messages about item kinds and methods 0.89 has no variant for, and for
 *   the granular approval policy object (isClientToolMessage, holdsOnly169Items in app-server-schemas.ts).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Ajv, type ErrorObject, type ValidateFunction } from "ajv";
import type { WireMessage } from "./app-server-client.js";
import {
  checkLegacyEvent,
  holdsOnly169Items,
  isClientToolMessage,
  RESPONSES as RESPONSES_089,
} from "./app-server-schemas.js";

const ROOT = fileURLToPath(new URL("../fixtures/reference/app-server/", import.meta.url));

const ajv = new Ajv({ strict: false, validateFormats: false, allErrors: true });
const compiled = new Map<string, ValidateFunction>();
const loaded = new Map<string, Record<string, unknown>>();

function load(relative: string): Record<string, unknown> {
  let schema = loaded.get(relative);
  if (!schema) {
    schema = JSON.parse(readFileSync(join(ROOT, relative), "utf8")) as Record<string, unknown>;
    ajv.addSchema(schema, relative);
    loaded.set(relative, schema);
  }
  return schema;
}

/** A whole schema file. */
function fileValidator(relative: string): ValidateFunction {
  let validate = compiled.get(relative);
  if (!validate) {
    load(relative);
    validate = ajv.getSchema(relative) as ValidateFunction;
    compiled.set(relative, validate);
  }
  return validate;
}

interface Variant {
  properties: { method: { enum: string[] }; params?: { $ref?: string } };
}

/**
 * The validator of `method`'s params in a union file (ServerNotification.json, ...), or undefined
 * when the file has no such method. Validating the one variant, not the whole oneOf, keeps ajv's
 * error about the message's own fields.
 */
function paramsValidator(file: string, method: string): ValidateFunction | undefined {
  const key = `${file}#${method}`;
  if (compiled.has(key)) return compiled.get(key);
  const union = load(file) as { oneOf?: Variant[]; anyOf?: Variant[] };
  const variant = (union.oneOf ?? union.anyOf ?? []).find((v) =>
    v.properties?.method?.enum?.includes(method),
  );
  const ref = variant?.properties.params?.$ref;
  const validate = ref ? ajv.compile({ $ref: `${file}${ref}` }) : variant ? ajv.compile({}) : undefined;
  if (validate) compiled.set(key, validate);
  return validate;
}

/** A params validator of `method` in 0.171's stable union file, else its experimental one. */
function params171(union: string, method: string): { file: string; validate: ValidateFunction } | undefined {
  for (const dir of ["schema-171", "schema-171-experimental"]) {
    const file = `${dir}/${union}`;
    let validate: ValidateFunction | undefined;
    try {
      validate = paramsValidator(file, method);
    } catch {
      validate = undefined; // the experimental union file is copied only in part
    }
    if (validate) return { file, validate };
  }
  return undefined;
}

/** 0.171's reply schema of each client method tscodex serves that 0.171 has. */
const RESPONSES_171: Record<string, string> = {
  "command/exec": "schema-171/v2/CommandExecResponse.json",
  "command/exec/resize": "schema-171/v2/CommandExecResizeResponse.json",
  "command/exec/terminate": "schema-171/v2/CommandExecTerminateResponse.json",
  "command/exec/write": "schema-171/v2/CommandExecWriteResponse.json",
  "config/batchWrite": "schema-171/v2/ConfigWriteResponse.json",
  "config/mcpServer/reload": "schema-171/v2/McpServerRefreshResponse.json",
  "config/read": "schema-171/v2/ConfigReadResponse.json",
  "config/value/write": "schema-171/v2/ConfigWriteResponse.json",
  "configRequirements/read": "schema-171/v2/ConfigRequirementsReadResponse.json",
  "fs/copy": "schema-171/v2/FsCopyResponse.json",
  "fs/createDirectory": "schema-171/v2/FsCreateDirectoryResponse.json",
  "fs/getMetadata": "schema-171/v2/FsGetMetadataResponse.json",
  "fs/readDirectory": "schema-171/v2/FsReadDirectoryResponse.json",
  "fs/readFile": "schema-171/v2/FsReadFileResponse.json",
  "fs/remove": "schema-171/v2/FsRemoveResponse.json",
  "fs/unwatch": "schema-171/v2/FsUnwatchResponse.json",
  "fs/watch": "schema-171/v2/FsWatchResponse.json",
  "fs/writeFile": "schema-171/v2/FsWriteFileResponse.json",
  fuzzyFileSearch: "schema-171/FuzzyFileSearchResponse.json",
  "fuzzyFileSearch/sessionStart": "schema-171-experimental/FuzzyFileSearchSessionStartResponse.json",
  "fuzzyFileSearch/sessionStop": "schema-171-experimental/FuzzyFileSearchSessionStopResponse.json",
  "fuzzyFileSearch/sessionUpdate": "schema-171-experimental/FuzzyFileSearchSessionUpdateResponse.json",
  "hooks/list": "schema-171/v2/HooksListResponse.json",
  initialize: "schema-171/v1/InitializeResponse.json",
  "mcpServer/oauth/login": "schema-171/v2/McpServerOauthLoginResponse.json",
  "mcpServer/resource/read": "schema-171/v2/McpResourceReadResponse.json",
  "mcpServer/tool/call": "schema-171/v2/McpServerToolCallResponse.json",
  "mcpServerStatus/list": "schema-171/v2/ListMcpServerStatusResponse.json",
  "model/list": "schema-171/v2/ModelListResponse.json",
  "modelProvider/capabilities/read": "schema-171/v2/ModelProviderCapabilitiesReadResponse.json",
  "modelProvider/list": "schema-171/v2/ModelProviderListResponse.json",
  "skills/config/write": "schema-171/v2/SkillsConfigWriteResponse.json",
  "skills/extraRoots/set": "schema-171/v2/SkillsExtraRootsSetResponse.json",
  "skills/list": "schema-171/v2/SkillsListResponse.json",
  "thread/archive": "schema-171/v2/ThreadArchiveResponse.json",
  "thread/compact/start": "schema-171/v2/ThreadCompactStartResponse.json",
  "thread/delete": "schema-171/v2/ThreadDeleteResponse.json",
  "thread/fork": "schema-171/v2/ThreadForkResponse.json",
  "thread/inject_items": "schema-171/v2/ThreadInjectItemsResponse.json",
  "thread/items/list": "schema-171/v2/ThreadItemsListResponse.json",
  "thread/list": "schema-171/v2/ThreadListResponse.json",
  "thread/loaded/list": "schema-171/v2/ThreadLoadedListResponse.json",
  "thread/metadata/update": "schema-171/v2/ThreadMetadataUpdateResponse.json",
  "thread/name/set": "schema-171/v2/ThreadSetNameResponse.json",
  "thread/read": "schema-171/v2/ThreadReadResponse.json",
  "thread/resume": "schema-171/v2/ThreadResumeResponse.json",
  "thread/revert": "schema-171/v2/ThreadRevertResponse.json",
  "thread/shellCommand": "schema-171/v2/ThreadShellCommandResponse.json",
  "thread/start": "schema-171/v2/ThreadStartResponse.json",
  "thread/turns/list": "schema-171/v2/ThreadTurnsListResponse.json",
  "thread/unarchive": "schema-171/v2/ThreadUnarchiveResponse.json",
  "thread/unsubscribe": "schema-171/v2/ThreadUnsubscribeResponse.json",
  "turn/interrupt": "schema-171/v2/TurnInterruptResponse.json",
  "turn/start": "schema-171/v2/TurnStartResponse.json",
  "turn/steer": "schema-171/v2/TurnSteerResponse.json",
};

/** 0.171's params schema of a client method its ClientRequest.json (stable) does not hold. */
const EXPERIMENTAL_PARAMS_171: Record<string, string> = {
  "fuzzyFileSearch/sessionStart": "schema-171-experimental/FuzzyFileSearchSessionStartParams.json",
  "fuzzyFileSearch/sessionUpdate": "schema-171-experimental/FuzzyFileSearchSessionUpdateParams.json",
  "fuzzyFileSearch/sessionStop": "schema-171-experimental/FuzzyFileSearchSessionStopParams.json",
};

/**
 * ajv's errors worth showing: of a oneOf over tagged variants (ThreadItem, ...), those of the
 * variant(s) whose `type` tag matched, not the dozens of "must be equal to one of the allowed
 * values" of the others.
 */
function relevantErrors(errors: readonly ErrorObject[]): ErrorObject[] {
  const branch = (path: string) => path.match(/^(.*\/(?:oneOf|anyOf)\/\d+)\//)?.[1];
  const wrongTag = new Set(
    errors
      .filter((e) => e.keyword === "enum" && /\/type$/.test(e.instancePath))
      .map((e) => branch(e.schemaPath))
      .filter((b): b is string => b !== undefined),
  );
  const kept = errors.filter(
    (e) =>
      e.keyword !== "oneOf" &&
      e.keyword !== "anyOf" &&
      ![...wrongTag].some((b) => e.schemaPath.startsWith(`${b}/`)),
  );
  return kept.length > 0 ? kept : [...errors];
}

function verdict(validate: ValidateFunction, value: unknown, what: string): string | undefined {
  if (validate(value)) return undefined;
  const shown = relevantErrors(validate.errors ?? [])
    .slice(0, 4)
    .map(
      (e) =>
        `  at ${e.instancePath || "/"} (schema ${e.schemaPath}): ${e.message} ${JSON.stringify(e.params)}`,
    )
    .join("\n");
  return `${what}\n${shown}\n  value: ${JSON.stringify(value).slice(0, 600)}`;
}

/** Methods of 0.89's union files (a message is checked against 0.89 only when its method is there). */
function methods089(union: string): Set<string> {
  const file = load(`schema-089/${union}`) as { oneOf?: Variant[] };
  return new Set((file.oneOf ?? []).flatMap((v) => v.properties?.method?.enum ?? []));
}

/**
 * Validates one client's conversation as it passes (`sent` / `received`), collecting failures.
 * Keeps which method each pending request id belongs to, both ways.
 */
export class ConversationSchemaCheck {
  /** Failures not yet taken by the test hook. */
  readonly failures: string[] = [];
  private readonly pending = new Map<unknown, WireMessage>();

  sent(message: WireMessage): void {
    try {
      // Malformed-input tests send JSON that is no message at all (null, arrays, numbers).
      if (typeof message !== "object" || message === null) return;
      if (message.method !== undefined && message.id !== undefined && message.id !== null)
        this.pending.set(message.id, message);
    } catch (error) {
      this.failures.push(`schema check crashed: ${String(error)}`);
    }
  }

  received(message: WireMessage): void {
    try {
      if (typeof message !== "object" || message === null) {
        this.failures.push(`not a JSON-RPC message: ${JSON.stringify(message)}`);
        return;
      }
      this.check(message);
    } catch (error) {
      this.failures.push(
        `schema check crashed on ${JSON.stringify(message).slice(0, 300)}: ${String(error)}`,
      );
    }
  }

  private add(failure: string | undefined): void {
    if (failure) this.failures.push(failure);
  }

  private check(message: WireMessage): void {
    const method = message.method;
    if (method !== undefined) {
      const isRequest = message.id !== undefined;
      if (method.startsWith("codex/event/")) {
        const legacy: string[] = [];
        checkLegacyEvent(message, legacy);
        for (const failure of legacy) this.add(`0.89: ${failure}`);
        return;
      }
      const union = isRequest ? "ServerRequest.json" : "ServerNotification.json";
      const what = isRequest ? "server request" : "notification";
      const newer = params171(union, method);
      if (newer) this.add(verdict(newer.validate, message.params, `${what} ${method} (0.171 ${newer.file})`));
      if (methods089(union).has(method) && !isClientToolMessage(message)) {
        const older = paramsValidator(`schema-089/${union}`, method);
        if (older) this.add(verdict(older, message.params, `${what} ${method} (0.89 schema-089/${union})`));
      }
      if (!newer && !methods089(union).has(method))
        this.add(`${what} ${method}: neither 0.171's nor 0.89's schema has this method`);
      return;
    }
    const request = this.pending.get(message.id);
    if (message.error) {
      if (message.id !== null)
        this.add(verdict(fileValidator("schema-089/JSONRPCError.json"), message, "error reply"));
      if (request) this.pending.delete(message.id);
      return;
    }
    if (!request?.method) return;
    this.pending.delete(message.id);
    this.checkReply(request.method, message.result);
    this.checkRequest(request);
  }

  private checkReply(method: string, result: unknown): void {
    const newer = RESPONSES_171[method];
    if (newer) this.add(verdict(fileValidator(newer), result, `reply to ${method} (0.171 ${newer})`));
    const listed = RESPONSES_089[method];
    const older = (typeof listed === "string" ? [listed] : (listed ?? [])).filter(
      (file) => file.startsWith("schema-089/") && !holdsOnly169Items(result),
    );
    for (const file of older)
      this.add(verdict(fileValidator(file), result, `reply to ${method} (0.89 ${file})`));
  }

  /** A client request the server accepted. */
  private checkRequest(request: WireMessage): void {
    const method = request.method ?? "";
    const experimental = EXPERIMENTAL_PARAMS_171[method];
    if (experimental) {
      this.add(
        verdict(fileValidator(experimental), request.params, `request ${method} (0.171 ${experimental})`),
      );
    } else {
      const newer = paramsValidator("schema-171/ClientRequest.json", method);
      if (newer)
        this.add(
          verdict(newer, request.params ?? null, `request ${method} (0.171 schema-171/ClientRequest.json)`),
        );
    }
    if (methods089("ClientRequest.json").has(method) && !isClientToolMessage(request)) {
      const older = paramsValidator("schema-089/ClientRequest.json", method);
      if (older)
        this.add(
          verdict(older, request.params ?? null, `request ${method} (0.89 schema-089/ClientRequest.json)`),
        );
    }
  }
}

/** Every client with a conversation under check (the setup file drains their failures). */
const checks = new Set<ConversationSchemaCheck>();

/** A new conversation's check, registered for the test hooks. */
export function newConversationCheck(): ConversationSchemaCheck {
  const check = new ConversationSchemaCheck();
  checks.add(check);
  return check;
}

/** Failures found since the last call, across every client (each reported once). */
export function takeSchemaFailures(): string[] {
  return [...checks].flatMap((check) => check.failures.splice(0));
}

(globalThis as { __tscodexSchemaRule?: unknown }).__tscodexSchemaRule = { takeSchemaFailures };
