/**
 * Session tools of the MCP server: listSessions, deleteSession, sessionStats, status, cancel,
 * listModels, listTools, ping, help.
 * Responsibilities: validate arguments (zod), find threads live (ThreadManager) and stored
 * (rollouts), and answer every call with text content plus structuredContent matching the
 * declared outputSchema; failures are `isError` results whose structuredContent carries `error`.
 * Locating a thread and its last turn's state: thread-state.ts.
 */
import { stat } from "node:fs/promises";
import { basename } from "node:path";
import { z } from "zod";
import { builtinProviders, missingKeyMessage, resolveProvider } from "../../config/providers.js";
import { messageText } from "../../protocol/items.js";
import type { StoredThread } from "../../session/rollout-reader.js";
import { DEFAULT_SESSION_TTL_MS } from "../../session/thread-manager.js";
import { errorMessage } from "../../util/errors.js";
import { VERSION } from "../../version.js";
import { forgetTask, taskStatus } from "./background.js";
import { clampPageSize, forgetThread, paginate, readPage } from "./pagination.js";
import type { JsonSchemaObject, ServerTool, ServerToolContext, ServerToolResult } from "./server-tool.js";
import {
  isRunning,
  type Located,
  locateThread,
  ROLLOUT_ID,
  serverConfig,
  stateOf,
  type TurnState,
  turnState,
} from "./thread-state.js";

/** How long `cancel` waits for the interrupted turn to end before answering. */
const CANCEL_WAIT_MS = 5_000;
/** listSessions shows this much of each first prompt. */
const PROMPT_PREVIEW = 200;
const LIST_TOKEN = /^ls_([A-Za-z0-9_-]+)$/;

type Structured = Record<string, unknown>;
type Handler = (args: Record<string, unknown>, context: ServerToolContext) => Promise<ServerToolResult>;

// ---------------------------------------------------------------------------------------------
// Schemas

const threadId = z.string().min(1).describe("Thread id (a unique prefix works).");
const pageSize = z
  .number()
  .int()
  .describe("Max characters per page (default 40000; clamped to 1000..200000).")
  .optional();
const pageToken = z.string().min(1).describe("nextPageToken of a previous result.").optional();
const error = z.string().describe("Set on failure (with isError).").optional();
const usage = z.object({
  input_tokens: z.number(),
  cached_input_tokens: z.number(),
  output_tokens: z.number(),
  reasoning_output_tokens: z.number(),
  total_tokens: z.number(),
});
const session = z.object({
  id: z.string(),
  turns: z.number(),
  bytes: z.number(),
  createdAt: z.string(),
  lastUsedAt: z.string(),
  expiresAt: z.string().nullable().describe("When the idle thread leaves memory; null when not loaded."),
  loaded: z.boolean(),
  cwd: z.string(),
  model: z.string(),
  firstPrompt: z.string().nullable(),
});

const noArgs = z.object({});
const threadArgs = z.object({ threadId });

// ---------------------------------------------------------------------------------------------
// Tool list

