/**
 * MCP OAuth refresh under contention, through the real CLI (issue 37, cause 10).
 *
 * Refresh: four Streamable HTTP MCP servers that accept only bearer tokens their authorization
 * server issued, whose token endpoint rotates refresh tokens and refuses a spent one. With all
 * four access tokens expired, two `tscodex exec` runs call a tool of each server at the same
 * time: every server's stored refresh token must end up the newest one issued, no spent refresh
 * token may ever reach the token endpoint, and a later run (tokens expired again) still works
 * without a new login. (`.credentials.json` was rewritten from stale copies: a spent token was
 * stored and the server needed a new login.)
 */

import { randomBytes } from "node:crypto";
import { readFile, stat, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { ResponseItem } from "../../src/protocol/items.js";
import { useExecHarness } from "../support/exec-harness.js";
import { functionCall, message, turn } from "../support/fake-model-server.js";
import { startHttpFixture } from "../support/mcp-fixture-server.js";

const h = useExecHarness({ config: false });
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  closers.push(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/**
 * An authorization server whose refresh tokens rotate: `rt-NAME-N` buys `at-NAME-(N+1)` and
 * `rt-NAME-(N+1)` once; presenting it again is recorded in `spentPresented` and refused.
 */
interface RotatingIssuer {
  url: string;
  /** The newest refresh token of each server. */
  newest: Map<string, string>;
  /** Access tokens issued and not yet superseded, by server. */
  valid: Map<string, Set<string>>;
  spentPresented: string[];
  refreshes: number;
}

async function startRotatingIssuer(names: string[]): Promise<RotatingIssuer> {
  const issuer: RotatingIssuer = {
    url: "",
    newest: new Map(names.map((name) => [name, `rt-${name}-1`])),
    valid: new Map(names.map((name) => [name, new Set<string>()])),
    spentPresented: [],
    refreshes: 0,
  };
  const server = createServer((req, res) => {
    if (req.url === "/.well-known/oauth-authorization-server") {
      res.writeHead(200, { "content-type": "application/json" }).end(
        JSON.stringify({
          issuer: issuer.url,
          authorization_endpoint: `${issuer.url}/authorize`,
          token_endpoint: `${issuer.url}/token`,
          response_types_supported: ["code"],
        }),
      );
      return;
    }
    if (req.url !== "/token" || req.method !== "POST") {
      res.writeHead(404).end();
      return;
    }
    let body = "";
    req.on("data", (chunk: Buffer) => {
      body += chunk.toString();
    });
    req.on("end", () => {
      const presented = new URLSearchParams(body).get("refresh_token") ?? "";
      const match = /^rt-(\w+)-(\d+)$/.exec(presented);
      const name = match?.[1] ?? "";
      if (!match || issuer.newest.get(name) !== presented) {
        if (match) issuer.spentPresented.push(presented);
        res.writeHead(400, { "content-type": "application/json" }).end('{"error":"invalid_grant"}');
        return;
      }
      issuer.refreshes += 1;
      const next = Number(match[2]) + 1;
      issuer.newest.set(name, `rt-${name}-${next}`);
      issuer.valid.set(name, new Set([`at-${name}-${next}`]));
      res.writeHead(200, { "content-type": "application/json" }).end(
        JSON.stringify({
          access_token: `at-${name}-${next}`,
          token_type: "bearer",
          expires_in: 3600,
          refresh_token: `rt-${name}-${next}`,
        }),
      );
    });
  });
  issuer.url = await listen(server);
  return issuer;
}

/** The fixture MCP server over Streamable HTTP, answering 401 to any token `accepts` refuses. */
async function protectedFixture(accepts: (authorization: string | undefined) => boolean): Promise<string> {
  const fixture = await startHttpFixture({ accepts });
  closers.push(() => fixture.close());
  return fixture.url;
}

const NAMES = ["s1", "s2", "s3", "s4"];

/** Model turns for one run: call `echo` on all four servers, then finish once the outputs came back. */
const callAllFour = (request: { input: ResponseItem[] }) =>
  request.input.some((item) => item.type === "function_call_output")
    ? turn(message("done"))
    : turn(
        ...NAMES.map((name) =>
          functionCall(
            `mcp__${name}__echo`,
            { text: name },
            `call_${name}_${randomBytes(4).toString("hex")}`,
          ),
        ),
      );

/** Every tool output the runs sent back, sorted. */
function toolOutputs(): string[] {
  return h.server.requests
    .flatMap((request) => request.input)
    .flatMap((item) => (item.type === "function_call_output" ? [String(item.output)] : []))
    .sort();
}

const echoed = (name: string) => JSON.stringify([{ text: `echo: ${name}`, type: "text" }]);

describe("MCP OAuth refresh: four servers, two processes", () => {
  it("keeps every server's newest refresh token; never presents a spent one; the next run needs no login", async () => {
    const issuer = await startRotatingIssuer(NAMES);
    const urls = new Map<string, string>();
    for (const name of NAMES) {
      urls.set(
        name,
        await protectedFixture((authorization) => {
          const token = authorization?.replace(/^Bearer /, "") ?? "";
          return issuer.valid.get(name)?.has(token) ?? false;
        }),
      );
    }
    await h.writeConfig({
      extra: NAMES.map((name) => `[mcp_servers.${name}]\nurl = "${urls.get(name)}"\n`).join("\n"),
    });
    const { credentialsKey } = await import("../../src/mcp/oauth/credentials.js");
    const path = join(h.home, ".credentials.json");
    // Logged in to all four; every access token has expired (written as a login would).
    const expireAll = async () => {
      const entries = NAMES.map((name) => [
        credentialsKey(name, urls.get(name) ?? ""),
        {
          server_name: name,
          server_url: urls.get(name),
          issuer: issuer.url,
          client_id: `client-${name}`,
          access_token: `expired-${name}`,
          expires_at: Date.now() - 1000,
          refresh_token: issuer.newest.get(name),
          scopes: [],
        },
      ]);
      await writeFile(path, JSON.stringify(Object.fromEntries(entries)), { mode: 0o600 });
    };
    await expireAll();

    h.server.enqueue(callAllFour, callAllFour, callAllFour, callAllFour);
    const runs = await Promise.all([h.exec(["a"]), h.exec(["b"])]);
    for (const run of runs) expect(run.code, run.stderr).toBe(0);
    for (const run of runs) expect(run.stderr).not.toContain("requires a login");
    expect(toolOutputs()).toEqual(NAMES.flatMap((name) => [echoed(name), echoed(name)]).sort());
    expect(issuer.spentPresented).toEqual([]);
    // One refresh per server: the second process used what the first stored.
    expect(issuer.refreshes).toBe(NAMES.length);

    const stored = JSON.parse(await readFile(path, "utf8")) as Record<string, Record<string, unknown>>;
    for (const name of NAMES) {
      expect(stored[credentialsKey(name, urls.get(name) ?? "")]).toMatchObject({
        refresh_token: issuer.newest.get(name),
        access_token: `at-${name}-2`,
      });
    }
    expect((await stat(path)).mode & 0o777).toBe(0o600);

    // A later run with every access token expired again: the stored refresh tokens still work.
    const before = h.server.requests.length;
    const storedRaw = await readFile(path, "utf8");
    const expired = JSON.parse(storedRaw) as Record<string, Record<string, unknown>>;
    for (const entry of Object.values(expired)) entry.expires_at = Date.now() - 1000;
    await writeFile(path, JSON.stringify(expired), { mode: 0o600 });
    h.server.enqueue(callAllFour, callAllFour);
    const later = await h.exec(["c"]);
    expect(later.code, later.stderr).toBe(0);
    expect(later.stderr).not.toContain("requires a login");
    const laterOutputs = h.server.requests
      .slice(before)
      .flatMap((request) => request.input)
      .flatMap((item) => (item.type === "function_call_output" ? [String(item.output)] : []))
      .sort();
    expect(laterOutputs).toEqual(NAMES.map(echoed).sort());
    expect(issuer.spentPresented).toEqual([]);
    for (const run of [...runs, later]) {
      for (const name of NAMES) expect(run.stderr + run.stdout).not.toContain(`at-${name}-`);
    }
  }, 180_000);
});
