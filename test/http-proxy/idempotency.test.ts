/**
 * Idempotency-Key on the proxy (issue 30): a retry with the same key and body gets the stored
 * answer and runs nothing; another body is a 422; a retry while the first runs is a 409; a retry
 * after the first process was SIGKILLed takes the key over on another process of the same store
 * (leaving no stray thread); a keyed request whose client hung up runs on for its retry.
 * A deleted response is not replayed by its key (issue 37): the retry is a 404 and runs nothing.
 */
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { delay, failed, functionCall, message, turn } from "../support/fake-model-server.js";
import { waitFor } from "../support/processes.js";
import { type KeyedAnswer, postKeyed, useProxyHarness } from "../support/proxy-harness.js";

const h = useProxyHarness();

const LOOKUP = {
  type: "function",
  name: "lookup",
  description: "Look a key up.",
  parameters: { type: "object", properties: { key: { type: "string" } } },
};

async function rollouts(): Promise<string[]> {
  const dir = join(h.home, "sessions");
  return (await readdir(dir, { recursive: true })).filter((name) => name.endsWith(".jsonl"));
}

describe("proxy Idempotency-Key", () => {
  it("same key and body: the stored answer, no second turn; another body: 422; both routes", async () => {
    const proxy = await h.startProxy();
    h.model.enqueue(turn(message("once")), turn(message("chat once")));
    const body = { model: "m", input: "do it once" };
    const first = await postKeyed(proxy.url, "/responses", body, "key-a");
    expect(first.status).toBe(200);
    expect(first.replayed).toBeNull();
    const again = await postKeyed(proxy.url, "/responses", body, "key-a");
    expect(again.status).toBe(200);
    expect(again.replayed).toBe("true");
    expect(again.body).toEqual(first.body);
    expect(h.model.requests).toHaveLength(1);

    const other = await postKeyed(proxy.url, "/responses", { ...body, input: "something else" }, "key-a");
    expect(other.status).toBe(422);
    expect(other.body.error?.code).toBe("idempotency_key_reused");
    // The key is per route and body: the same key on chat with a chat body is another request.
    const chatBody = { model: "m", messages: [{ role: "user", content: "hi" }] };
    const chat = await postKeyed(proxy.url, "/chat/completions", chatBody, "key-c");
    const chatAgain = await postKeyed(proxy.url, "/chat/completions", chatBody, "key-c");
    expect(chatAgain.body).toEqual(chat.body);
    expect(chatAgain.replayed).toBe("true");
    expect(h.model.requests).toHaveLength(2);
    // A request without a key is never deduplicated.
    h.model.enqueue(turn(message("twice")), turn(message("twice")));
    await postKeyed(proxy.url, "/responses", body, null);
    await postKeyed(proxy.url, "/responses", body, null);
    expect(h.model.requests).toHaveLength(4);
  });

  it("a retry while the first request runs is a 409; a failed request frees its key; streams take none", async () => {
    const proxy = await h.startProxy();
    h.model.enqueue(turn(delay(1_500), message("slow")));
    const body = { model: "m", input: "slow one" };
    const running = postKeyed(proxy.url, "/responses", body, "key-slow");
    await h.model.waitForRequests(1, 10_000);
    const meanwhile = await postKeyed(proxy.url, "/responses", body, "key-slow");
    expect(meanwhile.status).toBe(409);
    expect(meanwhile.body.error?.code).toBe("idempotency_key_in_use");
    expect((await running).status).toBe(200);

    const bad = await postKeyed(proxy.url, "/responses", { model: "m", input: 42 }, "key-bad");
    expect(bad.status).toBe(400);
    h.model.enqueue(turn(message("fixed")));
    const fixed = await postKeyed(proxy.url, "/responses", { model: "m", input: 42 }, "key-bad");
    expect(fixed.status).toBe(400);
    expect(fixed.replayed).toBeNull();

    const stream = await postKeyed(
      proxy.url,
      "/responses",
      { model: "m", input: "x", stream: true },
      "key-s",
    );
    expect(stream.status).toBe(400);
    expect(stream.body.error?.code).toBe("idempotency_key_with_stream");
  });

  it("a retry after the first process was killed mid-turn is served by another process, then replayed", async () => {
    const doomed = await h.startProxy();
    h.model.enqueue(turn(delay(60_000), message("never delivered")), turn(message("second try")));
    const body = { model: "m", input: "survive a crash" };
    const lost = postKeyed(doomed.url, "/responses", body, "key-crash").catch((error: unknown) => error);
    await h.model.waitForRequests(1, 10_000);
    const exited = new Promise((resolve) => doomed.child.once("exit", resolve));
    doomed.child.kill("SIGKILL");
    await exited;
    expect(await lost).toBeInstanceOf(Error);

    const survivor = await h.startProxy();
    const retry = await postKeyed(survivor.url, "/responses", body, "key-crash");
    expect(retry.status).toBe(200);
    expect(
      (retry.body as { output?: { content?: { text?: string }[] }[] }).output?.[0]?.content?.[0]?.text,
    ).toBe("second try");
    const replay = await postKeyed(survivor.url, "/responses", body, "key-crash");
    expect(replay.replayed).toBe("true");
    expect(replay.body).toEqual(retry.body);
    expect(h.model.requests).toHaveLength(2);
    // The dead attempt's thread went with the takeover: the retry's is the only one.
    expect(await rollouts()).toHaveLength(1);
  });

  it("a keyed request that failed after its turn wrote is undone: the retry runs it again on the same thread, each item once", async () => {
    const proxy = await h.startProxy();
    h.model.enqueue(
      turn(functionCall("lookup", { key: "c" }, "call_c")),
      turn(failed("model exploded", "invalid_prompt")),
      turn(message("chat answer")),
    );
    const tools = [{ type: "function", function: { name: "lookup", parameters: LOOKUP.parameters } }];
    const question = { role: "user", content: "look up c" };
    const asked = await postKeyed(
      proxy.url,
      "/chat/completions",
      { model: "m", messages: [question], tools },
      null,
    );
    expect(asked.status).toBe(200);
    const calls = {
      role: "assistant",
      content: null,
      tool_calls: [
        { id: "call_c", type: "function", function: { name: "lookup", arguments: '{"key":"c"}' } },
      ],
    };
    const body = {
      model: "m",
      tools,
      messages: [question, calls, { role: "tool", tool_call_id: "call_c", content: "42" }],
    };
    const failedOnce = await postKeyed(proxy.url, "/chat/completions", body, "key-fail");
    expect(failedOnce.status).toBe(500);
    const retry = await postKeyed(proxy.url, "/chat/completions", body, "key-fail");
    expect(retry.status).toBe(200);
    expect(retry.replayed).toBeNull();
    expect(JSON.stringify(retry.body)).toContain("chat answer");
    // The failed turn's output was taken back: the parked turn continued again, on its thread.
    expect(await rollouts()).toHaveLength(1);
    const rollout = await readFile(join(h.home, "sessions", (await rollouts())[0] ?? ""), "utf8");
    expect(rollout.split('"type":"function_call_output","call_id":"call_c"')).toHaveLength(2);
  });

  it("a keyed tool output whose client dropped the connection runs on; its retry waits for it and gets its answer", async () => {
    const proxy = await h.startProxy();
    h.model.enqueue(
      turn(functionCall("lookup", { key: "k" }, "call_k")),
      turn(delay(1_000), message("the answer")),
    );
    const parked = await postKeyed(
      proxy.url,
      "/responses",
      { model: "m", input: "look up k", tools: [LOOKUP] },
      null,
    );
    const body = {
      model: "m",
      previous_response_id: parked.body.id,
      input: [{ type: "function_call_output", call_id: "call_k", output: "42" }],
    };
    const hangUp = new AbortController();
    const dropped = fetch(`${proxy.url}/responses`, {
      method: "POST",
      headers: { "content-type": "application/json", "idempotency-key": "key-drop" },
      body: JSON.stringify(body),
      signal: hangUp.signal,
    }).catch((error: unknown) => error);
    await h.model.waitForRequests(2, 10_000);
    hangUp.abort();
    expect(await dropped).toBeInstanceOf(Error);
    let retry: KeyedAnswer | undefined;
    await waitFor(async () => {
      retry = await postKeyed(proxy.url, "/responses", body, "key-drop");
      return retry.body.error?.code !== "idempotency_key_in_use";
    }, 10_000);
    if (!retry) throw new Error("no retry");
    expect(retry.status).toBe(200);
    expect(retry.replayed).toBe("true");
    expect(JSON.stringify(retry.body.output)).toContain("the answer");
    expect(retry.body.status).toBe("completed");
    expect(h.model.requests).toHaveLength(2);
  });

  it("a deleted response is not replayed by its key: the retry with the same key and body is a 404 and runs nothing; the key keeps no copy of the answer", async () => {
    const proxy = await h.startProxy();
    h.model.enqueue(turn(message("the SECRET-ANSWER-1 text")));
    const body = { model: "m", input: "answer once" };
    const first = await postKeyed(proxy.url, "/responses", body, "key-del");
    expect(first.status).toBe(200);
    const id = String(first.body.id);
    const deleted = await fetch(`${proxy.url}/responses/${id}`, { method: "DELETE" });
    expect(deleted.status).toBe(200);
    expect(await deleted.json()).toEqual({ id, object: "response", deleted: true });

    const retry = await postKeyed(proxy.url, "/responses", body, "key-del");
    expect(retry.status).toBe(404);
    expect(retry.body.error?.code).toBe("response_deleted");
    expect(retry.body.error?.message).toContain(id);
    expect(JSON.stringify(retry.body)).not.toContain("SECRET-ANSWER-1");
    expect(h.model.requests).toHaveLength(1);
    // The key stays bound to its first body.
    const other = await postKeyed(proxy.url, "/responses", { ...body, input: "another" }, "key-del");
    expect(other.status).toBe(422);
    expect((await fetch(`${proxy.url}/responses/${id}`)).status).toBe(404);
    const keysDir = join(h.home, "proxy", "idempotency-keys");
    for (const name of await readdir(keysDir))
      expect(await readFile(join(keysDir, name), "utf8")).not.toContain("SECRET-ANSWER-1");
  });
});
