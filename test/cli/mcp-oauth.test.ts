/**
 * OAuth login for Streamable HTTP MCP servers, end to end against the MCP SDK's own
 * `simpleStreamableHttp.js --oauth` and its demo authorization server (reference section 3):
 * a 401 without a login is one line naming `tscodex mcp login NAME` (and fails a `required`
 * server's run); `mcp login` prints the URL, the test follows it as a browser would, the tokens
 * land in `.credentials.json` (0600, Codex's shape); a later run calls the protected tool;
 * `mcp list` shows the auth status; `mcp logout` forgets the tokens. Refresh is tested against a
 * small authorization server of the test's own (the demo one cannot refresh): an expired token
 * is refreshed once even when two runs start together.
 */

import { readFile, stat, writeFile } from "node:fs/promises";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { afterEach, describe, expect, it } from "vitest";
import { useExecHarness } from "../support/exec-harness.js";
import { functionCall, message, turn } from "../support/fake-model-server.js";
import { startHttpFixture } from "../support/mcp-fixture-server.js";
import { freePort, type SdkExample, startSdkExample } from "../support/sdk-examples.js";

const h = useExecHarness({ config: false });
let example: SdkExample | undefined;
afterEach(async () => {
  await example?.stop();
  example = undefined;
});

const LOGIN_LINE = "MCP server 'demo' requires a login: run `tscodex mcp login demo`";

async function demoServer(): Promise<string> {
  const [mcpPort, authPort] = [await freePort(), await freePort()];
  example = await startSdkExample("simpleStreamableHttp.js", {
    args: ["--oauth"],
    env: { MCP_PORT: String(mcpPort), MCP_AUTH_PORT: String(authPort) },
    ready: /MCP Streamable HTTP Server listening/,
  });
  return `http://localhost:${mcpPort}/mcp`;
}

const demoToml = (url: string, extra = "") =>
  `[mcp_servers.demo]\nurl = "${url}"\ndefault_tools_approval_mode = "approve"\n${extra}`;

/** `tscodex mcp login demo`, following the printed URL as a browser would. */
async function login(
  env: Record<string, string> = {},
): Promise<{ code: number | null; stdout: string; page: string }> {
  let page = "";
  let followed: Promise<void> | undefined;
  const result = await h.cli(["mcp", "login", "demo"], {
    env,
    onSpawn: (child) => {
      let out = "";
      child.stdout?.on("data", (chunk: Buffer) => {
        out += chunk.toString();
        const url = /^(http:\/\/localhost:\d+\/authorize\?\S+)$/m.exec(out)?.[1];
        if (url && !followed) {
          followed = (async () => {
            const authorize = await fetch(url, { redirect: "manual" });
            const location = authorize.headers.get("location");
            if (!location) throw new Error(`no redirect from ${url}: ${authorize.status}`);
            const callback = await fetch(location);
            page = `${callback.status} ${callback.headers.get("content-type")} ${await callback.text()}`;
          })();
        }
      });
    },
  });
  await followed;
  return { code: result.code, stdout: result.stdout, page };
}

