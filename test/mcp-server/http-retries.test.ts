/**
 * `tscodex mcp-server --http`: a `codex` call whose connection drops mid-turn, with the MCP SDK
 * client. Its stream is resumable (Last-Event-ID): the SDK client reconnects by itself and gets
 * the call's result while the turn ran on. A call resent with the same `Idempotency-Key` joins
 * or replays the first (on another server process on the same store too) instead of running a
 * second turn (the key in the call's `_meta` works alike); the same key with other arguments is
 * refused.
 */
import { CallToolResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it } from "vitest";
import { functionCall, message, turn } from "../support/fake-model-server.js";
import {
  callTool,
  connectHttp,
  type ElicitHandler,
  type HttpServerProcess,
  startHttpServer,
} from "../support/mcp-client.js";
import { useMcpHarness } from "../support/mcp-harness.js";

const h = useMcpHarness({ extraConfig: "approval_timeout_ms = 20000" });
const servers: HttpServerProcess[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.stop();
});

async function startServer(): Promise<HttpServerProcess> {
  const server = await startHttpServer(h.serverEnv());
  servers.push(server);
  return server;
}

/** A fetch whose tools/call responses `cut()` kills mid-stream, as a dropped connection. */
function cuttableFetch() {
  const calls: AbortController[] = [];
  return {
    fetch: async (url: string | URL, init?: RequestInit): Promise<Response> => {
      const body = typeof init?.body === "string" ? init.body : "";
      if (init?.method !== "POST" || !body.includes('"tools/call"')) return fetch(url, init);
      const controller = new AbortController();
      init.signal?.addEventListener("abort", () => controller.abort(), { once: true });
      calls.push(controller);
      return fetch(url, { ...init, signal: controller.signal });
    },
    cut() {
      for (const controller of calls.splice(0)) controller.abort();
    },
  };
}

/** An elicitation handler that declines once `release()` is called; `asked` resolves at the first question. */
function gatedDecline() {
  let release = () => {};
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  let asked = () => {};
  const firstQuestion = new Promise<void>((resolve) => {
    asked = resolve;
  });
  const onElicit: ElicitHandler = async () => {
    asked();
    await released;
    return { action: "decline" };
  };
  return { onElicit, firstQuestion, release };
}

/**
 * An SDK client of `server` whose tools/call streams can be cut (resumed up to `resumeTries`
 * times) and whose elicitations wait for `gate.release()`; the model's two turns are queued
 * (a command to approve, then "done").
 */
async function connectCuttable(
  server: HttpServerProcess,
  options: { resumeTries: number; headers?: Record<string, string> },
) {
  const wire = cuttableFetch();
  const gate = gatedDecline();
  const { client } = await connectHttp(server.url, {
    ...(options.headers ? { headers: options.headers } : {}),
    onElicit: gate.onElicit,
    fetch: wire.fetch,
    reconnectionOptions: {
      initialReconnectionDelay: 20,
      maxReconnectionDelay: 200,
      reconnectionDelayGrowFactor: 1.5,
      maxRetries: options.resumeTries,
    },
  });
  h.model.enqueue(
    turn(functionCall("shell_command", { command: "touch x" }, "call_1")),
    turn(message("done")),
  );
  return { client, wire, gate };
}

const touchCall = () => ({
  prompt: "touch it",
  cwd: h.work,
  sandbox: "danger-full-access",
  "approval-policy": "untrusted",
});

describe("mcp-server --http: a call whose connection dropped", () => {
  it("resumes the call's stream with Last-Event-ID and gets its result; the turn runs once", async () => {
    const { client, wire, gate } = await connectCuttable(await startServer(), { resumeTries: 20 });
    const call = callTool(client, "codex", touchCall());
    await gate.firstQuestion;
    wire.cut();
    gate.release();
    const { text, result } = await call;
    expect(result.isError).toBeFalsy();
    expect(text).toBe("done");
    expect(h.model.requests).toHaveLength(2);
    await client.close();
  });

  it("runs a call resent with the same Idempotency-Key once, on this process and another", async () => {
    const headers = { "Idempotency-Key": "call-7" };
    const { client, wire, gate } = await connectCuttable(await startServer(), { resumeTries: 0, headers });
    // The first attempt's stream dies and this client does not resume it: its answer is lost.
    const lost = callTool(client, "codex", touchCall()).catch(() => null);
    await gate.firstQuestion;
    wire.cut();
    const retry = callTool(client, "codex", touchCall());
    gate.release();
    const first = await retry;
    expect(first.text).toBe("done");
    expect(h.model.requests).toHaveLength(2);

    const again = await callTool(client, "codex", touchCall());
    expect(again.text).toBe("done");
    expect(again.threadId).toBe(first.threadId);
    await expect(callTool(client, "codex", { ...touchCall(), prompt: "touch y" })).rejects.toThrow(
      /Idempotency-Key 'call-7' was first used with another tool or other arguments/,
    );

    // Another server process on the same store replays the kept result; the key may come in
    // the call's _meta as well.
    const other = await startServer();
    const { client: elsewhere } = await connectHttp(other.url);
    const replayed = CallToolResultSchema.parse(
      await elsewhere.callTool({
        name: "codex",
        arguments: touchCall(),
        _meta: { "tscodex/idempotencyKey": "call-7" },
      }),
    );
    expect(replayed.content).toEqual(first.result.content);
    expect(replayed.structuredContent?.threadId).toBe(first.threadId);
    expect(h.model.requests).toHaveLength(2);
    await elsewhere.close();
    await client.close();
    await lost;
  });
});
