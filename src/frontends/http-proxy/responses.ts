/**
 * POST /v1/responses: the request's conversation runs as one turn; the answer is a Response
 * object (JSON) or the Responses SSE stream. Client tool calls end the response with their
 * function_call items; the follow-up continues the parked turn (see turns.ts).
 */
import type { Context } from "hono";
import { stream as streamBody } from "hono/streaming";
import { errorMessage } from "../../util/errors.js";
import type { BackgroundTurns } from "./background.js";
import { fromResponsesRequest } from "./conversation.js";
import { ApiError } from "./errors.js";
import type { KeyedRequest } from "./idempotency.js";
import { type ProxyOptions, readBody, requestTrace } from "./request.js";
import { type ResponseBase, ResponsesWriter } from "./responses-output.js";
import { inputItemsOf } from "./responses-stored.js";
import { responsesRequestSchema } from "./schemas.js";
import { beginTurn } from "./serve-turn.js";

export async function handleResponses(
  c: Context,
  options: ProxyOptions,
  background: BackgroundTurns,
  keyed: KeyedRequest | null = null,
): Promise<Response> {
  const body = await readBody(c, responsesRequestSchema);
  if (body.background && body.stream)
    throw ApiError.invalid(
      "background with stream: true is not supported; poll GET /v1/responses/{id}.",
      "stream",
    );
  const conversation = { ...fromResponsesRequest(body), trace: requestTrace(c) };
  // A background turn outlives its request: only a cancel ends it.
  const detached = body.background ? background.recorder() : null;
  // So does a keyed one: its client comes back with the key for the answer (idempotency.ts).
  const signal = detached?.entry.abort.signal ?? (keyed ? new AbortController().signal : c.req.raw.signal);
  const input = inputItemsOf(body.input);
  const run = await beginTurn(options, conversation, body.previous_response_id ?? null, signal, {
    input,
    keyed,
  });
  const base: ResponseBase = {
    id: run.responseId,
    model: body.model ?? options.config.model,
    instructions: body.instructions ?? null,
    metadata: body.metadata ?? {},
    parallel_tool_calls: body.parallel_tool_calls ?? true,
    previous_response_id: body.previous_response_id ?? null,
    store: body.store ?? true,
    temperature: null,
    top_p: null,
    text: { format: body.text?.format ?? { type: "text" } },
    tool_choice: body.tool_choice ?? "auto",
    tools: body.tools ?? [],
    background: body.background ?? false,
  };
  if (detached) {
    const writer = new ResponsesWriter(base, detached.send, options.quietAgentWork);
    return c.json(await background.start(options, run, writer, detached.entry, input));
  }
  if (!body.stream) {
    const writer = new ResponsesWriter(base, null, options.quietAgentWork);
    return run.drive(
      (event) => writer.onEvent(event),
      (result) => writer.finish(result),
      (response) => c.json(response),
    );
  }
  c.header("Content-Type", "text/event-stream");
  c.header("Cache-Control", "no-cache");
  c.header("X-Accel-Buffering", "no");
  return streamBody(c, async (out) => {
    let written: Promise<unknown> = Promise.resolve();
    const writer = new ResponsesWriter(
      base,
      (type, data) => {
        if (!out.aborted)
          written = out.write(`event: ${type}\ndata: ${JSON.stringify(data)}\n\n`).catch(() => {});
      },
      options.quietAgentWork,
    );
    writer.start();
    await run
      .drive(
        (event) => writer.onEvent(event),
        (result) => writer.finish(result),
        async (response) => {
          writer.complete(response);
          await written;
        },
      )
      .catch(async (error: unknown) => {
        // The response could not be stored: its id would name nothing, so it must not complete.
        writer.fail(errorMessage(error));
        await written;
      });
  });
}