describe("MCP OAuth login against the SDK's demo server", () => {
  it("401 without a login: one line naming the login command; required fails the run", async () => {
    const url = await demoServer();
    await h.writeConfig({ extra: demoToml(url) });
    h.server.enqueue(turn(functionCall("mcp__demo__greet", { name: "x" }, "call_1")), turn(message("done")));
    const optional = await h.exec(["go"]);
    expect(optional.code, optional.stderr).toBe(0);
    expect(optional.stderr).toContain(LOGIN_LINE);
    expect(h.outputs()).toEqual({ call_1: "unsupported call: mcp__demo__greet" });

    await h.writeConfig({ extra: demoToml(url, "required = true\n") });
    const required = await h.exec(["go"]);
    expect(required.code).not.toBe(0);
    expect(required.stderr).toContain(`required MCP servers failed to initialize: demo: ${LOGIN_LINE}`);
  }, 120_000);

  it("login, a later run with the token, list, logout", async () => {
    const url = await demoServer();
    await h.writeConfig({ extra: demoToml(url) });
    const before = await h.cli(["mcp", "list", "--json"]);
    expect(JSON.parse(before.stdout)).toEqual([
      expect.objectContaining({ name: "demo", auth_status: "not_logged_in" }),
    ]);

    // $BROWSER is run with the URL (this one only notes it; the test is the browser).
    const browser = join(h.work, "..", `${h.work.split("/").at(-1)}-browser.sh`);
    const opened = `${browser}.url`;
    await writeFile(browser, `#!/bin/sh\nprintf '%s' "$1" > '${opened}'\n`, { mode: 0o755 });
    const { code, stdout, page } = await login({ BROWSER: browser });
    expect(code, stdout).toBe(0);
    expect(await readFile(opened, "utf8")).toBe(stdout.split("\n")[1]);
    expect(stdout).toMatch(
      /^Authorize `demo` by opening this URL in your browser:\nhttp:\/\/localhost:\d+\/authorize\?/,
    );
    const authorizeUrl = new URL(stdout.split("\n")[1] ?? "");
    expect(authorizeUrl.searchParams.get("code_challenge_method")).toBe("S256");
    expect(authorizeUrl.searchParams.get("scope")).toBe("mcp:tools");
    expect(authorizeUrl.searchParams.get("resource")).toBe(url);
    expect(authorizeUrl.searchParams.get("redirect_uri")).toMatch(
      /^http:\/\/127\.0\.0\.1:\d+\/callback\/\S+$/,
    );
    expect(page).toBe("200 text/plain Authentication complete. You may close this window.");
    expect(stdout).toContain("Successfully logged in to MCP server 'demo'.");

    const path = join(h.home, ".credentials.json");
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    const stored = JSON.parse(await readFile(path, "utf8")) as Record<string, Record<string, unknown>>;
    const [key] = Object.keys(stored);
    expect(key).toMatch(/^demo\|[0-9a-f]{16}$/);
    const entry = stored[key ?? ""] ?? {};
    expect(entry).toMatchObject({
      server_name: "demo",
      server_url: url,
      refresh_token: null,
      scopes: ["mcp:tools"],
    });
    expect(typeof entry.access_token).toBe("string");
    expect(entry.expires_at).toBeGreaterThan(Date.now());
    // Never logged.
    expect(stdout).not.toContain(String(entry.access_token));

    const listed = await h.cli(["mcp", "list"]);
    expect(listed.stdout).toMatch(/^demo\s+http\s+\S+\s+enabled\s+OAuth$/m);

    h.server.enqueue(
      turn(functionCall("mcp__demo__greet", { name: "tscodex" }, "call_1")),
      turn(message("done")),
    );
    const run = await h.exec(["greet"]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).not.toContain(String(entry.access_token));
    expect(h.outputs()).toEqual({ call_1: '[{"text":"Hello, tscodex!","type":"text"}]' });

    const out = await h.cli(["mcp", "logout", "demo"]);
    expect(out.code, out.stderr).toBe(0);
    expect(JSON.parse(await readFile(path, "utf8"))).toEqual({});
    const after = await h.cli(["mcp", "list", "--json"]);
    expect(JSON.parse(after.stdout)).toEqual([expect.objectContaining({ auth_status: "not_logged_in" })]);
  }, 120_000);

  it("--no-browser: the callback URL pasted on stdin completes the login", async () => {
    const url = await demoServer();
    const { loginToMcpServer } = await import("../../src/mcp/oauth/login.js");
    const input = new PassThrough();
    const printed: string[] = [];
    let pasted: Promise<void> | undefined;
    await loginToMcpServer({
      name: "demo",
      url,
      home: h.home,
      noBrowser: true,
      env: { BROWSER: "/nonexistent-browser" },
      input,
      timeoutMs: 20_000,
      print: (line) => {
        printed.push(line);
        if (!line.startsWith("http")) return;
        // The browser's address bar after the redirect, pasted instead of loaded.
        pasted = fetch(line, { redirect: "manual" }).then((response) => {
          input.write(`not a url\n${response.headers.get("location")}\n`);
        });
      },
    });
    await pasted;
    expect(printed.at(-1)).toBe("Successfully logged in to MCP server 'demo'.");
    expect(printed).toContain("Then paste the URL the browser was sent to (the callback URL) here:");
    const stored = Object.values(JSON.parse(await readFile(join(h.home, ".credentials.json"), "utf8")));
    expect(stored).toEqual([expect.objectContaining({ server_name: "demo", server_url: url })]);
  }, 120_000);
});