/** The session tools, in the order tools/list shows them. */
export function sessionTools(): ServerTool[] {
  return [
    tool(
      "listSessions",
      "List stored threads, newest first: id, turns, bytes, createdAt, lastUsedAt, expiresAt, cwd, first prompt. Long lists are paginated (pageSize characters per page; pass nextPageToken as pageToken).",
      z.object({ pageSize, pageToken }),
      z.object({ sessions: z.array(session), nextPageToken: z.string().optional(), error }),
      listSessions,
    ),
    tool(
      "deleteSession",
      "Delete a thread from memory and from disk (its rollout); a running turn is stopped.",
      threadArgs,
      z.object({ threadId: z.string(), deleted: z.boolean(), error }),
      deleteSession,
    ),
    tool(
      "sessionStats",
      "Statistics of one thread: turns, token usage, rollout bytes, live (in memory) and stored (on disk), whether a turn is running, the last turn's state.",
      threadArgs,
      z.object({
        threadId: z.string(),
        live: z.boolean().optional(),
        stored: z.boolean().optional(),
        running: z.boolean().optional(),
        state: turnState.optional(),
        turns: z.number().optional(),
        tokens: usage.optional(),
        bytes: z.number().optional(),
        createdAt: z.string().optional(),
        lastUsedAt: z.string().optional(),
        model: z.string().optional(),
        cwd: z.string().optional(),
        error,
      }),
      sessionStats,
    ),
    tool(
      "status",
      "Poll a thread or its background task: state (running, completed, failed, interrupted, idle) and, once done, the last answer (paginated: pageSize, pageToken).",
      z.object({ threadId, pageSize, pageToken }),
      z.object({
        threadId: z.string(),
        state: turnState.optional(),
        content: z.string().optional(),
        nextPageToken: z.string().optional(),
        error,
      }),
      status,
    ),
    tool(
      "cancel",
      "Interrupt the running turn of a thread; an error when no turn is running.",
      threadArgs,
      z.object({ threadId: z.string(), cancelled: z.boolean(), state: turnState.optional(), error }),
      cancel,
    ),
    tool(
      "listModels",
      "Models and providers from the configuration: the current default, every provider, every profile, and the model names they use.",
      noArgs,
      z.object({
        defaultModel: z.string().optional(),
        defaultProvider: z.string().optional(),
        activeProfile: z.string().nullable().optional(),
        models: z.array(z.string()).optional(),
        providers: z
          .array(
            z.object({
              id: z.string(),
              name: z.string(),
              baseUrl: z.string(),
              wireApi: z.string(),
              keyAvailable: z.boolean(),
            }),
          )
          .optional(),
        profiles: z
          .array(
            z.object({ name: z.string(), model: z.string().optional(), provider: z.string().optional() }),
          )
          .optional(),
        error,
      }),
      listModels,
    ),
    tool(
      "listTools",
      "Every tool of this server with its input (and output) JSON schema, machine-readable.",
      noArgs,
      z.object({
        tools: z.array(
          z.object({
            name: z.string(),
            description: z.string(),
            inputSchema: z.record(z.string(), z.unknown()),
            outputSchema: z.record(z.string(), z.unknown()).optional(),
          }),
        ),
      }),
      listTools,
    ),
    tool(
      "ping",
      "Check that the server is alive; returns ok and the server version.",
      noArgs,
      z.object({ ok: z.boolean(), version: z.string() }),
      async () => ok(`pong: tscodex ${VERSION}`, { ok: true, version: VERSION }),
    ),
    tool(
      "help",
      "A short usage text of every tool of this server.",
      noArgs,
      z.object({ text: z.string(), tools: z.array(z.object({ name: z.string(), usage: z.string() })) }),
      help,
    ),
  ];
}

function tool<I extends z.ZodObject, O extends z.ZodObject>(
  name: string,
  description: string,
  input: I,
  output: O,
  handle: (args: z.infer<I>, context: ServerToolContext) => Promise<ServerToolResult>,
): ServerTool {
  const run: Handler = async (args, context) => {
    const parsed = input.safeParse(args ?? {});
    if (!parsed.success) {
      const detail = parsed.error.issues
        .map((issue) => `${issue.path.join(".") || "arguments"}: ${issue.message}`)
        .join("; ");
      return fail(`Invalid arguments for ${name}: ${detail}`, errorShape(name, args));
    }
    try {
      return await handle(parsed.data, context);
    } catch (cause) {
      // A tool failure is a result, never a JSON-RPC error.
      const message = errorMessage(cause);
      return fail(`${name} failed: ${message}`, errorShape(name, args));
    }
  };
  return {
    name,
    description,
    // Derived on first read and shared: converting 18 schemas costs ~10 ms at server start.
    get inputSchema() {
      return cachedSchema(`${name}:input`, input, "input");
    },
    get outputSchema() {
      return cachedSchema(`${name}:output`, output, "output");
    },
    handle: run,
  };
}

