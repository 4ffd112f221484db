/**
 * Stored responses through the openai SDK (issue 30): `responses.retrieve` from another proxy
 * process on the same store, `inputItems.list` (order, paging), `delete` (the id then names
 * nothing, also for previous_response_id), the 409 that names the response that already
 * answered a tool call, and `background: true` (polled to its end; `cancel`; one whose process
 * was SIGKILLed ends as failed for another process on the same JSONL store).
 */
import OpenAI from "openai";
import { describe, expect, it } from "vitest";
import { delay, functionCall, hang, message, turn } from "../support/fake-model-server.js";
import { waitFor } from "../support/processes.js";
import { useProxyHarness } from "../support/proxy-harness.js";

const h = useProxyHarness();

const LOOKUP: OpenAI.Responses.FunctionTool = {
  type: "function",
  name: "lookup",
  description: "Look a key up.",
  parameters: { type: "object", properties: { key: { type: "string" } } },
  strict: false,
};

describe("proxy stored responses", () => {
  it("retrieve (from another process), input items in both orders with paging, delete", async () => {
    const proxy = await h.startProxy();
    h.model.enqueue(turn(message("stored answer")));
    const created = await proxy.client().responses.create({
      model: "m",
      input: [
        { role: "developer", content: "be brief" },
        { role: "user", content: "first part" },
        { role: "user", content: [{ type: "input_text", text: "second part" }] },
      ],
    });
    const other = await h.startProxy();
    const retrieved = await other.client().responses.retrieve(created.id);
    expect(retrieved).toEqual(created);
    expect(retrieved.output_text).toBe("stored answer");

    const desc = await other.client().responses.inputItems.list(created.id);
    const texts = (items: typeof desc.data) =>
      items.map((item) => (item.type === "message" ? JSON.stringify(item.content) : item.type));
    expect(desc.data).toHaveLength(3);
    expect(texts(desc.data)[0]).toContain("second part");
    expect(desc.data.every((item) => typeof item.id === "string" && item.id.length > 0)).toBe(true);
    const asc = await other.client().responses.inputItems.list(created.id, { order: "asc", limit: 2 });
    expect(texts(asc.data)[0]).toContain("be brief");
    expect(asc.data).toHaveLength(2);
    expect(asc.has_more).toBe(true);
    const rest = await other
      .client()
      .responses.inputItems.list(created.id, { order: "asc", limit: 2, after: asc.data[1]?.id ?? "" });
    expect(texts(rest.data)).toHaveLength(1);
    expect(texts(rest.data)[0]).toContain("second part");
    expect(rest.has_more).toBe(false);

    await other.client().responses.delete(created.id);
    const gone = await proxy
      .client()
      .responses.retrieve(created.id)
      .catch((error: unknown) => error);
    expect(gone).toBeInstanceOf(OpenAI.NotFoundError);
    const continued = await proxy
      .client()
      .responses.create({ model: "m", input: "more", previous_response_id: created.id })
      .catch((error: unknown) => error);
    expect(continued).toMatchObject({ status: 404, code: "previous_response_not_found" });
    const again = await proxy
      .client()
      .responses.delete(created.id)
      .catch((error: unknown) => error);
    expect(again).toBeInstanceOf(OpenAI.NotFoundError);
  });

  it("a tool output for an already answered call is a 409 naming the response that answered it", async () => {
    const proxy = await h.startProxy();
    const client = proxy.client();
    h.model.enqueue(turn(functionCall("lookup", { key: "a" }, "call_a")), turn(message("answered")));
    const parked = await client.responses.create({ model: "m", input: "look a up", tools: [LOOKUP] });
    const output = [{ type: "function_call_output" as const, call_id: "call_a", output: "1" }];
    const answer = await client.responses.create({
      model: "m",
      previous_response_id: parked.id,
      input: output,
    });
    const twice = await client.responses
      .create({ model: "m", previous_response_id: parked.id, input: output })
      .catch((error: unknown) => error);
    expect(twice).toMatchObject({ status: 409, code: "function_call_already_answered" });
    expect(String((twice as Error).message)).toContain(answer.id);
  });

  it("background: in_progress at once, polled to completed; cancel ends a running one as cancelled", async () => {
    const proxy = await h.startProxy();
    const client = proxy.client();
    h.model.enqueue(turn(delay(300), message("done in the background")));
    const started = await client.responses.create({ model: "m", input: "take your time", background: true });
    expect(started.status).toBe("in_progress");
    expect(started.background).toBe(true);
    let polled = await client.responses.retrieve(started.id);
    await waitFor(async () => {
      polled = await client.responses.retrieve(started.id);
      return polled.status !== "in_progress";
    }, 10_000);
    expect(polled.status).toBe("completed");
    expect(polled.output_text).toBe("done in the background");
    // Over already: cancel changes nothing.
    expect((await client.responses.cancel(started.id)).status).toBe("completed");

    h.model.enqueue(turn(delay(60_000), message("never")));
    const long = await client.responses.create({ model: "m", input: "forever", background: true });
    await h.model.waitForRequests(2, 10_000);
    const cancelled = await client.responses.cancel(long.id);
    expect(cancelled.status).toBe("cancelled");
    expect((await client.responses.retrieve(long.id)).status).toBe("cancelled");

    h.model.enqueue(turn(message("plain")));
    const plain = await client.responses.create({ model: "m", input: "not background" });
    const refused = await client.responses.cancel(plain.id).catch((error: unknown) => error);
    expect(refused).toMatchObject({ status: 400, code: "not_background" });
  });

  it("GET ?stream=true&starting_after=N follows a running background response to its end; a finished one is its final event", async () => {
    const proxy = await h.startProxy();
    const client = proxy.client();
    // The model answers part of the message, then holds on: the turn runs until it is cancelled.
    h.model.enqueue(turn(message("partial"), hang()));
    const started = await client.responses.create({ model: "m", input: "stream it later", background: true });
    await h.model.waitForRequests(1, 10_000);
    const events: { type: string; sequence_number: number; response?: { status?: string } }[] = [];
    // Headers may wait for the first event, so the cancel does not wait for the stream to open.
    const reading = (async () => {
      const stream = await client.responses.retrieve(started.id, { stream: true, starting_after: 1 });
      for await (const event of stream) events.push(event);
    })();
    await client.responses.cancel(started.id);
    await reading;
    expect(events.length).toBeGreaterThan(0);
    expect(events.every((event) => event.sequence_number > 1)).toBe(true);
    expect(events.map((event) => event.sequence_number)).toEqual(
      [...events.map((event) => event.sequence_number)].sort((a, b) => a - b),
    );
    expect(events.at(-1)?.type).toBe("response.completed");
    expect(events.at(-1)?.response?.status).toBe("cancelled");

    const replay = await client.responses.retrieve(started.id, { stream: true });
    const types: string[] = [];
    for await (const event of replay) types.push(event.type);
    expect(types).toEqual(["response.completed"]);
    expect((await client.responses.retrieve(started.id)).status).toBe("cancelled");
  });

  it("a background response whose process was killed mid-run ends as failed for another process on the same home", async () => {
    const doomed = await h.startProxy();
    const other = await h.startProxy();
    h.model.enqueue(turn(message("partial"), hang()));
    const started = await doomed.client().responses.create({ model: "m", input: "orphan", background: true });
    await h.model.waitForRequests(1, 10_000);
    const exited = new Promise((resolve) => doomed.child.once("exit", resolve));
    doomed.child.kill("SIGKILL");
    await exited;
    // The lease file names a process that is gone: the response is an orphan at once.
    const retrieved = await other.client().responses.retrieve(started.id);
    expect(retrieved).toMatchObject({ status: "failed", error: { code: "server_error" } });
    const types: string[] = [];
    for await (const event of await other.client().responses.retrieve(started.id, { stream: true }))
      types.push(event.type);
    expect(types).toEqual(["response.failed"]);
  });
});
