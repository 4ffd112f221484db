/**
 * Routes and the proxy as resources: unix-socket routes in a 0700 directory (node and curl as
 * clients), closing a route frees its listeners and live tunnels, closing the proxy removes its
 * directory, garbage and a throwing onBlock never take a listener down, and the shared proxy of
 * a separate process (names from $TSCODEX_PROXY_HOSTS_FILE, stale directories swept, its own
 * removed at exit).
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { once } from "node:events";
import { existsSync, mkdirSync, statSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { request } from "node:http";
import { connect, Socket } from "node:net";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type NetworkProxy, startNetworkProxy } from "../../src/network-proxy/index.js";
import { defaultResolveHost, HOSTS_FILE_ENV, parseHostsFile } from "../../src/network-proxy/resolve.js";
import { SocketSet } from "../../src/network-proxy/tunnel.js";
import { type TempDir, tmpdir } from "../support/tmpdir.js";
import { allow, curl, resolveFromTable, rules, startEcho, startTarget, type Target } from "./support.js";

let target: Target;
let echo: Awaited<ReturnType<typeof startEcho>>;
let proxy: NetworkProxy | undefined;
let temp: TempDir | undefined;

beforeAll(async () => {
  target = await startTarget();
  echo = await startEcho();
});
afterAll(async () => {
  await target.close();
  await echo.close();
});
afterEach(async () => {
  await proxy?.close();
  proxy = undefined;
  await temp?.cleanup();
  temp = undefined;
});

async function start(): Promise<NetworkProxy> {
  proxy = await startNetworkProxy({ resolveHost: resolveFromTable });
  return proxy;
}

/** GET `url` through the HTTP proxy on a unix socket (curl cannot proxy over one). */
function getViaUnixProxy(socketPath: string, url: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ socketPath, path: url, headers: { host: new URL(url).host } }, (res) => {
      let body = "";
      res.setEncoding("utf8").on("data", (chunk: string) => {
        body += chunk;
      });
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on("error", reject);
    req.end();
  });
}

/** A CONNECT tunnel to the echo server, established (the 200 read). */
async function openTunnel(socket: Socket): Promise<void> {
  await once(socket, "connect");
  socket.write(`CONNECT allowed.bar.test:${echo.port} HTTP/1.1\r\n\r\n`);
  const [chunk] = (await once(socket, "data")) as [Buffer];
  expect(chunk.toString()).toBe("HTTP/1.1 200 Connection established\r\n\r\n");
}

/** Everything `socket` receives until it closes. */
async function drain(socket: Socket): Promise<string> {
  let text = "";
  socket.on("data", (chunk: Buffer) => {
    text += chunk.toString("latin1");
  });
  await once(socket, "close");
  return text;
}

describe("unix-socket routes", () => {
  it("listen in the proxy's 0700 directory and serve HTTP, CONNECT and SOCKS5", async () => {
    const p = await start();
    const route = await p.openRoute(rules({ domains: allow("allowed.bar.test") }));
    expect(route.listen).toBe("unix");
    expect(statSync(p.dir).mode & 0o777).toBe(0o700);
    expect(route.http.socketPath.startsWith(`${p.dir}/`)).toBe(true);
    expect(route.socks.socketPath.startsWith(`${p.dir}/`)).toBe(true);

    const plain = await getViaUnixProxy(route.http.socketPath, `http://allowed.bar.test:${target.port}/unix`);
    expect(plain.status).toBe(200);
    expect(plain.body).toContain("target saw GET /unix");
    const refused = await getViaUnixProxy(route.http.socketPath, `http://other.bar.test:${target.port}/`);
    expect(refused.status).toBe(403);

    const tunnel = connect(route.http.socketPath);
    await openTunnel(tunnel);
    tunnel.write("hello");
    const [echoed] = (await once(tunnel, "data")) as [Buffer];
    expect(echoed.toString()).toBe("hello");
    tunnel.destroy();

    const socks = await curl([
      "-x",
      `socks5h://localhost${route.socks.socketPath}`,
      `http://allowed.bar.test:${target.port}/s`,
    ]);
    expect(socks.stdout).toContain("target saw GET /s");
  });
});

