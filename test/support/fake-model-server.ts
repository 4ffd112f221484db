/**
 * The project's scripted fake model server: a real node:http server on 127.0.0.1 that answers
 * `POST …/responses` (Responses SSE, event names and payloads as OpenAI sends them) and
 * `POST …/chat/completions` (chat.completion.chunk SSE ending in `data: [DONE]`).
 *
 * Scripts are wire-neutral: `turn(reasoning("plan"), message("hi"), functionCall("shell", {...}))`
 * renders in the format of whichever endpoint the client hit. Each request consumes the next
 * scripted entry; with none left the server answers 500 "fake model server: no scripted turn left"
 * (and records it in `server.errors`) so a test fails loudly instead of hanging.
 *
 * Chat limits: customToolCall renders as a function call whose arguments are `{"input": …}`;
 * webSearchCall and localShellCall cannot be expressed and answer 500 (recorded in `errors`);
 * failed() becomes an `{"error": …}` chunk; incomplete() becomes finish_reason "length".
 *
 * ```ts
 * const server = await startFakeModelServer();
 * server.enqueue(turn(functionCall("shell_command", { command: "ls" }, "call_1")), turn(message("done")));
 * // … run the client against server.url / server.provider() …
 * expect(server.requests[1]?.input.at(-1)).toMatchObject({ type: "function_call_output", call_id: "call_1" });
 * await server.close();
 * ```
 */
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import type { ProviderInfo, WireApi } from "../../src/model/types.js";
import type { ResponseItem } from "../../src/protocol/items.js";

// ---------------------------------------------------------------------------------------------
// Script parts

export interface UsageSpec {
  input: number;
  output: number;
  cached?: number;
  reasoning?: number;
  /** Default input + output. */
  total?: number;
}

export type TurnPart =
  | { kind: "reasoning"; summary: string[]; raw?: string | undefined; encrypted?: string | undefined }
  | { kind: "message"; text: string }
  | { kind: "function_call"; name: string; arguments: string; callId?: string | undefined }
  | { kind: "custom_tool_call"; name: string; input: string; callId?: string | undefined }
  | { kind: "local_shell_call"; command: string[]; callId?: string | undefined }
  | { kind: "web_search_call"; query: string }
  | { kind: "usage"; usage: UsageSpec }
  | { kind: "delay"; ms: number }
  | { kind: "drop_after"; events: number }
  | { kind: "hang" }
  | { kind: "hold"; until: Promise<unknown> }
  | { kind: "keepalive"; everyMs: number }
  | { kind: "end_stream" }
  | { kind: "failed"; message: string; code: string }
  | { kind: "incomplete"; reason: string }
  | { kind: "raw"; data: string; event?: string | undefined };

/** A scripted streamed answer (status 200, SSE). */
export interface ScriptedTurn {
  kind: "turn";
  parts: TurnPart[];
}

/** A scripted non-2xx answer. */
export interface ScriptedHttpError {
  kind: "http_error";
  status: number;
  body: string;
  headers: Record<string, string>;
}

export type Script = ScriptedTurn | ScriptedHttpError;
/** A script, or a function building one from the request it answers. */
export type ScriptEntry = Script | ((request: RecordedRequest) => Script);

/** One streamed answer made of the given parts, in order. */
export function turn(...parts: TurnPart[]): ScriptedTurn {
  return { kind: "turn", parts };
}

/** Reasoning: summary parts (Responses) / `delta.reasoning` (chat). `raw` adds reasoning_text deltas. */
export function reasoning(
  summary: string | string[],
  options: { raw?: string; encrypted?: string } = {},
): TurnPart {
  const parts = typeof summary === "string" ? [summary] : summary;
  return { kind: "reasoning", summary: parts, raw: options.raw, encrypted: options.encrypted };
}

/** An assistant message, streamed in a few text deltas. */
export function message(text: string): TurnPart {
  return { kind: "message", text };
}

/** A function call; `args` as an object is JSON-encoded, a string is sent verbatim (bad JSON tests). */
export function functionCall(name: string, args: object | string = {}, callId?: string): TurnPart {
  const encoded = typeof args === "string" ? args : JSON.stringify(args);
  return { kind: "function_call", name, arguments: encoded, callId };
}