/** The fields an error result must carry to match the tool's outputSchema. */
function errorShape(name: string, args: Record<string, unknown> | undefined): Structured {
  const id = typeof args?.threadId === "string" ? args.threadId : "";
  if (name === "listSessions") return { sessions: [] };
  if (name === "deleteSession") return { threadId: id, deleted: false };
  if (name === "cancel") return { threadId: id, cancelled: false };
  if (name === "sessionStats" || name === "status") return { threadId: id };
  return {};
}

// ---------------------------------------------------------------------------------------------
// listSessions

async function listSessions(
  args: { pageSize?: number | undefined; pageToken?: string | undefined },
  context: ServerToolContext,
): Promise<ServerToolResult> {
  let after: string | null = null;
  if (args.pageToken !== undefined) {
    after = decodeListToken(args.pageToken);
    if (after === null) {
      return fail(
        `Invalid pageToken '${args.pageToken}' for listSessions: pass the nextPageToken of a previous listSessions result unchanged.`,
        { sessions: [] },
      );
    }
  }
  const size = clampPageSize(args.pageSize);
  const ttl = sessionTtlMs();
  const all = await context.threads.list();
  // Newest first by file name (creation time, then id): a cursor survives deletions.
  const rest = after === null ? all : all.filter((summary) => basename(summary.path) < (after as string));
  const lines: string[] = [];
  const sessions: Structured[] = [];
  let used = 0;
  let nextPageToken: string | undefined;
  for (const summary of rest) {
    const loaded = context.threads.peek(summary.id) !== undefined;
    const running = loaded && (await isRunning(summary.id, null, summary.path));
    const lastUsed = Date.parse(summary.updated);
    const item = {
      id: summary.id,
      turns: summary.turns,
      bytes: await fileSize(summary.path),
      createdAt: summary.created,
      lastUsedAt: summary.updated,
      // A running thread's idle clock restarts when its turn ends.
      expiresAt: loaded ? new Date(Math.max(lastUsed, running ? Date.now() : 0) + ttl).toISOString() : null,
      loaded,
      cwd: summary.cwd,
      model: summary.model,
      firstPrompt: preview(summary.firstPrompt),
    };
    const line = JSON.stringify(item);
    if (sessions.length > 0 && used + line.length + 1 > size) {
      nextPageToken = encodeListToken(basename(lastPath(rest, sessions.length)));
      break;
    }
    used += line.length + 1;
    lines.push(line);
    sessions.push(item);
  }
  const head =
    sessions.length === 0
      ? "No stored sessions."
      : `${sessions.length} session(s), newest first${nextPageToken ? `; more with pageToken ${nextPageToken}` : ""}:`;
  return ok([head, ...lines].join("\n"), { sessions, ...(nextPageToken ? { nextPageToken } : {}) });
}

function lastPath(list: { path: string }[], count: number): string {
  return list[count - 1]?.path ?? "";
}

function encodeListToken(name: string): string {
  return `ls_${Buffer.from(name).toString("base64url")}`;
}

function decodeListToken(token: string): string | null {
  const match = LIST_TOKEN.exec(token);
  if (!match?.[1]) return null;
  const name = Buffer.from(match[1], "base64url").toString();
  return ROLLOUT_ID.test(name) ? name : null;
}

/** Thread `id` (or a unique prefix) wherever it is; an error result when it is nowhere. */
async function locate(id: string, context: ServerToolContext): Promise<Located | ServerToolResult> {
  const found = await locateThread(id, context);
  return "error" in found ? fail(found.error, { threadId: id }) : found;
}

function isResult(value: Located | ServerToolResult): value is ServerToolResult {
  return "content" in value;
}

// ---------------------------------------------------------------------------------------------
// deleteSession, sessionStats