describe("tunnels", () => {
  it("pass an end both ways, and close when the upstream side goes", async () => {
    const p = await start();
    const route = await p.openRoute(rules({ domains: allow("allowed.bar.test") }), { listen: "tcp" });
    const polite = connect({ port: route.http.port, host: "127.0.0.1", allowHalfOpen: true });
    await openTunnel(polite);
    const upstream = [...echo.connections].at(-1);
    const upstreamClosed = once(upstream ?? polite, "close");
    polite.end("bye");
    // The echo server answers our FIN with its own once it has echoed everything.
    expect(await drain(polite)).toBe("bye");
    await upstreamClosed;

    const abrupt = connect(route.http.port, "127.0.0.1");
    await openTunnel(abrupt);
    const closed = once(abrupt, "close");
    for (const socket of echo.connections) socket.destroy();
    await closed;
  });
});

describe("closing", () => {
  it("a route stops its listeners and destroys its live tunnels; other routes go on", async () => {
    const p = await start();
    const tcp = await p.openRoute(rules({ domains: allow("allowed.bar.test") }), { listen: "tcp" });
    const unix = await p.openRoute(rules({ domains: allow("allowed.bar.test") }));
    const other = await p.openRoute(rules({ domains: allow("allowed.bar.test") }), { listen: "tcp" });
    const tunnel = connect(tcp.http.port, "127.0.0.1");
    await openTunnel(tunnel);
    const closed = once(tunnel, "close");

    await tcp.close();
    await unix.close();
    await closed;
    const refused = connect(tcp.http.port, "127.0.0.1");
    const [error] = (await once(refused, "error")) as [NodeJS.ErrnoException];
    expect(error.code).toBe("ECONNREFUSED");
    expect(existsSync(unix.http.socketPath)).toBe(false);
    expect(existsSync(unix.socks.socketPath)).toBe(false);
    await tcp.close();

    const still = await curl([
      "-x",
      `http://127.0.0.1:${other.http.port}`,
      `http://allowed.bar.test:${target.port}/`,
    ]);
    expect(still.stdout).toContain("target saw GET /");
  });

  it("the proxy closes every route and removes its directory", async () => {
    const p = await start();
    const route = await p.openRoute(rules({ domains: allow("allowed.bar.test") }), { listen: "tcp" });
    await p.openRoute(rules({ domains: allow("allowed.bar.test") }));
    const tunnel = connect(route.socks.port, "127.0.0.1");
    await once(tunnel, "connect");
    const closed = once(tunnel, "close");
    await p.close();
    await closed;
    expect(existsSync(p.dir)).toBe(false);
    await expect(p.openRoute(rules())).rejects.toThrow(/closed/);
  });
});

describe("robustness", () => {
  it("tracks a kept-alive upstream socket once, however many requests it carries", () => {
    const sockets = new SocketSet();
    const socket = new Socket();
    for (let i = 0; i < 20; i++) sockets.add(socket);
    expect(sockets.size).toBe(1);
    expect(socket.listenerCount("close")).toBe(1);
    sockets.destroyAll();
    expect(socket.destroyed).toBe(true);
  });

  it("answers garbage with 400 and closes, survives SOCKS garbage and a throwing onBlock", async () => {
    const p = await start();
    let calls = 0;
    const route = await p.openRoute(rules({ domains: allow("allowed.bar.test") }), {
      listen: "tcp",
      onBlock: () => {
        calls++;
        throw new Error("owner bug");
      },
    });
    const garbage = connect(route.http.port, "127.0.0.1");
    await once(garbage, "connect");
    garbage.write(Buffer.from("\x00\xff\x13 not http at all\r\n\r\n", "latin1"));
    expect(await drain(garbage)).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);

    const badConnect = connect(route.http.port, "127.0.0.1");
    await once(badConnect, "connect");
    badConnect.write("CONNECT nonsense HTTP/1.1\r\n\r\n");
    expect(await drain(badConnect)).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);

    for (const bytes of [
      [4, 1, 0],
      [5, 1, 0, 5, 1, 0, 9, 1, 2],
      [5, 200],
    ]) {
      const socks = connect(route.socks.port, "127.0.0.1");
      await once(socks, "connect");
      socks.end(Buffer.from(bytes));
      await drain(socks);
    }

    const originForm = await curl(["-i", `http://127.0.0.1:${route.http.port}/`]);
    expect(originForm.stdout).toMatch(/^HTTP\/1\.1 400 /);

    const blocked = await curl([
      "-i",
      "-x",
      `http://127.0.0.1:${route.http.port}`,
      `http://other.bar.test:${target.port}/`,
    ]);
    expect(blocked.stdout).toMatch(/^HTTP\/1\.1 403 /);
    expect(calls).toBe(1);
    const allowed = await curl([
      "-x",
      `http://127.0.0.1:${route.http.port}`,
      `http://allowed.bar.test:${target.port}/ok`,
    ]);
    expect(allowed.stdout).toContain("target saw GET /ok");
    const socksAllowed = await curl([
      "-x",
      `socks5h://127.0.0.1:${route.socks.port}`,
      `http://allowed.bar.test:${target.port}/ok`,
    ]);
    expect(socksAllowed.stdout).toContain("target saw GET /ok");
  });
});

