import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createModelClient } from "../../src/model/client.js";
import { retryAfterFromHeaders, retryAfterFromMessage } from "../../src/model/http.js";
import {
  ModelError,
  type ProviderInfo,
  type ResponseEvent,
  type RetryNotice,
  type WireApi,
} from "../../src/model/types.js";
import { userMessage } from "../../src/protocol/items.js";
import {
  dropAfter,
  endStream,
  type FakeModelServer,
  failed,
  hang,
  httpError,
  message,
  startFakeModelServer,
  turn,
} from "../support/fake-model-server.js";

const identity = { sessionId: "t", originator: "test", userAgent: "test/0" };
const settings = { model: "m", reasoning: null, include: [] };
const prompt = { instructions: "x", input: [userMessage("hi")], tools: [], parallelToolCalls: true };

let server: FakeModelServer;
beforeAll(async () => {
  server = await startFakeModelServer();
});
afterAll(() => server.close());
beforeEach(() => server.reset());

function setup(overrides: Partial<ProviderInfo> & { wireApi?: WireApi } = {}, retryBaseMs = 1) {
  const notices: RetryNotice[] = [];
  const client = createModelClient({ provider: server.provider(overrides), settings, identity, retryBaseMs });
  const onRetry = (notice: RetryNotice) => notices.push(notice);
  return { client, notices, onRetry };
}

async function drain(events: AsyncIterable<ResponseEvent>): Promise<ResponseEvent[]> {
  const out: ResponseEvent[] = [];
  for await (const event of events) out.push(event);
  return out;
}

async function failure(events: AsyncIterable<ResponseEvent>): Promise<ModelError> {
  try {
    await drain(events);
  } catch (error) {
    if (error instanceof ModelError) return error;
    throw error;
  }
  throw new Error("expected the stream to fail");
}

const types = (events: ResponseEvent[]) => events.map((event) => event.type);

