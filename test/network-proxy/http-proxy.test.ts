/**
 * The HTTP proxy over real sockets, curl as the client: allowed hosts reached (plain and through
 * CONNECT), blocks answered 403 with Codex's header and body and reported once, pattern
 * semantics, the local guard, limited mode, 502 when the upstream is down, keep-alive, and
 * large bodies streamed.
 */
import { once } from "node:events";
import { connect, createServer, type Socket } from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  allow,
  curl,
  deny,
  type ProxyFixture,
  proxyWith,
  rules,
  startEcho,
  startTarget,
  type Target,
} from "./support.js";

let target: Target;
let echo: Awaited<ReturnType<typeof startEcho>>;
let fixture: ProxyFixture | undefined;

beforeAll(async () => {
  target = await startTarget();
  echo = await startEcho();
});
afterAll(async () => {
  await target.close();
  await echo.close();
});
afterEach(async () => {
  await fixture?.proxy.close();
  fixture = undefined;
});

async function open(routeRules: Parameters<typeof proxyWith>[0]): Promise<ProxyFixture> {
  fixture = await proxyWith(routeRules);
  return fixture;
}

/** `curl -i` through the HTTP proxy: status, lower-cased headers and body. */
async function viaProxy(f: ProxyFixture, url: string, extra: string[] = []) {
  const result = await curl(["-i", "-x", f.httpProxyUrl, ...extra, url]);
  const [head = "", ...rest] = result.stdout.split("\r\n\r\n");
  const [statusLine = "", ...headerLines] = head.split("\r\n");
  const headers = Object.fromEntries(
    headerLines.map((line) => [
      line.slice(0, line.indexOf(":")).toLowerCase(),
      line.slice(line.indexOf(":") + 1).trim(),
    ]),
  );
  return { ...result, status: Number(statusLine.split(" ")[1]), headers, body: rest.join("\r\n\r\n") };
}

const url = (host: string, path = "/") => `http://${host}:${target.port}${path}`;

