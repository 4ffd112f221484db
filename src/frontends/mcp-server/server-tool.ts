/**
 * The contract between the MCP server (server.ts: transports, tools/list, tools/call) and the
 * tools it serves. A tool is defined once, with `defineServerTool`: its zod input schema both
 * validates the arguments and becomes tools/list's inputSchema; its zod output schema is the
 * outputSchema of its structuredContent. Tools hold no state: what lives as long as the server
 * (threads, session aliases, background tasks, result pages) is on the ServerRuntime every call
 * gets in its context.
 */
import { z } from "zod";
import type { Config } from "../../config/load.js";
import type { TraceCarrier } from "../../protocol/telemetry.js";
import type { ThreadManager } from "../../session/thread-manager.js";
import type { BackgroundTasks } from "./background.js";
import type { KeyedCalls } from "./keyed-calls.js";
import type { PageStore } from "./pagination.js";
import { plainError, type ServerToolResult } from "./results.js";

/** JSON Schema as sent in tools/list. */
export type JsonSchemaObject = { type: "object"; [key: string]: unknown };

/** What one server shares across its connections and calls, and no other server sees. */
export interface ServerRuntime {
  /** The server's configuration (its home, profile and -c overrides). */
  config: Config;
  threads: ThreadManager;
  settings: ServerSettings;
  /** Every tool the server serves, in tools/list order (listTools and help read it); read only after `loadTools`. */
  readonly tools: readonly ServerTool[];
  /** Loads the tools' definitions (zod schemas) once; `tools` is readable after. */
  loadTools(): Promise<readonly ServerTool[]>;
  /**
   * Client-chosen session names (the CLI wrappers' `sessionId`, which need not be a UUID) →
   * thread ids. In memory: a restarted server continues threads by their real id.
   */
  aliases: Map<string, string>;
  /** Turns of `codex` calls with `background: true`, polled by `status`. */
  tasks: BackgroundTasks;
  /** The further pages of long results (`pageToken`). */
  pages: PageStore;
  /** tools/calls made with an `Idempotency-Key` header (HTTP): run once per key. */
  keyedCalls: KeyedCalls;
  /** Shut live threads down and flush their rollouts. */
  close(): Promise<void>;
}

/** What a tool call may use: the server runtime, progress, approvals, cancellation. */
export interface ServerToolContext {
  runtime: ServerRuntime;
  /** Sends notifications/progress when the client gave a progressToken; otherwise a no-op. */
  progress(message: string): void;
  /** Asks the client via elicitation/create when it declared the capability; null otherwise. */
  elicit?(request: {
    message: string;
    meta: Record<string, unknown>;
    /** The form to fill in (default: no fields, an accept/decline question). */
    requestedSchema?: Record<string, unknown>;
  }): Promise<Record<string, unknown> | null>;
  /** Aborted when the client cancels the request (notifications/cancelled) or disconnects. */
  signal: AbortSignal;
  /** The JSON-RPC id of the tools/call being served (Codex's `codex_mcp_tool_call_id`). */
  requestId?: string | number;
  /** Sends any notification tied to this call (e.g. `codex/event` with --raw-events). */
  notify?(method: string, params: Record<string, unknown>): void;
  /** The caller's W3C trace context: the turn this call runs joins it. */
  trace?: TraceCarrier | undefined;
}

export interface ServerSettings {
  /** TSCODEX_HOME-relative config overrides applied to every thread (from the CLI's -c). */
  configOverrides: Record<string, unknown>;
  /** Raw codex/event notifications alongside progress (off by default). */
  rawEvents: boolean;
  /** The config home threads live in (per-call `config`/`profile` are loaded from it). */
  home?: string;
  /** The CLI's profile, if any (a call's `profile` wins). */
  profile?: string;
  /** Bound on an elicitation answer (config `approval_timeout_ms`); then the declared outcome. */
  approvalTimeoutMs?: number;
}

/** A served tool as the server sees it: tools/list's entry and a handler of raw arguments. */
export interface ServerTool {
  name: string;
  title?: string;
  description: string;
  inputSchema: JsonSchemaObject;
  /** Undefined when the tool declares no structuredContent. */
  outputSchema?: JsonSchemaObject | undefined;
  /** Validates `args` against the tool's input schema, then runs it. */
  handle(args: Record<string, unknown>, context: ServerToolContext): Promise<ServerToolResult>;
}

export interface ServerToolSpec<I extends z.ZodObject, O extends z.ZodObject> {
  name: string;
  title?: string;
  description: string;
  /** The arguments: validated before `handle`, and tools/list's inputSchema. */
  input: I;
  /** The structuredContent of a successful result: tools/list's outputSchema. */
  output?: O;
  /** The result of a call whose arguments fail `input` (default: `Invalid arguments for NAME: …`). */
  invalid?(error: z.ZodError, args: Record<string, unknown>): ServerToolResult;
  handle(args: z.output<I>, context: ServerToolContext): Promise<ServerToolResult>;
}

/** A served tool from one zod schema per side; JSON schemas are derived on first read. */
export function defineServerTool<I extends z.ZodObject, O extends z.ZodObject>(
  spec: ServerToolSpec<I, O>,
): ServerTool {
  let input: JsonSchemaObject | undefined;
  let output: JsonSchemaObject | undefined;
  const invalid = spec.invalid ?? ((error) => plainError(invalidArguments(spec.name, error)));
  return {
    name: spec.name,
    ...(spec.title ? { title: spec.title } : {}),
    description: spec.description,
    // Derived when first listed: converting every schema would cost ~10 ms at server start.
    get inputSchema() {
      input ??= jsonSchema(spec.input, "input");
      return input;
    },
    get outputSchema() {
      if (spec.output) output ??= jsonSchema(spec.output, "output");
      return output;
    },
    async handle(args, context) {
      const parsed = spec.input.safeParse(args);
      if (!parsed.success) return invalid(parsed.error, args);
      return spec.handle(parsed.data, context);
    },
  };
}

/** `Invalid arguments for NAME: path: message; …` for every issue of `error`. */
export function invalidArguments(name: string, error: z.ZodError): string {
  const detail = error.issues
    .map((issue) => `${issue.path.join(".") || "arguments"}: ${issue.message}`)
    .join("; ");
  return `Invalid arguments for ${name}: ${detail}`;
}

/** JSON schema of a zod object for tools/list (no `$schema`, no ±2^53 integer bounds). */
function jsonSchema(schema: z.ZodObject, io: "input" | "output"): JsonSchemaObject {
  const { $schema: _, ...rest } = z.toJSONSchema(schema, { io }) as Record<string, unknown>;
  return stripSafeBounds({ ...rest, type: "object" }) as JsonSchemaObject;
}

function stripSafeBounds(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(stripSafeBounds);
  if (value === null || typeof value !== "object") return value;
  const out: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) {
    if ((key === "minimum" || key === "maximum") && Math.abs(Number(inner)) === Number.MAX_SAFE_INTEGER)
      continue;
    out[key] = stripSafeBounds(inner);
  }
  return out;
}
