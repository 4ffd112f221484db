/**
 * `tscodex mcp-server --http`: the SDK's Streamable HTTP client end to end, the bearer key,
 * DNS-rebinding protection (Host/Origin), concurrent calls in one session, DELETE ending it,
 * and an elicitation over the call's SSE stream.
 */
import { request as httpRequest } from "node:http";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { writeFakeConfig } from "../support/cli.js";
import {
  type FakeModelServer,
  functionCall,
  message,
  startFakeModelServer,
  turn,
} from "../support/fake-model-server.js";
import { callTool, connectHttp, type HttpServerProcess, startHttpServer } from "../support/mcp-client.js";
import { type TempDir, tmpdir } from "../support/tmpdir.js";

const KEY = "secret-key-123";
const AUTH = { Authorization: `Bearer ${KEY}` };

let model: FakeModelServer;
let home: TempDir;
let work: TempDir;
let server: HttpServerProcess;

beforeAll(async () => {
  model = await startFakeModelServer();
});
afterAll(() => model.close());
beforeEach(async () => {
  model.reset();
  home = await tmpdir("tscodex-mcp-home-");
  work = await tmpdir("tscodex-mcp-work-");
  await writeFakeConfig(home.path, { baseUrl: model.url });
  server = await startHttpServer({ home: home.path, cwd: work.path, env: { MCP_KEY: KEY } }, [
    "--api-key-env",
    "MCP_KEY",
  ]);
});
afterEach(async () => {
  await server.stop();
  await home.cleanup();
  await work.cleanup();
});

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

  it("runs codex and codex-reply, several calls of one session at once", async () => {
    const { client, transport } = await connectHttp(server.url, { headers: AUTH });
    try {
      model.enqueue(turn(message("a")), turn(message("b")));
      const [one, two] = await Promise.all([
        callTool(client, "codex", { prompt: "one", cwd: work.path }),
        callTool(client, "codex", { prompt: "two", cwd: work.path }),
      ]);
      expect([one.text, two.text].sort()).toEqual(["a", "b"]);
      expect(one.threadId).not.toBe(two.threadId);

      model.enqueue(turn(message("again")));
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
      model.enqueue(
        turn(functionCall("shell_command", { command: "touch http.txt" }, "call_1")),
        turn(message("done")),
      );
      const result = await callTool(client, "codex", {
        prompt: "touch",
        cwd: work.path,
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
