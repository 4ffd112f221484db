/**
 * The network listeners of `mcp-server --http` and `app-server --listen ws://` answer health
 * probes (GET /healthz, /readyz, no key needed, whatever the bearer key), announce them when they
 * start, and log their shutdown on SIGTERM.
 */
import { describe, expect, it } from "vitest";
import { useExecHarness } from "../support/exec-harness.js";
import { spawnListening } from "../support/listening-server.js";

const h = useExecHarness({ key: "k" });

const servers: [string, string[], (url: string) => string][] = [
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
      expect(server.stderr()).toContain("(GET /healthz, /readyz)");
    } finally {
      await server.stop();
    }
    expect(server.stderr()).toMatch(/shutting down\n.*stopped\n/s);
  });
});
