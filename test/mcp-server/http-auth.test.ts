/**
 * Who may use `mcp-server --http` (issue 15 item 4): a non-loopback bind needs a key; a
 * key-less loopback server serves local processes of its own user but refuses other users'
 * processes and commands running inside a tscodex sandbox (with network access they reach
 * 127.0.0.1), on both sandbox backends.
 */
import { spawn } from "node:child_process";
import { afterEach, describe, expect, it } from "vitest";
import { prepareSandboxedCommand } from "../../src/policy/sandbox/index.js";
import { CLI_PATH } from "../support/cli.js";
import { type HttpServerProcess, startHttpServer } from "../support/mcp-client.js";
import { useMcpHarness } from "../support/mcp-harness.js";
import { notRoot, OTHER_UID, statusAs } from "../support/peer-clients.js";
import { runProbe, sandboxBackends } from "../support/sandbox-probe.js";

const h = useMcpHarness();
let server: HttpServerProcess | undefined;
afterEach(async () => {
  await server?.stop();
  server = undefined;
});

const backends = await sandboxBackends();

const INITIALIZE = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "probe", version: "1" } },
});

/** A node process's argv that POSTs initialize and prints only the status code. */
function postInitialize(url: string, headers: string[] = []): string[] {
  const extra = Object.fromEntries(headers.map((header) => header.split(": ") as [string, string]));
  const script = `fetch(${JSON.stringify(url)}, { method: "POST", headers: ${JSON.stringify({
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    ...extra,
  })}, body: ${JSON.stringify(INITIALIZE)} }).then((r) => { console.log(r.status); process.exit(0); }, (e) => { console.log(String(e)); process.exit(1); });`;
  return [process.execPath, "-e", script];
}

const run = (argv: string[]) => runProbe(argv, h.work);

describe("mcp-server --http authentication", () => {
  it("refuses to listen beyond loopback without a key", async () => {
    const child = spawn(process.execPath, [CLI_PATH, "mcp-server", "--http", "0", "--host", "0.0.0.0"], {
      cwd: h.work,
      env: { ...process.env, TSCODEX_HOME: h.home },
      stdio: ["ignore", "ignore", "pipe"],
    });
    let stderr = "";
    const exit = new Promise<number | null>((resolve) => child.once("exit", resolve));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
      // Started anyway: stop it, and the assertions below fail.
      if (/listening on/.test(stderr)) child.kill("SIGTERM");
    });
    const code = await exit;
    expect(code).toBe(2);
    expect(stderr).toMatch(/refusing to listen on 0\.0\.0\.0 without a key/);
    expect(stderr).not.toMatch(/listening on/);
  });

  it("listens beyond loopback with a key", async () => {
    server = await startHttpServer({ ...h.serverEnv(), env: { MCP_KEY: "k-123" } }, [
      "--host",
      "0.0.0.0",
      "--api-key-env",
      "MCP_KEY",
    ]);
    expect(server.url).toMatch(/^http:\/\/0\.0\.0\.0:\d+\/mcp$/);
  });

  it("a key-less loopback server answers an unsandboxed local process", async () => {
    server = await startHttpServer(h.serverEnv());
    expect(await run(postInitialize(server.url))).toBe("200");
  });

  it.skipIf(notRoot("the other-user MCP check"))(
    "a key-less loopback server refuses another user's process (403) and serves its own user's",
    async () => {
      server = await startHttpServer(h.serverEnv());
      // A GET without a session: past the caller check it is a 400, refused before it a 403.
      expect(await statusAs(OTHER_UID, server.url, "get")).toBe("403");
      expect(await statusAs(0, server.url, "get")).toBe("400");
    },
  );

  for (const { name, status } of backends) {
    it.skipIf(!status.available)(
      `a key-less loopback server refuses a command inside the ${name} sandbox (network on)`,
      async () => {
        server = await startHttpServer(h.serverEnv());
        const prepared = await prepareSandboxedCommand(
          postInitialize(server.url),
          h.work,
          { mode: "workspace-write", writableRoots: [], networkAccess: true },
          { backend: name },
        );
        expect(await run(prepared.argv)).toBe("403");
      },
    );
  }

  it.skipIf(!backends.some((b) => b.status.available))(
    "a sandboxed command with the key is served (the key is the authentication)",
    async () => {
      server = await startHttpServer({ ...h.serverEnv(), env: { MCP_KEY: "k-123" } }, [
        "--api-key-env",
        "MCP_KEY",
      ]);
      const prepared = await prepareSandboxedCommand(
        postInitialize(server.url, ["Authorization: Bearer k-123"]),
        h.work,
        { mode: "workspace-write", writableRoots: [], networkAccess: true },
      );
      expect(await run(prepared.argv)).toBe("200");
    },
  );
});