async function deleteSession(
  args: { threadId: string },
  context: ServerToolContext,
): Promise<ServerToolResult> {
  const found = await locate(args.threadId, context);
  if (isResult(found)) return withFields(found, { deleted: false });
  const wasLive = context.threads.peek(found.id) !== undefined;
  const removed = await context.threads.delete(found.id);
  forgetThread(found.id);
  forgetTask(found.id);
  if (!removed && !wasLive) {
    return fail(`Session not found for thread_id: ${args.threadId}`, { threadId: found.id, deleted: false });
  }
  return ok(`Deleted session ${found.id}.`, { threadId: found.id, deleted: true });
}

async function sessionStats(
  args: { threadId: string },
  context: ServerToolContext,
): Promise<ServerToolResult> {
  const found = await locate(args.threadId, context);
  if (isResult(found)) return found;
  const thread = context.threads.peek(found.id);
  const state = await stateOf(found, context);
  const stats = {
    threadId: found.id,
    live: thread !== undefined,
    stored: found.path !== null,
    running: state === "running",
    state,
    turns: found.stored?.turns ?? 0,
    tokens: found.stored?.usage ?? thread?.totalUsage ?? zeroUsage(),
    bytes: found.path ? await fileSize(found.path) : 0,
    ...(found.stored
      ? {
          createdAt: found.stored.meta.created,
          lastUsedAt: found.stored.updated,
          model: found.stored.meta.model,
          cwd: found.stored.meta.cwd,
        }
      : {}),
  };
  const text = [
    `Session ${found.id}: ${stats.live ? "live" : "not loaded"}, ${stats.stored ? "stored" : "not stored"}, last turn ${state}`,
    `turns ${stats.turns}, tokens ${stats.tokens.total_tokens} (input ${stats.tokens.input_tokens}, output ${stats.tokens.output_tokens}), rollout ${stats.bytes} bytes`,
  ].join("\n");
  return ok(text, stats);
}

// ---------------------------------------------------------------------------------------------
// status, cancel

async function status(
  args: { threadId: string; pageSize?: number | undefined; pageToken?: string | undefined },
  context: ServerToolContext,
): Promise<ServerToolResult> {
  const found = await locate(args.threadId, context);
  if (isResult(found)) return found;
  const task = taskStatus(found.id);
  // A turn running now wins; else a finished background task's own outcome and result.
  const current = await stateOf(found, context);
  const state = current === "running" ? "running" : (task?.state ?? current);
  if (args.pageToken !== undefined) {
    const page = readPage(args.pageToken);
    if ("error" in page) return fail(page.error, { threadId: found.id, state });
    return pageResult(found.id, state, page);
  }
  if (state === "running") return ok(`Thread ${found.id} is running.`, { threadId: found.id, state });
  if (task?.result) return pageResult(found.id, state, taskPage(found.id, task.result, args.pageSize));
  return pageResult(found.id, state, paginate(found.id, answerOf(found.stored, state), args.pageSize));
}

/**
 * A finished task's first page: a codex result is already paginated (its structuredContent
 * holds the page and nextPageToken); any other result's text is paginated here.
 */
function taskPage(threadId: string, result: ServerToolResult, pageSize: number | undefined) {
  const content = result.structuredContent?.content;
  const next = result.structuredContent?.nextPageToken;
  if (typeof content === "string")
    return typeof next === "string" ? { text: content, nextPageToken: next } : { text: content };
  return paginate(threadId, resultText(result), pageSize);
}

function pageResult(
  threadId: string,
  state: TurnState,
  page: { text: string; nextPageToken?: string },
): ServerToolResult {
  const structured = {
    threadId,
    state,
    content: page.text,
    ...(page.nextPageToken ? { nextPageToken: page.nextPageToken } : {}),
  };
  const result = ok(page.text, structured);
  if (page.nextPageToken) {
    result.content.push({
      type: "text",
      text: `[more: call status with threadId ${threadId} and pageToken ${page.nextPageToken}]`,
    });
  }
  return result;
}