describe("MCP OAuth token refresh", () => {
  it("refreshes an expired token once, even for two runs at the same time", async () => {
    let refreshes = 0;
    const issuer = createServer((req, res) => {
      const base = `http://127.0.0.1:${(issuer.address() as AddressInfo).port}`;
      if (req.url === "/.well-known/oauth-authorization-server") {
        res.writeHead(200, { "content-type": "application/json" }).end(
          JSON.stringify({
            issuer: base,
            authorization_endpoint: `${base}/authorize`,
            token_endpoint: `${base}/token`,
            response_types_supported: ["code"],
          }),
        );
        return;
      }
      if (req.url === "/token" && req.method === "POST") {
        let body = "";
        req.on("data", (chunk: Buffer) => {
          body += chunk.toString();
        });
        req.on("end", () => {
          const form = new URLSearchParams(body);
          if (form.get("grant_type") !== "refresh_token" || form.get("refresh_token") !== "refresh-1") {
            res.writeHead(400, { "content-type": "application/json" }).end('{"error":"invalid_grant"}');
            return;
          }
          refreshes += 1;
          res.writeHead(200, { "content-type": "application/json" }).end(
            JSON.stringify({
              access_token: "fresh-1",
              token_type: "bearer",
              expires_in: 3600,
              refresh_token: "refresh-2",
            }),
          );
        });
        return;
      }
      res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => issuer.listen(0, "127.0.0.1", resolve));
    const http = await startHttpFixture();
    try {
      const issuerUrl = `http://127.0.0.1:${(issuer.address() as AddressInfo).port}`;
      await h.writeConfig({ extra: `[mcp_servers.fx]\nurl = "${http.url}"\n` });
      // The key of a login: the name and URL (credentials.ts); written as a login would.
      const { credentialsKey } = await import("../../src/mcp/oauth/credentials.js");
      await writeFile(
        join(h.home, ".credentials.json"),
        JSON.stringify({
          [credentialsKey("fx", http.url)]: {
            server_name: "fx",
            server_url: http.url,
            issuer: issuerUrl,
            client_id: "client-1",
            access_token: "expired-1",
            expires_at: Date.now() - 1000,
            refresh_token: "refresh-1",
            scopes: [],
          },
        }),
        { mode: 0o600 },
      );
      h.server.enqueue(turn(message("one")), turn(message("two")));
      const runs = await Promise.all([h.exec(["a"]), h.exec(["b"])]);
      for (const run of runs) expect(run.code, run.stderr).toBe(0);
      expect(refreshes).toBe(1);
      const sent = new Set(http.requests.map((request) => request.authorization));
      expect(sent).toEqual(new Set(["Bearer fresh-1"]));
      const stored = Object.values(JSON.parse(await readFile(join(h.home, ".credentials.json"), "utf8")));
      expect(stored).toEqual([
        expect.objectContaining({
          access_token: "fresh-1",
          refresh_token: "refresh-2",
          expires_at: expect.any(Number),
        }),
      ]);
    } finally {
      await http.close();
      await new Promise<void>((resolve) => issuer.close(() => resolve()));
    }
  }, 120_000);
});
