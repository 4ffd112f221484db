/**
 * While a server drains after SIGTERM, its port stays open: `GET /readyz` answers 503 (a load
 * balancer takes it out of rotation) instead of a refused connection, and a new connection gets a
 * 503 for work, while the work in flight still finishes (README: "`GET /readyz` 200 while it
 * takes new work and 503 once it drains"). The drain is held open by what it waits for: the
 * proxy's model turn, and for mcp-server and app-server a SessionEnd hook that waits for the test.
 */
import { mkdir, writeFile } from "node:fs/promises";
import { request } from "node:http";
import { join } from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import { WebSocket } from "ws";
import { WsAppServer } from "../support/app-server-client.js";
import { useExecHarness } from "../support/exec-harness.js";
import { hold, message, turn } from "../support/fake-model-server.js";
import { type ListeningServer, spawnListening } from "../support/listening-server.js";
import { callTool, connectHttp, startHttpServer } from "../support/mcp-client.js";

const h = useExecHarness();
let release: string;

/** Resolves once the server's stderr matches `pattern`. */
function stderrMatching(
  stderr: () => string,
  child: ListeningServer["child"],
  pattern: RegExp,
): Promise<void> {
  return new Promise((resolve) => {
    const check = () => {
      if (!pattern.test(stderr())) return;
      child.stderr?.off("data", check);
      resolve();
    };
    child.stderr?.on("data", check);
    check();
  });
}

function exitCode(child: ListeningServer["child"]): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => child.once("exit", (code) => resolve(code)));
}

/** A request on a new connection (as a prober or a new client does): [status, body]. */
function requestFresh(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<[number, string]> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { agent: false, method: options.method ?? "GET", headers: options.headers },
      (res) => {
        let body = "";
        res.setEncoding("utf8").on("data", (chunk: string) => {
          body += chunk;
        });
        res.once("end", () => resolve([res.statusCode ?? 0, body]));
      },
    );
    req.once("error", reject);
    req.end(options.body);
  });
}

/** SIGTERM, then what /readyz says once the server has begun to drain. */
async function readyzWhileDraining(server: ListeningServer, base: string): Promise<[number, string]> {
  server.child.kill("SIGTERM");
  await stderrMatching(server.stderr, server.child, /shutting down\n/);
  return requestFresh(`${base}/readyz`);
}

beforeEach(async () => {
  release = join(h.home, "release");
});

/** A trusted SessionEnd hook that holds a thread's shutdown (so the drain) until `release` exists. */
async function holdingSessionEnd(): Promise<void> {
  await mkdir(h.home, { recursive: true });
  // Bounded, so a hook orphaned by a failed test (its server killed) ends by itself.
  const wait = `i=0; while [ ! -e '${release}' ] && [ $i -lt 250 ]; do sleep 0.02; i=$((i+1)); done`;
  await writeFile(
    join(h.home, "hooks.json"),
    JSON.stringify({ hooks: { SessionEnd: [{ hooks: [{ type: "command", command: wait, timeout: 3 }] }] } }),
  );
  expect((await h.cli(["hooks", "trust", "--all"])).code).toBe(0);
}

describe("/readyz while draining", () => {
  it("proxy: 503 while a response is in flight, new work 503, the response completes, exit 0", async () => {
    const server = await spawnListening(
      ["proxy", "--port", "0"],
      { home: h.home, cwd: h.work },
      { what: "proxy" },
    );
    try {
      let letGo = () => {};
      h.server.enqueue(turn(hold(new Promise<void>((resolve) => (letGo = resolve))), message("late answer")));
      const inFlight = fetch(`${server.url}/responses`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ model: "gpt-5.2-codex", input: "hello" }),
      });
      await h.server.waitForRequests(1);
      const exited = exitCode(server.child);
      const base = server.url.replace(/\/v1$/, "");
      expect(await readyzWhileDraining(server, base)).toEqual([503, "draining\n"]);
      expect((await requestFresh(`${server.url}/models`))[0]).toBe(503);
      letGo();
      const answered = await inFlight;
      expect(answered.status).toBe(200);
      expect(JSON.stringify(await answered.json())).toContain("late answer");
      expect(await exited).toBe(0);
    } finally {
      await writeFile(release, "").catch(() => {});
      await server.stop();
    }
  });

  it("mcp-server --http: 503 while a thread shuts down, a new session 503, exit 0", async () => {
    await holdingSessionEnd();
    const server = await startHttpServer({ home: h.home, cwd: h.work });
    try {
      h.server.enqueue(turn(message("ok")));
      const { client } = await connectHttp(server.url);
      const { text } = await callTool(client, "codex", {
        prompt: "hi",
        cwd: h.work,
        sandbox: "danger-full-access",
        "approval-policy": "never",
      });
      expect(text).toBe("ok");
      const exited = exitCode(server.child);
      const base = server.url.replace(/\/mcp$/, "");
      expect(await readyzWhileDraining(server, base)).toEqual([503, "draining\n"]);
      const [late] = await requestFresh(server.url, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "initialize",
          params: {
            protocolVersion: "2025-06-18",
            capabilities: {},
            clientInfo: { name: "t", version: "1" },
          },
        }),
      });
      expect(late).toBe(503);
      await writeFile(release, "");
      expect(await exited).toBe(0);
      await client.close().catch(() => {});
    } finally {
      await writeFile(release, "").catch(() => {});
      await server.stop();
    }
  });

  it("app-server --listen ws://: 503 while a thread shuts down, a new upgrade 503, exit 0", async () => {
    await holdingSessionEnd();
    const server = await WsAppServer.start({ home: h.home, cwd: h.work });
    try {
      const client = await server.connect();
      await client.initialize();
      await client.call("thread/start", {
        cwd: h.work,
        approvalPolicy: "never",
        sandbox: "danger-full-access",
      });
      const exited = exitCode(server.child);
      const listening = { child: server.child, stderr: () => server.stderr } as ListeningServer;
      const base = server.url.replace(/^ws:/, "http:");
      expect(await readyzWhileDraining(listening, base)).toEqual([503, "draining\n"]);
      const refused = await new Promise<number>((resolve, reject) => {
        const ws = new WebSocket(server.url);
        ws.once("unexpected-response", (_req, res) => resolve(res.statusCode ?? 0));
        ws.once("open", () => reject(new Error("upgraded while draining")));
        ws.once("error", reject);
      });
      expect(refused).toBe(503);
      await writeFile(release, "");
      expect(await exited).toBe(0);
    } finally {
      await writeFile(release, "").catch(() => {});
      await server.stop();
    }
  });
});