function resultText(result: ServerToolResult): string {
  return result.content.flatMap((part) => (part.type === "text" ? [part.text] : [])).join("\n");
}

/** The answer of a stored thread's last turn: its last assistant message, or what ended it. */
function answerOf(stored: StoredThread | null, state: TurnState): string {
  if (state === "idle") return "The thread has no turns yet.";
  let answer = "";
  for (const item of stored?.history ?? []) {
    if (item.type === "message" && item.role === "assistant") answer = messageText(item);
  }
  if (state === "failed") {
    const failed = stored?.lines.findLast(
      (line) => line.type === "event" && line.payload.type === "turn_failed",
    );
    const message =
      failed?.type === "event" && failed.payload.type === "turn_failed" ? failed.payload.message : "";
    return `The last turn failed: ${message}`;
  }
  if (state === "interrupted")
    return answer
      ? `The last turn was interrupted. Last answer:\n${answer}`
      : "The last turn was interrupted.";
  return answer;
}

async function cancel(args: { threadId: string }, context: ServerToolContext): Promise<ServerToolResult> {
  const found = await locate(args.threadId, context);
  if (isResult(found)) return withFields(found, { cancelled: false });
  const thread = context.threads.peek(found.id);
  if (!thread || (await stateOf(found, context)) !== "running") {
    return fail(`No running turn to cancel in thread ${found.id}.`, { threadId: found.id, cancelled: false });
  }
  const ended = new Promise<TurnState>((resolve) => {
    const timer = setTimeout(() => finish("running"), CANCEL_WAIT_MS);
    const unsubscribe = thread.subscribe((event) => {
      if (event.type === "turn_aborted") finish("interrupted");
      if (event.type === "turn_complete") finish("completed");
      if (event.type === "turn_failed") finish("failed");
    });
    function finish(state: TurnState) {
      clearTimeout(timer);
      unsubscribe();
      resolve(state);
    }
  });
  thread.interrupt();
  const state = await ended;
  const text =
    state === "running"
      ? `Interrupt sent to thread ${found.id}; the turn has not ended yet (poll status).`
      : `Cancelled the running turn of thread ${found.id} (${state}).`;
  return ok(text, { threadId: found.id, cancelled: true, state });
}

// ---------------------------------------------------------------------------------------------
// listModels, listTools, help

async function listModels(_args: unknown, context: ServerToolContext): Promise<ServerToolResult> {
  const config = await serverConfig(context);
  const env = process.env;
  const configured = { ...builtinProviders(env), ...(config.raw.model_providers ?? {}) };
  const providers = Object.entries(configured).map(([id, provider]) => {
    const resolved = resolveProvider(id, provider, env);
    return {
      id,
      name: resolved.name,
      baseUrl: resolved.baseUrl,
      wireApi: resolved.wireApi,
      keyAvailable: missingKeyMessage(id, provider, env) === null,
    };
  });
  const profiles = Object.entries(config.raw.profiles ?? {}).map(([name, profile]) => ({
    name,
    ...(profile.model ? { model: profile.model } : {}),
    ...(profile.model_provider ? { provider: profile.model_provider } : {}),
  }));
  const models = [
    ...new Set([config.model, ...profiles.flatMap((profile) => (profile.model ? [profile.model] : []))]),
  ];
  const activeProfile = context.settings.profile ?? config.raw.profile ?? null;
  const structured = {
    defaultModel: config.model,
    defaultProvider: config.provider.id,
    activeProfile,
    models,
    providers,
    profiles,
  };
  const text = [
    `Default: ${config.model} via ${config.provider.id}${activeProfile ? ` (profile ${activeProfile})` : ""}`,
    `Models: ${models.join(", ")}`,
    `Providers: ${providers.map((p) => `${p.id} (${p.wireApi}, ${p.baseUrl}${p.keyAvailable ? "" : ", key missing"})`).join("; ")}`,
    `Profiles: ${profiles.length ? profiles.map((p) => `${p.name}${p.model ? ` → ${p.model}` : ""}`).join(", ") : "none"}`,
  ].join("\n");
  return ok(text, structured);
}

