/**
 * The stdio server's own `codex` call: a host sends its first call right after tools/list, and
 * loading zod and the MCP SDK (its types.js builds hundreds of zod schemas) would double what
 * that call waits for. A plainly valid `tools/call` of `codex` (no idempotency key, no task) is
 * run here, over the same runtime and with the same context (progress, elicitation,
 * cancellation) and answer as the SDK server (server.ts, tool-call.ts) gives it. Anything else,
 * or anything in doubt, is null and goes to the SDK server.
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

/** `message` (a line's parsed JSON) as a plain `codex` call, or null. */
export function plainCodexCall(message: unknown): PlainCodexCall | null {
  if (!isObject(message) || message.jsonrpc !== "2.0" || message.method !== "tools/call") return null;
  if (!keysWithin(message, ["jsonrpc", "id", "method", "params"]) || !plainId(message.id)) return null;
  const { params } = message;
  if (!isObject(params) || params.name !== "codex" || !keysWithin(params, ["name", "arguments", "_meta"]))
    return null;
  const meta = params._meta;
  if (meta !== undefined && !(isObject(meta) && keysWithin(meta, ["progressToken"]))) return null;
  const progressToken = meta?.progressToken;
  if (progressToken !== undefined && !plainId(progressToken)) return null;
  const args = plainCodexArgs(params.arguments);
  if (!args) return null;
  return { id: message.id, args, ...(progressToken === undefined ? {} : { progressToken }) };
}

/** What the connection gives a call run here. */
export interface PlainCallChannel {
  signal: AbortSignal;
  /** Writes a message to the client. */
  send(message: Json): void;
  /** Sends a request and resolves with its result; present when the client declared elicitation. */
  ask?(method: string, params: Json, timeoutMs: number): Promise<unknown>;
}

/** Runs `call` on the runtime (opening meanwhile); notifications go out until the call is cancelled. */
export async function runPlainCodexCall(
  call: PlainCodexCall,
  opening: Promise<ServerRuntime>,
  { signal, send, ask }: PlainCallChannel,
): Promise<CallResult> {
  const [{ handleCodex }, { callTool, elicitationParams, elicitTimeout, toolContext }, runtime] =
    await Promise.all([import("./codex-run.js"), import("./tool-call.js"), opening]);
  const context = toolContext({
    runtime,
    signal,
    requestId: call.id,
    progressToken: call.progressToken,
    notify(method, params) {
      // The SDK server's key order: method, params, jsonrpc.
      if (!signal.aborted) send({ method, params, jsonrpc: "2.0" });
    },
    ...(ask
      ? {
          async elicit(request) {
            if (signal.aborted) throw new Error("Request was cancelled");
            const answer = await ask(
              "elicitation/create",
              elicitationParams(request),
              elicitTimeout(runtime.settings),
            );
            // The SDK server's check of the answer (a record).
            if (!isObject(answer)) throw new Error("elicitation/create: the answer is not an object");
            return answer;
          },
        }
      : {}),
  });
  return callTool({ name: "codex", handle: (_, ctx) => handleCodex(call.args, ctx) }, {}, context);
}
