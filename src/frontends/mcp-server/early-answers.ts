/**
 * Answers the stdio server gives before the MCP SDK is loaded: an MCP host starts its servers at
 * launch and waits for `initialize` and `tools/list`, which need nothing but constants and the
 * tool list. Only messages that are plainly valid get an early answer, and the answer is the one
 * the SDK server (server.ts) would give; anything else, or anything in doubt, returns null and
 * goes to the SDK (which is then loaded) to be validated and answered there.
 */
import type { RequestId } from "./line-splitter.js";
import { SERVER_CAPABILITIES, SERVER_INFO } from "./server-info.js";
import type { ListedTool } from "./tool-list.js";

/**
 * The protocol versions the SDK server accepts (its SUPPORTED_PROTOCOL_VERSIONS, newest first;
 * test/mcp-server/early-answers.test.ts holds the two equal): a client's version from this list
 * is echoed, any other gets the newest.
 */
export const SUPPORTED_PROTOCOL_VERSIONS = [
  "2025-11-25",
  "2025-06-18",
  "2025-03-26",
  "2024-11-05",
  "2024-10-07",
];

/** What an early-answered message does. */
export type EarlyAnswer =
  /** A request answered here; `initialize` is kept to be replayed to the SDK server later. */
  | { kind: "reply"; method: string; reply: Record<string, unknown> }
  /** A notification with nothing to do but be remembered (notifications/initialized). */
  | { kind: "note"; method: string };

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function result(id: RequestId, value: Json): Json {
  // The key order of the SDK's own replies.
  return { result: value, jsonrpc: "2.0", id };
}

/** True when every key of `value` is one of `keys`. */
function only(value: Json, keys: readonly string[]): boolean {
  return Object.keys(value).every((key) => keys.includes(key));
}

/** Each of `keys` present in `value` is an object (the SDK's checks for these are no stricter). */
function objectsAt(value: Json, keys: readonly string[]): boolean {
  return keys.every((key) => value[key] === undefined || isObject(value[key]));
}

const optionalString = (value: unknown) => value === undefined || typeof value === "string";

/** Client capabilities the SDK certainly accepts: common, simple shapes only. */
function plainCapabilities(capabilities: unknown): boolean {
  if (!isObject(capabilities)) return false;
  const { roots, sampling, elicitation, experimental } = capabilities;
  if (!only(capabilities, ["roots", "sampling", "elicitation", "experimental"])) return false;
  if (roots !== undefined) {
    if (!isObject(roots) || !only(roots, ["listChanged"])) return false;
    if (roots.listChanged !== undefined && typeof roots.listChanged !== "boolean") return false;
  }
  if (sampling !== undefined && !(isObject(sampling) && only(sampling, ["context", "tools"]))) return false;
  if (sampling !== undefined && !objectsAt(sampling as Json, ["context", "tools"])) return false;
  if (elicitation !== undefined) {
    if (!isObject(elicitation) || !only(elicitation, ["form", "url"])) return false;
    if (!objectsAt(elicitation, ["form", "url"])) return false;
    const form = elicitation.form as Json | undefined;
    if (
      form &&
      !(only(form, ["applyDefaults"]) && [undefined, true, false].includes(form.applyDefaults as boolean))
    )
      return false;
  }
  if (experimental !== undefined && !(isObject(experimental) && Object.values(experimental).every(isObject)))
    return false;
  return true;
}

function plainInitialize(params: unknown): params is { protocolVersion: string } {
  if (!isObject(params) || params._meta !== undefined) return false;
  const { protocolVersion, capabilities, clientInfo } = params;
  if (typeof protocolVersion !== "string" || !plainCapabilities(capabilities)) return false;
  if (!isObject(clientInfo) || clientInfo.icons !== undefined) return false;
  return (
    typeof clientInfo.name === "string" &&
    typeof clientInfo.version === "string" &&
    ["title", "websiteUrl", "description"].every((key) => optionalString(clientInfo[key]))
  );
}

/**
 * The early answer to `message` (a line's parsed JSON), or null when the SDK server must see it.
 * `tools` is tools/list's answer.
 */
export function earlyAnswer(message: unknown, tools: readonly ListedTool[]): EarlyAnswer | null {
  if (!isObject(message) || message.jsonrpc !== "2.0" || typeof message.method !== "string") return null;
  if (!only(message, ["jsonrpc", "id", "method", "params"])) return null;
  const { id, method, params } = message;
  if (id === undefined) {
    const plain = params === undefined || (isObject(params) && params._meta === undefined);
    return method === "notifications/initialized" && plain ? { kind: "note", method } : null;
  }
  if (!(typeof id === "string" || (typeof id === "number" && Number.isInteger(id)))) return null;
  const bare = params === undefined || (isObject(params) && Object.keys(params).length === 0);
  switch (method) {
    case "initialize": {
      if (!plainInitialize(params)) return null;
      const version = SUPPORTED_PROTOCOL_VERSIONS.includes(params.protocolVersion)
        ? params.protocolVersion
        : SUPPORTED_PROTOCOL_VERSIONS[0];
      return {
        kind: "reply",
        method,
        reply: result(id, {
          protocolVersion: version,
          capabilities: SERVER_CAPABILITIES,
          serverInfo: SERVER_INFO,
        }),
      };
    }
    case "ping":
      return bare ? { kind: "reply", method, reply: result(id, {}) } : null;
    case "tools/list": {
      // The one page holds every tool, whatever the cursor.
      const paged = isObject(params) && only(params, ["cursor"]) && typeof params.cursor === "string";
      return bare || paged ? { kind: "reply", method, reply: result(id, { tools }) } : null;
    }
    default:
      return null;
  }
}
