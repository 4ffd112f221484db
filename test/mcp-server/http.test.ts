/**
 * `tscodex mcp-server --http`: the SDK's Streamable HTTP client end to end, the bearer key,
 * DNS-rebinding protection (Host/Origin), concurrent calls in one session, DELETE ending it,
 * and an elicitation over the call's SSE stream.
 */
import { request as httpRequest } from "node:http";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { functionCall, message, turn } from "../support/fake-model-server.js";
import { callTool, connectHttp, type HttpServerProcess, startHttpServer } from "../support/mcp-client.js";
import { useMcpHarness } from "../support/mcp-harness.js";

const KEY = "secret-key-123";
const AUTH = { Authorization: `Bearer ${KEY}` };

const h = useMcpHarness();
let server: HttpServerProcess;

// Registered after the harness: starts once home and work exist, stops before they are removed.
beforeEach(async () => {
  server = await startHttpServer({ ...h.serverEnv(), env: { MCP_KEY: KEY } }, ["--api-key-env", "MCP_KEY"]);
});
afterEach(() => server.stop());

/** A raw POST of an initialize request with the given headers; resolves with the status. */
function rawPost(headers: Record<string, string>): Promise<number> {
  const url = new URL(server.url);
  const body = JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
  });
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          ...headers,
        },
      },
      (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

describe("mcp-server --http", () => {
  it("listens on 127.0.0.1 by default", () => {
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
  });

  it("refuses requests without the bearer key (401) and foreign Host/Origin (403)", async () => {
    expect(await rawPost({})).toBe(401);
    expect(await rawPost({ Authorization: "Bearer wrong" })).toBe(401);
    expect(await rawPost({ ...AUTH, Host: "evil.example:80" })).toBe(403);
    expect(await rawPost({ ...AUTH, Origin: "http://evil.example" })).toBe(403);
    expect(await rawPost({ ...AUTH, Origin: "http://localhost:3000" })).toBe(200);
  });

  it("refuses Origin: null (403) and a body not declared as JSON (415)", async () => {
    expect(await rawPost({ ...AUTH, Origin: "null" })).toBe(403);
    expect(await rawPost({ ...AUTH, "content-type": "text/plain" })).toBe(415);
    expect(await rawPost({ ...AUTH, "content-type": "application/x-www-form-urlencoded" })).toBe(415);
    expect(await rawPost({ ...AUTH, "content-type": "application/json; charset=utf-8" })).toBe(200);
  });

  it("runs codex and codex-reply, several calls of one session at once", async () => {
    const { client, transport } = await connectHttp(server.url, { headers: AUTH });
    try {
      h.model.enqueue(turn(message("a")), turn(message("b")));
      const [one, two] = await Promise.all([
        callTool(client, "codex", { prompt: "one", cwd: h.work }),
        callTool(client, "codex", { prompt: "two", cwd: h.work }),
      ]);
      expect([one.text, two.text].sort()).toEqual(["a", "b"]);
      expect(one.threadId).not.toBe(two.threadId);

      h.model.enqueue(turn(message("again")));
      const progress: string[] = [];
      const reply = await callTool(
        client,
        "codex-reply",
        { threadId: one.threadId, prompt: "more" },
        progress,
      );
      expect(reply.result.structuredContent).toEqual({ threadId: one.threadId, content: "again" });
      expect(progress).toContain("Turn complete");

      // DELETE ends the session: its id is no longer accepted.
      const sessionId = transport.sessionId;
      await transport.terminateSession();
      const status = await new Promise<number>((resolve, reject) => {
        const url = new URL(server.url);
        const req = httpRequest(
          {
            host: url.hostname,
            port: url.port,
            path: url.pathname,
            method: "POST",
            headers: {
              ...AUTH,
              "content-type": "application/json",
              accept: "application/json, text/event-stream",
              "mcp-session-id": sessionId ?? "",
            },
          },
          (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          },
        );
        req.on("error", reject);
        req.end(JSON.stringify({ jsonrpc: "2.0", id: 9, method: "ping" }));
      });
      expect(status).toBe(404);
    } finally {
      await client.close();
    }
  });

  it("asks for approval over the call's stream", async () => {
    const asked: string[] = [];
    const { client } = await connectHttp(server.url, {
      headers: AUTH,
      onElicit: (params) => {
        asked.push(String(params.codex_elicitation));
        return { action: "accept" };
      },
    });
    try {
      h.model.enqueue(
        turn(functionCall("shell_command", { command: "touch http.txt" }, "call_1")),
        turn(message("done")),
      );
      const result = await callTool(client, "codex", {
        prompt: "touch",
        cwd: h.work,
        sandbox: "danger-full-access",
        "approval-policy": "untrusted",
      });
      expect(result.text).toBe("done");
      expect(asked).toEqual(["exec-approval"]);
    } finally {
      await client.close();
    }
  });
});
