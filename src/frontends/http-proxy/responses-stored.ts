/**
 * The stored side of /v1/responses: GET /v1/responses/{id} (the response as it was sent; with
 * `stream=true` its Responses SSE events after `starting_after`, live while a background turn of
 * this process runs, else its final event; a background response whose process died is ended as
 * `failed` first: background.ts),
 * GET /v1/responses/{id}/input_items (the request's input, OpenAI's list shape and paging:
 * `order` desc by default, `after`, `limit` 1-100), DELETE /v1/responses/{id} (the id stops
 * naming anything, for good: a background turn still running it is cancelled here and its end
 * stored nowhere; the thread stays; an Idempotency-Key that answered with it replays a 404).
 * Any proxy process on the same store answers.
 */
import type { Context } from "hono";
import { stream as streamBody } from "hono/streaming";
import type { ResponseRecord } from "../../store/index.js";
import { type BackgroundTurns, settleOrphan } from "./background.js";
import { ApiError } from "./errors.js";
import { forgetKeyedAnswer } from "./idempotency.js";
import type { ProxyOptions } from "./request.js";
import { itemId } from "./responses-output.js";
import type { ResponsesRequest } from "./schemas.js";

export async function getResponse(
  c: Context,
  options: ProxyOptions,
  background: BackgroundTurns,
): Promise<Response> {
  if (c.req.query("stream") !== "true")
    return c.json((await settleOrphan(options, background, await recordOf(c, options))).body);
  const afterText = c.req.query("starting_after") ?? "-1";
  const after = Number(afterText);
  if (!Number.isInteger(after))
    throw ApiError.invalid(
      `Invalid 'starting_after': '${afterText}'. Expected an integer.`,
      "starting_after",
    );
  const id = c.req.param("id") ?? "";
  let events = background.follow(id, after);
  if (!events) {
    // Not running here: its stored final state is the whole stream.
    const record = await settleOrphan(options, background, await recordOf(c, options));
    if (record.body.status === "in_progress" || record.body.status === "queued")
      throw new ApiError(
        409,
        `Response '${id}' runs on another proxy process: stream it from there, or poll it.`,
        "invalid_request_error",
        null,
        "response_running_elsewhere",
      );
    const type = record.body.status === "failed" ? "response.failed" : "response.completed";
    events = (async function* () {
      yield { type, data: { type, sequence_number: after + 1, response: record.body } };
    })();
  }
  const stream = events;
  c.header("Content-Type", "text/event-stream");
  c.header("Cache-Control", "no-cache");
  return streamBody(c, async (out) => {
    for await (const event of stream) {
      if (out.aborted) return;
      await out.write(`event: ${event.type}\ndata: ${JSON.stringify(event.data)}\n\n`);
    }
  });
}

export async function deleteResponse(
  c: Context,
  options: ProxyOptions,
  background: BackgroundTurns,
): Promise<Response> {
  const id = c.req.param("id") ?? "";
  const { store } = options.turns.threads;
  if (!(await store.readResponse(id))) throw notFound(id);
  // Its key first: were the delete to stop half-way, no key would replay the deleted answer.
  await forgetKeyedAnswer(options, id);
  if (!(await store.deleteResponse(id))) throw notFound(id);
  // A background turn of it running here ends (as a cancel ends it): nobody can read its result.
  // Its final state is not stored (the store keeps a deleted response deleted), here or on
  // another process still running it.
  await background.cancel(id);
  return c.json({ id, object: "response", deleted: true });
}

export async function listInputItems(c: Context, options: ProxyOptions): Promise<Response> {
  const record = await recordOf(c, options);
  const order = c.req.query("order") ?? "desc";
  if (order !== "asc" && order !== "desc")
    throw ApiError.invalid(`Invalid 'order': '${order}'. Expected 'asc' or 'desc'.`, "order");
  const limitText = c.req.query("limit") ?? "20";
  const limit = Number(limitText);
  if (!(Number.isInteger(limit) && limit >= 1 && limit <= 100))
    throw ApiError.invalid(`Invalid 'limit': '${limitText}'. Expected an integer from 1 to 100.`, "limit");
  const items = order === "asc" ? [...(record.input ?? [])] : [...(record.input ?? [])].reverse();
  const after = c.req.query("after");
  const start = after === undefined ? 0 : items.findIndex((item) => item.id === after) + 1;
  if (after !== undefined && start === 0)
    throw ApiError.invalid(`No input item with id '${after}'.`, "after");
  const page = items.slice(start, start + limit);
  return c.json({
    object: "list",
    data: page,
    first_id: page[0]?.id ?? null,
    last_id: page.at(-1)?.id ?? null,
    has_more: start + limit < items.length,
  });
}

/** The request's input as stored items, each with an id (string input: one user message). */
export function inputItemsOf(input: ResponsesRequest["input"]): Record<string, unknown>[] {
  if (typeof input === "string")
    return [
      { id: itemId("msg"), type: "message", role: "user", content: [{ type: "input_text", text: input }] },
    ];
  return input.map((item) => {
    const record = item as Record<string, unknown>;
    if (typeof record.id === "string") return record;
    if ("role" in record) {
      const content =
        typeof record.content === "string" ? [{ type: "input_text", text: record.content }] : record.content;
      return { id: itemId("msg"), type: "message", ...record, content };
    }
    const prefix = record.type === "function_call_output" ? "fco" : "fc";
    return { id: itemId(prefix), ...record };
  });
}

async function recordOf(c: Context, options: ProxyOptions): Promise<ResponseRecord> {
  const id = c.req.param("id") ?? "";
  const record = await options.turns.threads.store.readResponse(id);
  if (!record) throw notFound(id);
  return record;
}

function notFound(id: string): ApiError {
  return new ApiError(
    404,
    `Response with id '${id}' not found.`,
    "invalid_request_error",
    null,
    "response_not_found",
  );
}