/** A freeform (custom) tool call such as apply_patch. Chat: a function call with `{"input": …}`. */
export function customToolCall(name: string, input: string, callId?: string): TurnPart {
  return { kind: "custom_tool_call", name, input, callId };
}

/** A local_shell_call item (Responses only). */
export function localShellCall(command: string[], callId?: string): TurnPart {
  return { kind: "local_shell_call", command, callId };
}

/** A provider-side web search (Responses only): added/searching/completed events and the item. */
export function webSearchCall(query: string): TurnPart {
  return { kind: "web_search_call", query };
}

/** Token usage reported with completion (Responses `usage`, chat final usage chunk). */
export function usage(spec: UsageSpec): TurnPart {
  return { kind: "usage", usage: spec };
}

/** Pause before the next event (at the start: after the headers, before the first event). */
export function delay(ms: number): TurnPart {
  return { kind: "delay", ms };
}

/** Send only the first `events` SSE events of the turn, then destroy the socket. */
export function dropAfter(events: number): TurnPart {
  return { kind: "drop_after", events };
}

/** Stop sending at this point and keep the connection open (idle-timeout tests). */
export function hang(): TurnPart {
  return { kind: "hang" };
}

/**
 * Stop sending at this point until `until` settles, then go on (a turn held open until the test
 * lets it finish).
 */
export function hold(until: Promise<unknown>): TurnPart {
  return { kind: "hold", until };
}

/**
 * Stop progressing but keep the stream alive: `: ping` comments and `response.in_progress`
 * events every `everyMs`, until the client goes away (keepalive-only stream tests).
 */
export function keepalive(everyMs: number): TurnPart {
  return { kind: "keepalive", everyMs };
}

/** End the response cleanly at this point: no more events, no completion, no `[DONE]`. */
export function endStream(): TurnPart {
  return { kind: "end_stream" };
}

/** End with `response.failed` (chat: an `{"error": …}` chunk) instead of completion. */
export function failed(message: string, code = "server_error"): TurnPart {
  return { kind: "failed", message, code };
}

/** End with `response.incomplete` (chat: finish_reason "length"). */
export function incomplete(reason = "max_output_tokens"): TurnPart {
  return { kind: "incomplete", reason };
}

/** A verbatim SSE event at this position; objects are JSON-encoded. */
export function raw(data: string | object, event?: string): TurnPart {
  return { kind: "raw", data: typeof data === "string" ? data : JSON.stringify(data), event };
}

/** A non-2xx answer, e.g. `httpError(429, "slow down", { "retry-after": "1" })`. */
export function httpError(
  status: number,
  body: string | object = "",
  headers: Record<string, string> = {},
): Script {
  const text = typeof body === "string" ? body : JSON.stringify(body);
  const type = typeof body === "string" ? "text/plain" : "application/json";
  return { kind: "http_error", status, body: text, headers: { "content-type": type, ...headers } };
}

// ---------------------------------------------------------------------------------------------
// Recorded requests

export interface RecordedRequest {
  method: string;
  /** Path without the query string, e.g. "/v1/responses". */
  path: string;
  query: Record<string, string>;
  /** Lower-cased, as node parses them. */
  headers: IncomingHttpHeaders;
  rawBody: string;
  /** Parsed JSON body ({} when the body is not a JSON object). */
  body: Record<string, unknown>;
  wire: WireApi | "other";
  /** Responses `input` ([] on chat). */
  input: ResponseItem[];
  /** Chat `messages` ([] on Responses). */
  messages: Record<string, unknown>[];
  /** Offered tools by name (function/custom by `name`, others by `type`). */
  toolNames: string[];
  /** The client's port: equal ports on two requests mean a reused keep-alive connection. */
  remotePort: number | undefined;
}

