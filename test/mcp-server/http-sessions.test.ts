/**
 * Streamable HTTP sessions are bounded: an initialize over mcp_server.max_http_sessions gets a
 * 503 that says why, DELETE frees a place, and a session idle for
 * mcp_server.http_session_idle_timeout_ms is closed, but never while a call of it runs.
 */
import { request as httpRequest } from "node:http";
import { setTimeout as sleep } from "node:timers/promises";
import { afterEach, describe, expect, it } from "vitest";
import { delay, message, turn } from "../support/fake-model-server.js";
import { callTool, connectHttp, type HttpServerProcess, startHttpServer } from "../support/mcp-client.js";
import { useMcpHarness } from "../support/mcp-harness.js";

const h = useMcpHarness();
let server: HttpServerProcess | undefined;
afterEach(() => server?.stop());

interface RawReply {
  status: number;
  sessionId: string | undefined;
  body: string;
}

const INITIALIZE = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
};

/** One raw request to the server's /mcp (POST with `body`, or DELETE). */
function send(method: "POST" | "DELETE", body?: object, sessionId?: string): Promise<RawReply> {
  const url = new URL(server?.url ?? "");
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method,
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          ...(sessionId ? { "mcp-session-id": sessionId, "mcp-protocol-version": "2025-06-18" } : {}),
        },
      },
      (res) => {
        let text = "";
        res.setEncoding("utf8").on("data", (chunk: string) => {
          text += chunk;
        });
        res.on("end", () => {
          const id = res.headers["mcp-session-id"];
          resolve({
            status: res.statusCode ?? 0,
            sessionId: typeof id === "string" ? id : undefined,
            body: text,
          });
        });
      },
    );
    req.on("error", reject);
    req.end(body ? JSON.stringify(body) : undefined);
  });
}

const ping = (sessionId: string) => send("POST", { jsonrpc: "2.0", id: 2, method: "ping" }, sessionId);

describe("HTTP session limits", () => {
  it("refuses an initialize over max_http_sessions with a clear 503, until one ends", async () => {
    server = await startHttpServer(h.serverEnv(), ["-c", "mcp_server.max_http_sessions=2"]);
    const first = await send("POST", INITIALIZE);
    const second = await send("POST", INITIALIZE);
    expect([first.status, second.status]).toEqual([200, 200]);
    const over = await send("POST", INITIALIZE);
    expect(over.status).toBe(503);
    expect(JSON.parse(over.body)).toMatchObject({
      error: {
        message:
          "Too many sessions: 2 are open (mcp_server.max_http_sessions); end one with DELETE, or retry once idle ones expire",
      },
    });
    expect((await send("DELETE", undefined, first.sessionId)).status).toBe(200);
    expect((await send("POST", INITIALIZE)).status).toBe(200);
    expect((await ping(second.sessionId ?? "")).status).toBe(200);
  });

  it("closes a session left idle, but not one whose call is running", async () => {
    server = await startHttpServer(h.serverEnv(), ["-c", "mcp_server.http_session_idle_timeout_ms=400"]);
    const idle = await send("POST", INITIALIZE);
    expect(idle.status).toBe(200);
    // Idle expiry is about time: each look is itself a request, so look less often than the timeout.
    let status = 200;
    for (let look = 0; look < 15 && status === 200; look++) {
      await sleep(700);
      status = (await ping(idle.sessionId ?? "")).status;
    }
    expect(status).toBe(404);

    // A call that lasts longer than the idle timeout keeps its session. A server with a longer
    // timeout: the follow-up call must come within it after the slow one ends, which a loaded
    // machine could not promise within 400 ms.
    await server.stop();
    server = await startHttpServer(h.serverEnv(), [
      "-c",
      "mcp_server.http_session_idle_timeout_ms=2000",
      "-c",
      "model_providers.fake.stream_idle_timeout_ms=10000",
    ]);
    const { client, transport } = await connectHttp(server.url);
    try {
      h.model.enqueue(turn(delay(4000), message("slow")), turn(message("next")));
      expect((await callTool(client, "codex", { prompt: "slow", cwd: h.work })).text).toBe("slow");
      expect((await callTool(client, "codex", { prompt: "next", cwd: h.work })).text).toBe("next");
    } finally {
      await transport.close().catch(() => {});
    }
  });
});
