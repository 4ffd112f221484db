/**
 * The stdio server's own `codex` call: a host sends its first call right after tools/list, and
 * loading zod and the MCP SDK (its types.js builds hundreds of zod schemas) would double what
 * that call waits for. A plainly valid `tools/call` of `codex` that needs nothing but progress
 * (no elicitation declared by the client, no idempotency key) is run here, over the same
 * runtime and with the same context and answer as the SDK server (server.ts, tool-call.ts)
 * gives it. Anything else, or anything in doubt, is null and goes to the SDK server.
 */
import { plainCodexArgs } from "./codex-plain-args.js";
import type { CodexArgs } from "./codex-schema.js";
import type { RequestId } from "./line-splitter.js";
import type { ServerRuntime } from "./server-tool.js";
import type { CallResult } from "./tool-call.js";

type Json = Record<string, unknown>;

/** A call this module can run. */
export interface PlainCodexCall {
  id: RequestId;
  args: CodexArgs;
  progressToken?: string | number;
}

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

const keysWithin = (value: Json, keys: readonly string[]) =>
  Object.keys(value).every((key) => keys.includes(key));
const plainId = (value: unknown): value is string | number =>
  typeof value === "string" || Number.isSafeInteger(value);

/**
 * `message` (a line's parsed JSON) as a plain `codex` call, or null. `clientCapabilities` are the
 * ones the client's initialize declared: a client that can answer elicitation goes to the SDK.
 */
export function plainCodexCall(message: unknown, clientCapabilities: unknown): PlainCodexCall | null {
  if (!isObject(message) || message.jsonrpc !== "2.0" || message.method !== "tools/call") return null;
  if (!keysWithin(message, ["jsonrpc", "id", "method", "params"]) || !plainId(message.id)) return null;
  const { params } = message;
  if (!isObject(params) || params.name !== "codex" || !keysWithin(params, ["name", "arguments", "_meta"]))
    return null;
  if (isObject(clientCapabilities) && clientCapabilities.elicitation !== undefined) return null;
  const meta = params._meta;
  if (meta !== undefined && !(isObject(meta) && keysWithin(meta, ["progressToken"]))) return null;
  const progressToken = meta?.progressToken;
  if (progressToken !== undefined && !plainId(progressToken)) return null;
  const args = plainCodexArgs(params.arguments);
  if (!args) return null;
  return { id: message.id, args, ...(progressToken === undefined ? {} : { progressToken }) };
}

/** Runs `call` on `runtime`; notifications go out through `send` until `signal` is aborted. */
export async function runPlainCodexCall(
  call: PlainCodexCall,
  runtime: ServerRuntime,
  signal: AbortSignal,
  send: (message: Json) => void,
): Promise<CallResult> {
  const [{ handleCodex }, { callTool, toolContext }] = await Promise.all([
    import("./codex-run.js"),
    import("./tool-call.js"),
  ]);
  const context = toolContext({
    runtime,
    signal,
    requestId: call.id,
    progressToken: call.progressToken,
    notify(method, params) {
      // The SDK server's key order: method, params, jsonrpc.
      if (!signal.aborted) send({ method, params, jsonrpc: "2.0" });
    },
  });
  return callTool({ name: "codex", handle: (_, ctx) => handleCodex(call.args, ctx) }, {}, context);
}