describe("HTTP proxy", () => {
  it("forwards an allowed request without the proxy's own headers", async () => {
    const f = await open(rules({ domains: allow("allowed.bar.test") }));
    const result = await viaProxy(f, url("allowed.bar.test", "/hello?x=1"), [
      "-H",
      "Proxy-Authorization: Basic eA==",
    ]);
    expect(result.status).toBe(200);
    expect(result.body).toContain(`target saw GET /hello host=allowed.bar.test:${target.port}`);
    expect(result.body).not.toMatch(/proxy-/i);
    expect(target.seen).toContain(`GET allowed.bar.test:${target.port} /hello?x=1`);
    expect(f.blocks).toEqual([]);
  });

  it("sends the request target's Host upstream, whatever Host the client wrote", async () => {
    const f = await open(rules({ domains: allow("allowed.bar.test") }));
    const result = await viaProxy(f, url("allowed.bar.test", "/fronted"), ["-H", "Host: other.bar.test"]);
    expect(result.status).toBe(200);
    expect(target.seen).toContain(`GET allowed.bar.test:${target.port} /fronted`);
  });

  it("answers a host off the allowlist with 403, x-proxy-error and Codex's JSON, and reports it once", async () => {
    const f = await open(rules({ domains: allow("allowed.bar.test") }));
    const before = target.seen.length;
    const result = await viaProxy(f, url("other.bar.test", "/secret"));
    expect(result.stdout.startsWith("HTTP/1.1 403 Forbidden\r\n")).toBe(true);
    expect(result.headers["content-type"]).toBe("application/json");
    expect(result.headers["x-proxy-error"]).toBe("blocked-by-allowlist");
    expect(Number(result.headers["content-length"])).toBe(Buffer.byteLength(result.body));
    expect(JSON.parse(result.body)).toEqual({
      status: "blocked",
      host: "other.bar.test",
      reason: "not_allowed",
      decision: "deny",
      source: "baseline_policy",
      protocol: "http",
      port: target.port,
      message: "Domain not in allowlist.",
    });
    expect(f.blocks).toEqual([
      { host: "other.bar.test", port: target.port, protocol: "http", reason: "not_allowed", method: "GET" },
    ]);
    expect(target.seen.length).toBe(before);
  });

  it("lets a deny entry beat a `*.` allow", async () => {
    const f = await open(rules({ domains: [...allow("*.bar.test"), ...deny("bad.bar.test")] }));
    const denied = await viaProxy(f, url("bad.bar.test"));
    expect(denied.status).toBe(403);
    expect(denied.headers["x-proxy-error"]).toBe("blocked-by-denylist");
    expect(JSON.parse(denied.body)).toMatchObject({
      reason: "denied",
      message: "Domain denied by the sandbox policy.",
    });
    expect((await viaProxy(f, url("allowed.bar.test"))).status).toBe(200);
    expect(f.blocks.map((block) => block.reason)).toEqual(["denied"]);
  });

  it("blocks every host when there is no allow entry", async () => {
    const f = await open(rules({ domains: deny("bad.bar.test") }));
    for (const host of ["allowed.bar.test", "localhost", "127.0.0.1"]) {
      const result = await viaProxy(f, url(host));
      expect(result.status).toBe(403);
      expect(result.headers["x-proxy-error"]).toBe("blocked-by-allowlist");
    }
  });

  it.each([
    ["*.bar.test", ["allowed.bar.test", "a.b.bar.test"], ["bar.test", "xbar.test"]],
    ["**.bar.test", ["bar.test", "a.b.bar.test"], ["xbar.test"]],
    ["*", ["bar.test", "xbar.test", "a.b.bar.test"], []],
  ])("pattern %s reaches %j and blocks %j", async (pattern, reached, blocked) => {
    const f = await open(rules({ domains: allow(pattern) }));
    for (const host of reached) expect((await viaProxy(f, url(host))).status, host).toBe(200);
    for (const host of blocked) expect((await viaProxy(f, url(host))).status, host).toBe(403);
  });

  it("blocks names that resolve to local addresses unless local binding is allowed", async () => {
    const guarded = await open(rules({ domains: allow("*.bar.test"), allowLocalBinding: false }));
    for (const host of ["allowed.bar.test", "private.bar.test"]) {
      const result = await viaProxy(guarded, url(host));
      expect(result.status).toBe(403);
      expect(result.headers["x-proxy-error"]).toBe("blocked-by-policy");
      expect(JSON.parse(result.body)).toMatchObject({
        reason: "not_allowed_local",
        message: "Sandbox policy blocks local/private network addresses.",
      });
    }
    expect(guarded.blocks.map((block) => block.reason)).toEqual(["not_allowed_local", "not_allowed_local"]);
    await guarded.proxy.close();
    const open_ = await open(rules({ domains: allow("*.bar.test"), allowLocalBinding: true }));
    expect((await viaProxy(open_, url("allowed.bar.test"))).status).toBe(200);
  });

  it("reaches localhost and 127.0.0.1 allowlisted by name with the guard on, but not through `*`", async () => {
    const f = await open(rules({ domains: allow("localhost", "127.0.0.1"), allowLocalBinding: false }));
    expect((await viaProxy(f, url("localhost"))).status).toBe(200);
    expect((await viaProxy(f, url("127.0.0.1"))).status).toBe(200);
    await f.proxy.close();
    const wildcard = await open(rules({ domains: allow("*"), allowLocalBinding: false }));
    expect((await viaProxy(wildcard, url("localhost"))).headers["x-proxy-error"]).toBe("blocked-by-policy");
  });

  it("tunnels CONNECT: curl through it, and raw bytes to an echo server", async () => {
    const f = await open(rules({ domains: allow("allowed.bar.test") }));
    const tunnelled = await curl(["-p", "-x", f.httpProxyUrl, url("allowed.bar.test", "/tunnel")]);
    expect(tunnelled.code).toBe(0);
    expect(tunnelled.stdout).toContain("target saw GET /tunnel");

    const socket = connect(f.route.http.port, "127.0.0.1");
    await once(socket, "connect");
    socket.write(
      `CONNECT allowed.bar.test:${echo.port} HTTP/1.1\r\nHost: allowed.bar.test:${echo.port}\r\n\r\n`,
    );
    expect(await readUntil(socket, "\r\n\r\n")).toBe("HTTP/1.1 200 Connection established\r\n\r\n");
    socket.write("ping through the tunnel");
    expect(await readUntil(socket, "tunnel")).toBe("ping through the tunnel");
    socket.destroy();
  });

  it("passes an upgrade (WebSocket over plain HTTP) to an allowed host, and refuses one elsewhere", async () => {
    const f = await open(rules({ domains: allow("allowed.bar.test") }));
    const upgrade = (host: string) =>
      `GET http://${host}:${target.port}/ws HTTP/1.1\r\nHost: ${host}:${target.port}\r\n` +
      "Connection: Upgrade\r\nUpgrade: echo\r\nProxy-Authorization: Basic eA==\r\n\r\n";
    const socket = connect(f.route.http.port, "127.0.0.1");
    await once(socket, "connect");
    socket.write(upgrade("allowed.bar.test"));
    expect(await readUntil(socket, "\r\n\r\n")).toMatch(/^HTTP\/1\.1 101 /);
    socket.write("over the upgrade");
    expect(await readUntil(socket, "upgrade")).toBe("over the upgrade");
    socket.destroy();
    expect(target.seen).toContain(`UPGRADE allowed.bar.test:${target.port} /ws`);

    const refused = connect(f.route.http.port, "127.0.0.1");
    await once(refused, "connect");
    refused.write(upgrade("other.bar.test"));
    const answer = await readUntil(refused, "}");
    expect(answer).toMatch(/^HTTP\/1\.1 403 Forbidden\r\n/);
    expect(answer).toContain("x-proxy-error: blocked-by-allowlist\r\n");
    refused.destroy();
    expect(f.blocks).toEqual([
      { host: "other.bar.test", port: target.port, protocol: "http", reason: "not_allowed", method: "GET" },
    ]);
  });

  it("refuses a CONNECT off the allowlist with a text 403", async () => {
    const f = await open(rules({ domains: allow("allowed.bar.test") }));
    const result = await curl(["-p", "-i", "-x", f.httpProxyUrl, url("other.bar.test")]);
    expect(result.code).toBe(56);
    expect(result.stdout).toContain("HTTP/1.1 403 Forbidden\r\n");
    expect(result.stdout).toContain("content-type: text/plain\r\n");
    expect(result.stdout).toContain("x-proxy-error: blocked-by-allowlist\r\n");
    expect(result.stdout).toContain("content-length: 24\r\n");
    expect(f.blocks).toEqual([
      { host: "other.bar.test", port: target.port, protocol: "https", reason: "not_allowed" },
    ]);
  });

  it("in limited mode allows GET, HEAD and OPTIONS, and refuses POST, CONNECT and SOCKS5", async () => {
    const f = await open(rules({ mode: "limited", domains: allow("allowed.bar.test") }));
    expect((await viaProxy(f, url("allowed.bar.test"))).status).toBe(200);
    expect((await viaProxy(f, url("allowed.bar.test"), ["-I"])).status).toBe(200);
    expect((await viaProxy(f, url("allowed.bar.test"), ["-X", "OPTIONS"])).status).toBe(200);

    const post = await viaProxy(f, url("allowed.bar.test", "/post"), ["-d", "payload"]);
    expect(post.status).toBe(403);
    expect(post.headers["x-proxy-error"]).toBe("blocked-by-method-policy");
    expect(JSON.parse(post.body)).toMatchObject({ reason: "method_not_allowed", source: "mode_guard" });

    const tunnel = await curl(["-p", "-i", "-x", f.httpProxyUrl, url("allowed.bar.test")]);
    expect(tunnel.code).toBe(56);
    expect(tunnel.stdout).toContain("x-proxy-error: blocked-by-mitm-required\r\n");

    const socks = await curl(["-x", f.socksUrl, url("allowed.bar.test")]);
    expect(socks.code).toBe(97);

    expect(f.blocks).toEqual([
      {
        host: "allowed.bar.test",
        port: target.port,
        protocol: "http",
        reason: "method_not_allowed",
        method: "POST",
      },
      { host: "allowed.bar.test", port: target.port, protocol: "https", reason: "mitm_required" },
      { host: "allowed.bar.test", port: target.port, protocol: "socks5Tcp", reason: "mitm_required" },
    ]);
    expect(target.seen.some((line) => line.startsWith("POST"))).toBe(false);
  });

  it("answers 502 when the upstream refuses, and for names that do not resolve", async () => {
    const f = await open(rules({ domains: allow("*") }));
    const closedPort = await unusedPort();
    const refused = await viaProxy(f, `http://allowed.bar.test:${closedPort}/`);
    expect(refused.status).toBe(502);
    expect(refused.body).toContain(`could not reach allowed.bar.test:${closedPort}`);
    const unknown = await viaProxy(f, url("nosuch.bar.test"));
    expect(unknown.status).toBe(502);
    expect(unknown.body).toContain("could not resolve nosuch.bar.test");
    expect(f.blocks).toEqual([]);
  });

  it("keeps the client connection alive across requests, blocked ones included", async () => {
    const f = await open(rules({ domains: allow("allowed.bar.test") }));
    const result = await curl([
      "-v",
      "-x",
      f.httpProxyUrl,
      url("allowed.bar.test", "/one"),
      url("other.bar.test", "/two"),
      url("allowed.bar.test", "/three"),
    ]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("target saw GET /one");
    expect(result.stdout).toContain('"reason":"not_allowed"');
    expect(result.stdout).toContain("target saw GET /three");
    expect(result.stderr.match(/Re-using existing connection/g)?.length).toBe(2);
  });

  it("streams a large body through and forwards request bodies", async () => {
    const f = await open(rules({ domains: allow("allowed.bar.test") }));
    const bytes = 32 * 1024 * 1024;
    const big = await curl([
      "-x",
      f.httpProxyUrl,
      "-o",
      "/dev/null",
      "-w",
      "%{size_download}",
      url("allowed.bar.test", `/big?bytes=${bytes}`),
    ]);
    expect(big.stdout).toBe(String(bytes));
    const post = await curl([
      "-x",
      f.httpProxyUrl,
      "--data-binary",
      "a body",
      url("allowed.bar.test", "/post"),
    ]);
    expect(post.stdout).toContain("target saw POST /post");
    expect(post.stdout).toContain("body=a body");
  });
});

/** Reads from `socket` until the text received contains `marker`. */
function readUntil(socket: Socket, marker: string): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = "";
    const onData = (chunk: Buffer) => {
      text += chunk.toString("latin1");
      if (!text.includes(marker)) return;
      socket.off("data", onData);
      resolve(text);
    };
    socket.on("data", onData);
    socket.once("close", () =>
      reject(new Error(`closed before ${JSON.stringify(marker)}; got ${JSON.stringify(text)}`)),
    );
  });
}

/** A loopback port nothing listens on (bound, then released). */
async function unusedPort(): Promise<number> {
  const server = createServer();
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  await new Promise((resolve) => server.close(resolve));
  return port;
}
