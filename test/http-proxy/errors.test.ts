/**
 * `tscodex proxy` guards and failures: the bearer key (401), malformed bodies (400 in OpenAI's
 * shape, 15 kinds), unknown routes (404), oversized bodies (413), `Origin: null` (403), bodies not
 * declared JSON (415), the concurrency limit (429), a
 * failing model (a `failed` response, not a hung connection), and a client that disconnects
 * mid-stream (turn interrupted, its command's process gone).
 */
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { delay, failed, functionCall, message, turn } from "../support/fake-model-server.js";
import { waitFor, withMarker } from "../support/processes.js";
import { useProxyHarness } from "../support/proxy-harness.js";

const h = useProxyHarness({ extraConfig: 'sandbox_mode = "danger-full-access"\napproval_policy = "never"' });

async function post(url: string, path: string, body: string, headers: Record<string, string> = {}) {
  const response = await fetch(`${url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body,
  });
  return { status: response.status, body: (await response.json()) as { error?: Record<string, unknown> } };
}

function expectOpenAiError(body: { error?: Record<string, unknown> }, type: string): void {
  expect(body.error).toBeDefined();
  expect(typeof body.error?.message).toBe("string");
  expect(body.error?.type).toBe(type);
  expect(body.error).toHaveProperty("param");
  expect(body.error).toHaveProperty("code");
}

async function rolloutText(home: string): Promise<string> {
  const files = (await readdir(join(home, "sessions"), { recursive: true })).filter((f) =>
    f.endsWith(".jsonl"),
  );
  return (await Promise.all(files.map((f) => readFile(join(home, "sessions", f), "utf8")))).join("");
}

const MALFORMED: [string, string, string][] = [
  ["/v1/responses", "not json", "body is not JSON"],
  ["/v1/responses", "", "empty body"],
  ["/v1/responses", "[1,2]", "array body"],
  ["/v1/responses", "{}", "missing input"],
  ["/v1/responses", '{"input": 42}', "input is a number"],
  ["/v1/responses", '{"input": [{"role": "robot", "content": "hi"}]}', "unknown role"],
  ["/v1/responses", '{"input": [{"type": "function_call_output", "output": "x"}]}', "output without call_id"],
  ["/v1/responses", '{"input": "hi", "tools": {"name": "x"}}', "tools is not an array"],
  ["/v1/responses", '{"input": "hi", "tools": [{"type": "function", "name": "bad name!"}]}', "bad tool name"],
  ["/v1/responses", '{"input": "hi", "stream": "yes"}', "stream is a string"],
  [
    "/v1/responses",
    '{"input": "hi", "text": {"format": {"type": "json_schema", "name": "x"}}}',
    "json_schema without schema",
  ],
  [
    "/v1/responses",
    '{"input": [{"role": "assistant", "content": "only me"}]}',
    "no user message or output at the end",
  ],
  ["/v1/chat/completions", '{"model": "m"}', "chat without messages"],
  ["/v1/chat/completions", '{"messages": []}', "chat with empty messages"],
  [
    "/v1/chat/completions",
    '{"messages": [{"role": "tool", "content": "x"}]}',
    "tool message without tool_call_id",
  ],
];

describe("proxy errors", () => {
  it("401 without the bearer key (and with a wrong one); the right key works", async () => {
    const proxy = await h.startProxy(["--api-key-env", "PROXY_KEY"], { PROXY_KEY: "k-123" });
    const none = await fetch(`${proxy.url}/models`);
    expect(none.status).toBe(401);
    expect(none.headers.get("www-authenticate")).toMatch(/^Bearer/);
    expectOpenAiError((await none.json()) as { error?: Record<string, unknown> }, "authentication_error");
    const wrong = await proxy
      .client({ apiKey: "nope" })
      .models.list()
      .catch((e: unknown) => e);
    expect(wrong).toMatchObject({ status: 401, code: "invalid_api_key" });
    const models = await proxy.client({ apiKey: "k-123" }).models.list();
    expect(models.data.map((model) => model.id)).toEqual(["gpt-5.2-codex"]);
  });

  it("answers each of 15 malformed bodies with a 400 in OpenAI's shape, and runs no turn", async () => {
    const proxy = await h.startProxy();
    for (const [path, body, what] of MALFORMED) {
      const answer = await post(proxy.url.replace(/\/v1$/, ""), path, body);
      expect(answer.status, what).toBe(400);
      expectOpenAiError(answer.body, "invalid_request_error");
    }
    expect(h.model.requests).toHaveLength(0);
  });

  it("404 for an unknown route, 413 for an oversized body, 403 for a foreign Origin", async () => {
    const proxy = await h.startProxy(["--max-body", "1000"]);
    const base = proxy.url.replace(/\/v1$/, "");
    const missing = await post(base, "/v1/nothing", "{}");
    expect(missing.status).toBe(404);
    expectOpenAiError(missing.body, "invalid_request_error");
    const big = await post(base, "/v1/responses", JSON.stringify({ input: "x".repeat(5000) }));
    expect(big.status).toBe(413);
    expectOpenAiError(big.body, "invalid_request_error");
    const foreign = await post(base, "/v1/responses", '{"input":"hi"}', { origin: "http://evil.example" });
    expect(foreign.status).toBe(403);
  });

  it("403 for Origin: null and 415 for a body not declared as JSON, on every route; no turn runs", async () => {
    const proxy = await h.startProxy();
    const base = proxy.url.replace(/\/v1$/, "");
    const body = '{"input":"hi","messages":[{"role":"user","content":"hi"}]}';
    for (const path of ["/v1/responses", "/v1/chat/completions"]) {
      const opaque = await post(base, path, body, { origin: "null" });
      expect(opaque.status, path).toBe(403);
      expect(opaque.body.error?.code).toBe("forbidden_origin");
      // What a page may send anywhere without a CORS preflight: text/plain, forms, multipart.
      for (const type of [
        "text/plain",
        "application/x-www-form-urlencoded",
        "multipart/form-data; boundary=x",
      ]) {
        const simple = await post(base, path, body, { "content-type": type });
        expect(simple.status, `${path} ${type}`).toBe(415);
        expectOpenAiError(simple.body, "invalid_request_error");
        expect(simple.body.error?.code).toBe("unsupported_media_type");
      }
    }
    expect((await fetch(`${base}/v1/models`, { headers: { origin: "null" } })).status).toBe(403);
    expect(h.model.requests).toHaveLength(0);
    h.model.enqueue(turn(message("json with a charset is JSON")));
    const ok = await post(base, "/v1/responses", '{"input":"hi"}', {
      "content-type": "application/json; charset=utf-8",
      origin: "http://localhost:5173",
    });
    expect(ok.status).toBe(200);
  });

  it("a failing model is a failed response (JSON) and response.failed (stream)", async () => {
    const proxy = await h.startProxy();
    h.model.enqueue(
      turn(failed("model exploded", "invalid_prompt")),
      turn(failed("model exploded again", "invalid_prompt")),
    );
    const response = await proxy.client().responses.create({ model: "m", input: "hi" });
    expect(response.status).toBe("failed");
    expect(response.error?.message).toMatch(/model exploded/);
    const stream = await proxy.client().responses.create({ model: "m", input: "hi", stream: true });
    const types: string[] = [];
    for await (const event of stream) types.push(event.type);
    expect(types.at(-1)).toBe("response.failed");
  });

  it("429 past --max-concurrent; a client that disconnects mid-stream interrupts its turn and leaves no process", async () => {
    const proxy = await h.startProxy(["--max-concurrent", "1"]);
    // A unique duration: the marker is on the sleep process itself, whatever the shell execs
    // (/proc cmdline separates arguments with NULs, so the marker is the argument alone).
    const marker = `3${process.pid % 10}.${Date.now() % 100_000}1`;
    h.model.enqueue(
      turn(
        message("Working on it."),
        functionCall("shell_command", { command: `sleep ${marker}` }, "call_sh"),
      ),
      turn(message("never sent")),
    );
    const abort = new AbortController();
    const stream = await proxy
      .client()
      .responses.create({ model: "m", input: "run it", stream: true }, { signal: abort.signal });
    const reading = (async () => {
      try {
        for await (const _ of stream) {
          // read until the abort
        }
      } catch {
        // the abort ends the iteration
      }
    })();
    await waitFor(async () => (await withMarker(marker)).length > 0, 10_000);
    const busy = await proxy
      .client()
      .responses.create({ model: "m", input: "me too" })
      .catch((e: unknown) => e);
    expect(busy).toMatchObject({ status: 429, code: "rate_limit_exceeded" });

    abort.abort();
    await reading;
    await waitFor(async () => (await withMarker(marker)).length === 0, 10_000);
    await waitFor(async () => (await rolloutText(h.home)).includes('"turn_aborted"'), 10_000);
    // The slot is free again once the interrupted turn is over.
    h.model.reset();
    h.model.enqueue(turn(message("free again")));
    await waitFor(async () => {
      const next = await proxy
        .client()
        .responses.create({ model: "m", input: "now?" })
        .catch(() => null);
      return next?.output_text === "free again";
    }, 10_000);
  });
});

describe("proxy shutdown", () => {
  it("SIGTERM lets an open stream finish, then the process exits 0", async () => {
    const proxy = await h.startProxy();
    h.model.enqueue(turn(delay(400), message("finished after SIGTERM")));
    const stream = await proxy.client().responses.create({ model: "m", input: "slow", stream: true });
    const exited = new Promise<number | null>((resolve) => proxy.child.once("exit", (code) => resolve(code)));
    const types: string[] = [];
    let text = "";
    for await (const event of stream) {
      types.push(event.type);
      if (event.type === "response.created") proxy.child.kill("SIGTERM");
      if (event.type === "response.output_text.delta") text += event.delta;
    }
    expect(text).toBe("finished after SIGTERM");
    expect(types.at(-1)).toBe("response.completed");
    expect(await exited).toBe(0);
  });
});