function record(req: IncomingMessage, rawBody: string): RecordedRequest {
  const url = new URL(req.url ?? "/", "http://fake");
  let body: Record<string, unknown> = {};
  try {
    const parsed: unknown = JSON.parse(rawBody);
    if (isRecord(parsed)) body = parsed;
  } catch {}
  const wire = url.pathname.endsWith("/responses")
    ? "responses"
    : url.pathname.endsWith("/chat/completions")
      ? "chat"
      : "other";
  const records = (value: unknown): Record<string, unknown>[] =>
    Array.isArray(value) ? value.filter(isRecord) : [];
  const toolNames = records(body.tools).map((tool) =>
    typeof tool.name === "string" ? tool.name : typeof tool.type === "string" ? tool.type : "?",
  );
  return {
    method: req.method ?? "GET",
    path: url.pathname,
    query: Object.fromEntries(url.searchParams),
    headers: req.headers,
    rawBody,
    body,
    wire,
    // The client wrote these items; the test reads them back as the same shapes.
    input: wire === "responses" ? (records(body.input) as unknown as ResponseItem[]) : [],
    messages: wire === "chat" ? records(body.messages) : [],
    toolNames,
    remotePort: req.socket.remotePort,
  };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

// ---------------------------------------------------------------------------------------------
// Rendering: a turn becomes steps (SSE text, pauses, a hang) for one wire.

type Step =
  | { kind: "sse"; text: string }
  | { kind: "delay"; ms: number }
  | { kind: "hang" }
  | { kind: "hold"; until: Promise<unknown> }
  | { kind: "keepalive"; ms: number }
  | { kind: "end" };

interface Rendered {
  steps: Step[];
  dropAfter: number | undefined;
}

/** Ids are counted per server so that they are stable within a test. */
interface Counters {
  next(prefix: string): string;
}

function pieces(text: string, count = 3): string[] {
  const chars = Array.from(text);
  if (chars.length === 0) return [""];
  const size = Math.ceil(chars.length / count);
  const out: string[] = [];
  for (let i = 0; i < chars.length; i += size) out.push(chars.slice(i, i + size).join(""));
  return out;
}

function sseEvent(event: string | undefined, data: string): Step {
  return { kind: "sse", text: `${event === undefined ? "" : `event: ${event}\n`}data: ${data}\n\n` };
}

function control(part: TurnPart, steps: Step[], rendered: Rendered): boolean {
  if (part.kind === "delay") steps.push({ kind: "delay", ms: part.ms });
  else if (part.kind === "hang") steps.push({ kind: "hang" });
  else if (part.kind === "hold") steps.push({ kind: "hold", until: part.until });
  else if (part.kind === "keepalive") steps.push({ kind: "keepalive", ms: part.everyMs });
  else if (part.kind === "end_stream") steps.push({ kind: "end" });
  else if (part.kind === "drop_after") rendered.dropAfter = part.events;
  else if (part.kind === "raw") steps.push(sseEvent(part.event, part.data));
  else return false;
  return true;
}

function renderResponses(parts: TurnPart[], model: string, ids: Counters): Rendered {
  const steps: Step[] = [];
  const rendered: Rendered = { steps, dropAfter: undefined };
  let sequence = 0;
  const emit = (type: string, fields: Record<string, unknown>): void => {
    steps.push(sseEvent(type, JSON.stringify({ type, sequence_number: sequence++, ...fields })));
  };
  const response = { id: ids.next("resp_"), object: "response", created_at: 1_700_000_000, model };
  const output: Record<string, unknown>[] = [];
  let usageObject: Record<string, unknown> | null = null;
  let ending: TurnPart | undefined;

  emit("response.created", { response: { ...response, status: "in_progress", output: [] } });
  for (const part of parts) {
    if (control(part, steps, rendered)) continue;
    const output_index = output.length;
    /** Announces the item; `done` is what the final response's `output` lists. */
    const item = (done: Record<string, unknown>, added: Record<string, unknown> = done): void => {
      emit("response.output_item.added", { output_index, item: added });
      output.push(done);
    };
    const doneItem = (done: Record<string, unknown>): void => {
      emit("response.output_item.done", { output_index, item: done });
    };
    switch (part.kind) {
      case "message": {
        const id = ids.next("msg_");
        const done = {
          id,
          type: "message",
          status: "completed",
          role: "assistant",
          content: [textPart(part.text)],
        };
        item(done, { ...done, status: "in_progress", content: [] });
        const at = { item_id: id, output_index, content_index: 0 };
        emit("response.content_part.added", { ...at, part: textPart("") });
        for (const delta of pieces(part.text))
          emit("response.output_text.delta", { ...at, delta, logprobs: [] });
        emit("response.output_text.done", { ...at, text: part.text, logprobs: [] });
        emit("response.content_part.done", { ...at, part: textPart(part.text) });
        doneItem(done);
        break;
      }
      case "reasoning": {
        const id = ids.next("rs_");
        const done: Record<string, unknown> = {
          id,
          type: "reasoning",
          summary: part.summary.map((text) => ({ type: "summary_text", text })),
        };
        if (part.raw !== undefined) done.content = [{ type: "reasoning_text", text: part.raw }];
        if (part.encrypted !== undefined) done.encrypted_content = part.encrypted;
        item(done, { id, type: "reasoning", summary: [] });
        part.summary.forEach((text, summary_index) => {
          const at = { item_id: id, output_index, summary_index };
          emit("response.reasoning_summary_part.added", { ...at, part: { type: "summary_text", text: "" } });
          for (const delta of pieces(text)) emit("response.reasoning_summary_text.delta", { ...at, delta });
          emit("response.reasoning_summary_text.done", { ...at, text });
          emit("response.reasoning_summary_part.done", { ...at, part: { type: "summary_text", text } });
        });
        if (part.raw !== undefined) {
          const at = { item_id: id, output_index, content_index: 0 };
          for (const delta of pieces(part.raw)) emit("response.reasoning_text.delta", { ...at, delta });
          emit("response.reasoning_text.done", { ...at, text: part.raw });
        }
        doneItem(done);
        break;
      }
      case "function_call": {
        const id = ids.next("fc_");
        const call_id = part.callId ?? ids.next("call_");
        const done = {
          id,
          type: "function_call",
          status: "completed",
          arguments: part.arguments,
          call_id,
          name: part.name,
        };
        item(done, { ...done, status: "in_progress", arguments: "" });
        for (const delta of pieces(part.arguments))
          emit("response.function_call_arguments.delta", { item_id: id, output_index, delta });
        emit("response.function_call_arguments.done", {
          item_id: id,
          output_index,
          arguments: part.arguments,
        });
        doneItem(done);
        break;
      }
      case "custom_tool_call": {
        const id = ids.next("ctc_");
        const call_id = part.callId ?? ids.next("call_");
        const done = {
          id,
          type: "custom_tool_call",
          status: "completed",
          call_id,
          name: part.name,
          input: part.input,
        };
        item(done, { ...done, status: "in_progress", input: "" });
        for (const delta of pieces(part.input))
          emit("response.custom_tool_call_input.delta", { item_id: id, output_index, delta });
        emit("response.custom_tool_call_input.done", { item_id: id, output_index, input: part.input });
        doneItem(done);
        break;
      }
      case "local_shell_call": {
        const id = ids.next("lsh_");
        const call_id = part.callId ?? ids.next("call_");
        const action = {
          type: "exec",
          command: part.command,
          timeout_ms: null,
          working_directory: null,
          env: null,
          user: null,
        };
        const done = { id, type: "local_shell_call", status: "completed", call_id, action };
        item(done);
        doneItem(done);
        break;
      }
      case "web_search_call": {
        const id = ids.next("ws_");
        const done = {
          id,
          type: "web_search_call",
          status: "completed",
          action: { type: "search", query: part.query },
        };
        item(done, { id, type: "web_search_call", status: "in_progress" });
        for (const phase of ["in_progress", "searching", "completed"])
          emit(`response.web_search_call.${phase}`, { item_id: id, output_index });
        doneItem(done);
        break;
      }
      case "usage":
        usageObject = {
          input_tokens: part.usage.input,
          input_tokens_details: { cached_tokens: part.usage.cached ?? 0 },
          output_tokens: part.usage.output,
          output_tokens_details: { reasoning_tokens: part.usage.reasoning ?? 0 },
          total_tokens: part.usage.total ?? part.usage.input + part.usage.output,
        };
        break;
      case "failed":
      case "incomplete":
        ending = part;
        break;
    }
  }
  const final = { ...response, output, usage: usageObject };
  if (ending?.kind === "failed") {
    const error = { code: ending.code, message: ending.message };
    emit("response.failed", { response: { ...final, status: "failed", error } });
  } else if (ending?.kind === "incomplete") {
    const incomplete_details = { reason: ending.reason };
    emit("response.incomplete", { response: { ...final, status: "incomplete", incomplete_details } });
  } else {
    emit("response.completed", { response: { ...final, status: "completed" } });
  }
  return rendered;
}

function textPart(text: string): Record<string, unknown> {
  return { type: "output_text", text, annotations: [] };
}

function renderChat(parts: TurnPart[], model: string, ids: Counters): Rendered {
  const steps: Step[] = [];
  const rendered: Rendered = { steps, dropAfter: undefined };
  const base = { id: ids.next("chatcmpl-"), object: "chat.completion.chunk", created: 1_700_000_000, model };
  const chunk = (delta: Record<string, unknown>, finish_reason: string | null = null): void => {
    steps.push(
      sseEvent(undefined, JSON.stringify({ ...base, choices: [{ index: 0, delta, finish_reason }] })),
    );
  };
  let calls = 0;
  let usageObject: Record<string, unknown> | undefined;
  let finish: string | undefined;
  const toolCall = (name: string, args: string, callId: string | undefined): void => {
    const index = calls++;
    const id = callId ?? ids.next("call_");
    chunk({ tool_calls: [{ index, id, type: "function", function: { name, arguments: "" } }] });
    for (const piece of pieces(args)) chunk({ tool_calls: [{ index, function: { arguments: piece } }] });
  };

  chunk({ role: "assistant", content: "" });
  for (const part of parts) {
    if (control(part, steps, rendered)) continue;
    switch (part.kind) {
      case "message":
        for (const content of pieces(part.text)) chunk({ content });
        break;
      case "reasoning":
        for (const text of [...part.summary, ...(part.raw === undefined ? [] : [part.raw])])
          for (const piece of pieces(text)) chunk({ reasoning: piece });
        break;
      case "function_call":
        toolCall(part.name, part.arguments, part.callId);
        break;
      case "custom_tool_call":
        toolCall(part.name, JSON.stringify({ input: part.input }), part.callId);
        break;
      case "local_shell_call":
      case "web_search_call":
        throw new Error(`fake model server: ${part.kind} cannot be rendered on the chat wire`);
      case "usage":
        usageObject = {
          prompt_tokens: part.usage.input,
          completion_tokens: part.usage.output,
          total_tokens: part.usage.total ?? part.usage.input + part.usage.output,
          prompt_tokens_details: { cached_tokens: part.usage.cached ?? 0 },
          completion_tokens_details: { reasoning_tokens: part.usage.reasoning ?? 0 },
        };
        break;
      case "failed": {
        const error = { message: part.message, type: "server_error", code: part.code };
        steps.push(sseEvent(undefined, JSON.stringify({ error })));
        return rendered;
      }
      case "incomplete":
        finish = "length";
        break;
    }
  }
  chunk({}, finish ?? (calls > 0 ? "tool_calls" : "stop"));
  if (usageObject)
    steps.push(sseEvent(undefined, JSON.stringify({ ...base, choices: [], usage: usageObject })));
  steps.push(sseEvent(undefined, "[DONE]"));
  return rendered;
}

// ---------------------------------------------------------------------------------------------
// The server

export interface FakeModelServer {
  /** Base URL ending in /v1, e.g. "http://127.0.0.1:41234/v1". */
  readonly url: string;
  /** Every request received, in order (including unscripted ones). */
  readonly requests: RecordedRequest[];
  /** Problems on the server side (no turn left, unrenderable part, unknown path). */
  readonly errors: string[];
  /** Scripted entries not consumed yet. */
  readonly pending: number;
  /** Queues answers; each model request consumes one, in order. */
  enqueue(...entries: ScriptEntry[]): void;
  /** Resolves once at least `count` requests arrived (rejects after `timeoutMs`, default 5000). */
  waitForRequests(count: number, timeoutMs?: number): Promise<RecordedRequest[]>;
  /** A ProviderInfo pointing here (key "test-key"; Codex retry counts; 30 s idle timeout). */
  provider(overrides?: Partial<ProviderInfo>): ProviderInfo;
  /** Forgets queued scripts, requests, errors, and restarts generated ids (resp_1, call_1, …). */
  reset(): void;
  /** Destroys open connections (hung streams included) and stops listening. */
  close(): Promise<void>;
}

export async function startFakeModelServer(): Promise<FakeModelServer> {
  const queue: ScriptEntry[] = [];
  const requests: RecordedRequest[] = [];
  const errors: string[] = [];
  const waiters = new Set<() => void>();
  const counts = new Map<string, number>();
  const ids: Counters = {
    next(prefix) {
      const n = (counts.get(prefix) ?? 0) + 1;
      counts.set(prefix, n);
      return `${prefix}${n}`;
    },
  };

  const fail = (res: ServerResponse, status: number, text: string): void => {
    errors.push(text);
    res.writeHead(status, { "content-type": "text/plain" }).end(text);
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    let rawBody = "";
    req.setEncoding("utf8");
    for await (const chunk of req) rawBody += String(chunk);
    const request = record(req, rawBody);
    requests.push(request);
    for (const wake of waiters) wake();

    if (request.method !== "POST" || request.wire === "other") {
      return fail(res, 404, `fake model server: no route for ${request.method} ${request.path}`);
    }
    const entry = queue.shift();
    if (!entry) return fail(res, 500, "fake model server: no scripted turn left");
    const script = typeof entry === "function" ? entry(request) : entry;
    if (script.kind === "http_error") {
      res.writeHead(script.status, script.headers).end(script.body);
      return;
    }
    const model = typeof request.body.model === "string" ? request.body.model : "fake-model";
    let rendered: Rendered;
    try {
      rendered = (request.wire === "chat" ? renderChat : renderResponses)(script.parts, model, ids);
    } catch (error) {
      return fail(res, 500, error instanceof Error ? error.message : String(error));
    }
    await play(res, rendered);
  };

  const server = createServer((req, res) => {
    res.on("error", () => {}); // the client may go away mid-stream; that is a test scenario
    handle(req, res).catch((error: unknown) => {
      errors.push(`fake model server: handler failed: ${String(error)}`);
      if (!res.headersSent) res.writeHead(500).end("fake model server: handler failed");
      else res.destroy();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    errors,
    get pending() {
      return queue.length;
    },
    enqueue(...entries) {
      queue.push(...entries);
    },
    waitForRequests(count, timeoutMs = 5000) {
      return new Promise((resolve, reject) => {
        const check = (): void => {
          if (requests.length < count) return;
          cleanup();
          resolve(requests.slice());
        };
        const timer = setTimeout(() => {
          cleanup();
          reject(
            new Error(
              `fake model server: waited ${timeoutMs} ms for ${count} requests, got ${requests.length}`,
            ),
          );
        }, timeoutMs);
        const cleanup = (): void => {
          clearTimeout(timer);
          waiters.delete(check);
        };
        waiters.add(check);
        check();
      });
    },
    provider(overrides = {}) {
      return {
        id: "fake",
        name: "fake",
        baseUrl: `http://127.0.0.1:${port}/v1`,
        wireApi: "responses",
        apiKey: "test-key",
        httpHeaders: {},
        queryParams: {},
        requestMaxRetries: 4,
        streamMaxRetries: 5,
        streamIdleTimeoutMs: 30_000,
        streamMaxDurationMs: 600_000,
        ...overrides,
      };
    },
    reset() {
      queue.length = 0;
      requests.length = 0;
      errors.length = 0;
      counts.clear();
    },
    close() {
      server.closeAllConnections();
      return new Promise((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
    },
  };
}

/** Pings until the client leaves (or close() destroys the connection). */
async function keepAlive(res: ServerResponse, everyMs: number): Promise<void> {
  const inProgress = JSON.stringify({ type: "response.in_progress", response: { status: "in_progress" } });
  while (!res.destroyed && !res.writableEnded) {
    await new Promise<void>((resolve) =>
      res.write(`: ping\n\nevent: response.in_progress\ndata: ${inProgress}\n\n`, () => resolve()),
    );
    await sleep(everyMs);
  }
}

/** Writes the steps, each event flushed before the next so drops and delays are observable. */
async function play(res: ServerResponse, { steps, dropAfter }: Rendered): Promise<void> {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  res.flushHeaders();
  let sent = 0;
  for (const step of steps) {
    if (res.destroyed) return;
    if (step.kind === "hang") return; // left open; close() destroys it
    if (step.kind === "keepalive") return keepAlive(res, step.ms);
    if (step.kind === "end") break;
    if (step.kind === "delay") {
      await sleep(step.ms);
      continue;
    }
    if (step.kind === "hold") {
      await step.until.catch(() => {});
      continue;
    }
    if (dropAfter !== undefined && sent >= dropAfter) break;
    await new Promise<void>((resolve) => res.write(step.text, () => resolve()));
    sent++;
  }
  if (dropAfter !== undefined) res.destroy();
  else res.end();
}