describe("request retries", () => {
  it("retries a 500 and then succeeds, announcing the retry", async () => {
    server.enqueue(httpError(500, "upstream broke"), turn(message("ok")));
    const { client, notices, onRetry } = setup();
    const events = await drain(client.stream(prompt, { onRetry }));
    expect(events.at(-1)?.type).toBe("completed");
    expect(types(events)).not.toContain("stream_restart");
    expect(server.requests).toHaveLength(2);
    expect(notices).toHaveLength(1);
    expect(notices[0]).toMatchObject({
      attempt: 1,
      maxAttempts: 4,
      message: "unexpected status 500: upstream broke",
    });
    expect(server.requests[1]?.rawBody).toBe(server.requests[0]?.rawBody);
  });

  it("honours retry-after-ms on a 429", async () => {
    server.enqueue(
      httpError(429, { error: { message: "Rate limit reached" } }, { "retry-after-ms": "30" }),
      turn(message("ok")),
    );
    const { client, notices, onRetry } = setup({}, 5000);
    const started = Date.now();
    await drain(client.stream(prompt, { onRetry }));
    expect(notices[0]?.delayMs).toBe(30);
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it("takes the delay from OpenAI's 'try again in' prose when there is no header", async () => {
    const body = {
      error: {
        message: "Rate limit reached. Please try again in 20ms.",
        type: "requests",
        code: "rate_limit_exceeded",
      },
    };
    server.enqueue(httpError(429, body), turn(message("ok")));
    const { client, notices, onRetry } = setup({}, 5000);
    await drain(client.stream(prompt, { onRetry }));
    expect(notices[0]?.delayMs).toBe(20);
  });

  it("does not retry a 400 and surfaces the raw body (reference exec-json-http400)", async () => {
    const body =
      '{"error":{"message":"Invalid request: mock says no","type":"invalid_request_error","code":"bad"}}';
    server.enqueue(httpError(400, body));
    const { client, notices, onRetry } = setup();
    const error = await failure(client.stream(prompt, { onRetry }));
    expect(error).toMatchObject({ kind: "http", status: 400, message: body, code: "bad" });
    expect(notices).toHaveLength(0);
    expect(server.requests).toHaveLength(1);
  });

  it("does not retry a 429 insufficient_quota", async () => {
    server.enqueue(
      httpError(429, { error: { message: "You exceeded your quota", code: "insufficient_quota" } }),
    );
    const error = await failure(setup().client.stream(prompt));
    expect(error).toMatchObject({ kind: "http", status: 429, code: "insufficient_quota" });
    expect(server.requests).toHaveLength(1);
  });

  it("gives up after requestMaxRetries with the last body", async () => {
    server.enqueue(
      httpError(502, "bad gateway 1"),
      httpError(503, "bad gateway 2"),
      httpError(500, "bad gateway 3"),
    );
    const { client, notices, onRetry } = setup({ requestMaxRetries: 2 });
    const error = await failure(client.stream(prompt, { onRetry }));
    expect(error).toMatchObject({ kind: "http", status: 500, message: "bad gateway 3" });
    expect(notices.map((notice) => notice.attempt)).toEqual([1, 2]);
    expect(server.requests).toHaveLength(3);
  });

  it("retries connection errors and then fails with a stream error", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise((resolve) => closed.close(resolve));
    const { client, notices, onRetry } = setup({
      baseUrl: `http://127.0.0.1:${port}/v1`,
      requestMaxRetries: 1,
    });
    const error = await failure(client.stream(prompt, { onRetry }));
    expect(error.kind).toBe("stream");
    expect(error.message).toContain("error sending request for url");
    expect(notices).toHaveLength(1);
  });

  it("gives up waiting for response headers after the idle timeout", async () => {
    const silent = createServer(() => {}); // accepts, never answers
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    const { port } = silent.address() as AddressInfo;
    try {
      const overrides = {
        baseUrl: `http://127.0.0.1:${port}/v1`,
        requestMaxRetries: 0,
        streamIdleTimeoutMs: 50,
      };
      const error = await failure(setup(overrides).client.stream(prompt));
      expect(error).toMatchObject({ kind: "stream" });
      expect(error.message).toContain("timed out after 50 ms waiting for response headers");
    } finally {
      silent.closeAllConnections();
      await new Promise((resolve) => silent.close(resolve));
    }
  });

  describe("TSCODEX_RETRY_BASE_MS", () => {
    const saved = process.env.TSCODEX_RETRY_BASE_MS;
    afterEach(() => {
      if (saved === undefined) delete process.env.TSCODEX_RETRY_BASE_MS;
      else process.env.TSCODEX_RETRY_BASE_MS = saved;
    });

    it("sets the backoff base when no option is given", async () => {
      process.env.TSCODEX_RETRY_BASE_MS = "2";
      server.enqueue(httpError(500, "x"), turn(message("ok")));
      const notices: RetryNotice[] = [];
      const client = createModelClient({ provider: server.provider(), settings, identity });
      await drain(client.stream(prompt, { onRetry: (notice) => notices.push(notice) }));
      expect(notices[0]?.delayMs).toBeLessThanOrEqual(3);
    });
  });
});

describe("stream retries", () => {
  it.each(["responses", "chat"] as const)(
    "restarts a dropped %s stream and says so first",
    async (wireApi) => {
      server.enqueue(turn(message("partial answer"), dropAfter(4)), turn(message("full answer")));
      const { client, notices, onRetry } = setup({ wireApi });
      const events = await drain(client.stream(prompt, { onRetry }));
      const restart = types(events).indexOf("stream_restart");
      expect(restart).toBeGreaterThan(0);
      const after = events.slice(restart + 1);
      expect(after.map((event) => (event.type === "output_text_delta" ? event.delta : "")).join("")).toBe(
        "full answer",
      );
      expect(after.at(-1)?.type).toBe("completed");
      expect(notices).toHaveLength(1);
      expect(notices[0]).toMatchObject({ attempt: 1, maxAttempts: 5 });
      expect(notices[0]?.message).toMatch(/^stream disconnected before completion: /);
    },
  );

  it("does not announce a restart when the failed attempt yielded nothing", async () => {
    server.enqueue(turn(message("x"), dropAfter(0)), turn(message("ok")));
    const events = await drain(setup().client.stream(prompt));
    expect(types(events)).not.toContain("stream_restart");
    expect(events.at(-1)?.type).toBe("completed");
  });

  it("retries a stream that ends cleanly without response.completed", async () => {
    server.enqueue(turn(message("x"), endStream()), turn(message("ok")));
    const { client, notices, onRetry } = setup();
    const events = await drain(client.stream(prompt, { onRetry }));
    expect(types(events)).toContain("stream_restart");
    expect(notices[0]?.message).toBe(
      "stream disconnected before completion: stream closed before response.completed",
    );
  });

  it("retries a generic response.failed", async () => {
    server.enqueue(turn(failed("The server had an error. Please try again in 5ms.")), turn(message("ok")));
    const { client, notices, onRetry } = setup({}, 5000);
    const events = await drain(client.stream(prompt, { onRetry }));
    expect(events.at(-1)?.type).toBe("completed");
    expect(notices[0]).toMatchObject({
      delayMs: 5,
      message: "The server had an error. Please try again in 5ms.",
    });
  });

  it("treats an idle stream as dropped and retries it", async () => {
    server.enqueue(turn(message("hello"), hang()), turn(message("ok")));
    const { client, notices, onRetry } = setup({ streamIdleTimeoutMs: 100 });
    const events = await drain(client.stream(prompt, { onRetry }));
    expect(types(events)).toContain("stream_restart");
    expect(events.at(-1)?.type).toBe("completed");
    expect(notices[0]?.message).toBe("stream disconnected before completion: idle timeout waiting for SSE");
  });

  it("fails with the idle timeout once stream retries are spent", async () => {
    server.enqueue(turn(hang()));
    const error = await failure(
      setup({ streamIdleTimeoutMs: 50, streamMaxRetries: 0 }).client.stream(prompt),
    );
    expect(error).toMatchObject({
      kind: "stream",
      message: "stream disconnected before completion: idle timeout waiting for SSE",
    });
  });
});

describe("abort", () => {
  it("aborts a streaming response promptly", async () => {
    server.enqueue(turn(message("hello"), hang()));
    const controller = new AbortController();
    const seen: ResponseEvent[] = [];
    const started = Date.now();
    const error = await (async () => {
      try {
        for await (const event of setup().client.stream(prompt, { signal: controller.signal })) {
          seen.push(event);
          if (event.type === "output_text_delta") controller.abort();
        }
      } catch (caught) {
        return caught;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(ModelError);
    expect(error).toMatchObject({ kind: "aborted" });
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it("rejects at once when the signal is already aborted", async () => {
    const error = await failure(setup().client.stream(prompt, { signal: AbortSignal.abort() }));
    expect(error.kind).toBe("aborted");
    expect(server.requests).toHaveLength(0);
  });

  it("interrupts a backoff sleep", async () => {
    server.enqueue(httpError(500, "x"));
    const controller = new AbortController();
    const { client } = setup({}, 60_000);
    const started = Date.now();
    const error = await failure(
      client.stream(prompt, { signal: controller.signal, onRetry: () => controller.abort() }),
    );
    expect(error.kind).toBe("aborted");
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it("reuses the keep-alive connection after a completed stream", async () => {
    server.enqueue(turn(message("one")), turn(message("two")), httpError(400, "no"), turn(message("three")));
    const { client } = setup();
    await drain(client.stream(prompt));
    await drain(client.stream(prompt));
    await failure(client.stream(prompt));
    await drain(client.stream(prompt));
    const ports = server.requests.map((request) => request.remotePort);
    expect(new Set(ports).size).toBe(1);
  });

  it("releases the connection when the consumer stops early", async () => {
    server.enqueue(turn(message("hello"), hang()), turn(message("next")));
    const { client } = setup();
    for await (const event of client.stream(prompt)) if (event.type === "created") break;
    const events = await drain(client.stream(prompt));
    expect(events.at(-1)?.type).toBe("completed");
  });
});

describe("retry hints", () => {
  it("parses retry-after-ms, Retry-After seconds and HTTP dates", () => {
    const now = Date.parse("2026-01-01T00:00:00Z");
    expect(retryAfterFromHeaders({ "retry-after-ms": "250" }, now)).toBe(250);
    expect(retryAfterFromHeaders({ "retry-after": "2" }, now)).toBe(2000);
    expect(retryAfterFromHeaders({ "retry-after": "Thu, 01 Jan 2026 00:00:03 GMT" }, now)).toBe(3000);
    expect(retryAfterFromHeaders({ "retry-after": "soon" }, now)).toBeUndefined();
    expect(retryAfterFromHeaders({ "retry-after": "86400" }, now)).toBe(120_000);
  });

  it("parses OpenAI's 'try again in' prose", () => {
    expect(retryAfterFromMessage("Please try again in 1.5s.")).toBe(1500);
    expect(retryAfterFromMessage("Please try again in 250ms.")).toBe(250);
    expect(retryAfterFromMessage("no hint")).toBeUndefined();
  });
});
