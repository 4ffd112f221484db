/**
 * The network listeners of `proxy`, `mcp-server --http` and `app-server --listen ws://` answer
 * health probes (GET /healthz, /readyz, no key needed, whatever the bearer key; a foreign Host is
 * still refused), announce them when they start, and log their shutdown on SIGTERM.
 */
import { request } from "node:http";
import { describe, expect, it } from "vitest";
import { WebSocket } from "ws";
import { useExecHarness } from "../support/exec-harness.js";
import { type ListeningServer, spawnListening } from "../support/listening-server.js";

const h = useExecHarness({ key: "k" });

const servers: [string, string[], (url: string) => string][] = [
  ["proxy", ["proxy", "--port", "0", "--api-key-env", "SERVER_KEY"], (url) => url.replace(/\/v1$/, "")],
  [
    "mcp-server --http",
    ["mcp-server", "--http", "0", "--api-key-env", "SERVER_KEY"],
    (url) => url.replace(/\/mcp$/, ""),
  ],
  [
    "app-server --listen ws://",
    ["app-server", "--listen", "ws://127.0.0.1:0", "--api-key-env", "SERVER_KEY"],
    (url) => url.replace(/^ws:/, "http:"),
  ],
];

describe.each(servers)("%s", (what, args, baseOf) => {
  it("answers /healthz and /readyz and logs its start and shutdown", async () => {
    const server = await spawnListening(
      args,
      { home: h.home, cwd: h.work, env: { FAKE_KEY: "k", SERVER_KEY: "secret" } },
      { what },
    );
    try {
      const base = baseOf(server.url);
      const health = await fetch(`${base}/healthz`);
      expect(health.status).toBe(200);
      expect(await health.text()).toBe("ok\n");
      const ready = await fetch(`${base}/readyz`);
      expect(ready.status).toBe(200);
      expect(await ready.text()).toBe("ready\n");
      // Anything else still needs the key.
      expect((await fetch(`${base}/other`)).status).toBe(401);
      // DNS-rebinding protection holds for the probes too.
      expect(await statusWithHost(`${base}/healthz`, "evil.example")).toBe(403);
      // The start line names the store and the sandbox; each request gets its own line.
      expect(server.stderr()).toMatch(
        new RegExp(
          `listening on \\S+ \\(GET /healthz, /readyz\\); store jsonl ${h.home}/sessions, sandbox \\S+`,
        ),
      );
      await stderrMatching(server, /: GET \/readyz 200 \d+\.\dms\n/);
      await stderrMatching(server, /: GET \/other 401 \d+\.\dms\n/);
    } finally {
      await server.stop();
    }
    expect(server.stderr()).toMatch(/shutting down\n.*stopped\n/s);
  });
});

describe("app-server --listen ws:// connection log", () => {
  it("logs each WebSocket connection's open and close", async () => {
    const server = await spawnListening(
      ["app-server", "--listen", "ws://127.0.0.1:0", "--api-key-env", "SERVER_KEY"],
      { home: h.home, cwd: h.work, env: { FAKE_KEY: "k", SERVER_KEY: "secret" } },
      { what: "app-server" },
    );
    try {
      const ws = new WebSocket(server.url, { headers: { authorization: "Bearer secret" } });
      await new Promise((resolve, reject) => ws.once("open", resolve).once("error", reject));
      await stderrMatching(server, /: websocket open 127\.0\.0\.1:\d+\n/);
      ws.close(1000);
      await stderrMatching(server, /: websocket close 127\.0\.0\.1:\d+ \(1000\)\n/);
    } finally {
      await server.stop();
    }
  });
});

/** The status of GET `url` sent with `Host: host` (fetch does not let a caller set Host). */
function statusWithHost(url: string, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers: { host } }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.once("error", reject);
    req.end();
  });
}

/** Resolves once the server's stderr matches `pattern` (its log lines are written asynchronously). */
function stderrMatching(server: ListeningServer, pattern: RegExp): Promise<void> {
  return new Promise((resolve) => {
    const check = () => {
      if (!pattern.test(server.stderr())) return;
      server.child.stderr?.off("data", check);
      resolve();
    };
    server.child.stderr?.on("data", check);
    check();
  });
}