/** The served tools: the server's getter, else the standard list tools.ts builds. */
async function serverToolList(context: ServerToolContext): Promise<ServerTool[]> {
  if (context.listServerTools) return context.listServerTools();
  // Imported when called: tools.ts imports this module, so a static import would be a cycle.
  const { serverTools } = await import("./tools.js");
  return serverTools();
}

async function listTools(_args: unknown, context: ServerToolContext): Promise<ServerToolResult> {
  const tools = (await serverToolList(context)).map((entry) => ({
    name: entry.name,
    description: entry.description,
    inputSchema: entry.inputSchema,
    ...(entry.outputSchema ? { outputSchema: entry.outputSchema } : {}),
  }));
  return ok(JSON.stringify({ tools }, null, 2), { tools });
}

async function help(_args: unknown, context: ServerToolContext): Promise<ServerToolResult> {
  const tools = (await serverToolList(context)).map((entry) => ({
    name: entry.name,
    usage: usageLine(entry),
  }));
  const text = [
    `tscodex ${VERSION} MCP server tools:`,
    ...tools.map((entry) => `- ${entry.usage}`),
    "Long results return nextPageToken; pass it back as pageToken. Ids: threadId (a unique prefix works).",
  ].join("\n");
  return ok(text, { text, tools });
}

/** `name(required, optional?): first sentence of the description`. */
function usageLine(entry: ServerTool): string {
  const properties = Object.keys((entry.inputSchema.properties as Record<string, unknown> | undefined) ?? {});
  const required = new Set((entry.inputSchema.required as string[] | undefined) ?? []);
  const params = properties.map((name) => (required.has(name) ? name : `${name}?`)).join(", ");
  const sentence = /^[\s\S]*?[.!?](?=\s|$)/.exec(entry.description)?.[0] ?? entry.description;
  return `${entry.name}(${params}): ${sentence}`;
}

// ---------------------------------------------------------------------------------------------
// Helpers

function sessionTtlMs(): number {
  const fromEnv = Number(process.env.TSCODEX_SESSION_TTL_MS);
  return fromEnv > 0 ? fromEnv : DEFAULT_SESSION_TTL_MS;
}

async function fileSize(path: string): Promise<number> {
  return stat(path).then(
    (info) => info.size,
    () => 0,
  );
}

function preview(prompt: string | null): string | null {
  if (prompt === null || prompt.length <= PROMPT_PREVIEW) return prompt;
  return `${prompt.slice(0, PROMPT_PREVIEW)}…`;
}

function zeroUsage() {
  return {
    input_tokens: 0,
    cached_input_tokens: 0,
    output_tokens: 0,
    reasoning_output_tokens: 0,
    total_tokens: 0,
  };
}

function ok(text: string, structuredContent: Structured): ServerToolResult {
  return { content: [{ type: "text", text }], structuredContent };
}

function fail(text: string, structured: Structured): ServerToolResult {
  return {
    content: [{ type: "text", text }],
    structuredContent: { ...structured, error: text },
    isError: true,
  };
}

function withFields(result: ServerToolResult, fields: Structured): ServerToolResult {
  return { ...result, structuredContent: { ...result.structuredContent, ...fields } };
}

const schemas = new Map<string, JsonSchemaObject>();

function cachedSchema(key: string, schema: z.ZodObject, io: "input" | "output"): JsonSchemaObject {
  let json = schemas.get(key);
  if (!json) {
    json = jsonSchema(schema, io);
    schemas.set(key, json);
  }
  return json;
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