describe("default resolver", () => {
  it("reads names from $TSCODEX_PROXY_HOSTS_FILE first, again after the file changes", async () => {
    temp = await tmpdir("tscodex-proxy-hosts-");
    const file = join(temp.path, "hosts");
    await writeFile(
      file,
      "# test names\n127.0.0.1 allowed.bar.test Other.Bar.Test.\n10.0.0.7 private.bar.test # comment\n",
    );
    const previous = process.env[HOSTS_FILE_ENV];
    process.env[HOSTS_FILE_ENV] = file;
    try {
      expect(await defaultResolveHost("allowed.bar.test")).toEqual(["127.0.0.1"]);
      expect(await defaultResolveHost("other.bar.test")).toEqual(["127.0.0.1"]);
      expect(await defaultResolveHost("private.bar.test")).toEqual(["10.0.0.7"]);
      await writeFile(file, "127.0.0.2 allowed.bar.test\n::1 allowed.bar.test\n");
      expect(await defaultResolveHost("allowed.bar.test")).toEqual(["127.0.0.2", "::1"]);
    } finally {
      if (previous === undefined) delete process.env[HOSTS_FILE_ENV];
      else process.env[HOSTS_FILE_ENV] = previous;
    }
  });

  it("parses hosts lines, skipping comments and lines without an address", () => {
    expect([...parseHostsFile("nonsense line\n  # x\n192.0.2.1\ta b\n")]).toEqual([
      ["a", ["192.0.2.1"]],
      ["b", ["192.0.2.1"]],
    ]);
  });
});

describe("sharedNetworkProxy in its own process", () => {
  let child: ChildProcess | undefined;
  afterEach(() => {
    child?.kill("SIGKILL");
    child = undefined;
  });

  it("is one per process, resolves with the hosts file, sweeps dead pids' dirs and removes its own at exit", async () => {
    temp = await tmpdir("tscodex-proxy-shared-");
    const hosts = join(temp.path, "hosts");
    await writeFile(hosts, "127.0.0.1 allowed.bar.test\n");
    const deadPid = spawnSync("true").pid;
    const stale = join(temp.path, `tscodex-proxy-${deadPid}-old`);
    const live = join(temp.path, `tscodex-proxy-${process.pid}-live`);
    mkdirSync(join(stale, "sub"), { recursive: true });
    mkdirSync(live);

    child = spawn(process.execPath, ["scripts/run-ts.mjs", "test/network-proxy/shared-proxy-child.ts"], {
      env: { PATH: process.env.PATH ?? "", TMPDIR: temp.path, [HOSTS_FILE_ENV]: hosts },
      stdio: ["pipe", "pipe", "inherit"],
    });
    const exited = once(child, "exit");
    const [line] = (await once(child.stdout?.setEncoding("utf8") ?? child, "data")) as [string];
    const started = JSON.parse(line) as { dir: string; same: boolean; httpPort: number };
    expect(started.same).toBe(true);
    expect(started.dir.startsWith(join(temp.path, `tscodex-proxy-${child.pid}-`))).toBe(true);
    expect(existsSync(started.dir)).toBe(true);
    expect(existsSync(stale)).toBe(false);
    expect(existsSync(live)).toBe(true);

    const reached = await curl([
      "-x",
      `http://127.0.0.1:${started.httpPort}`,
      `http://allowed.bar.test:${target.port}/hosts`,
    ]);
    expect(reached.stdout).toContain("target saw GET /hosts");

    child.stdin?.end();
    const [code] = (await exited) as [number | null];
    expect(code).toBe(0);
    expect(existsSync(started.dir)).toBe(false);
  });
});
