/**
 * Proxy-only network (SandboxPolicy.proxyRoutes), on both backends with the real helper and
 * bwrap: inside the sandbox 127.0.0.1:3128 leads to a unix-socket HTTP server on the host (the
 * stand-in for the managed proxy) and nothing else leads anywhere: direct TCP to a host
 * listener on 127.0.0.1 (bash /dev/tcp, node net.connect, curl --noproxy) fails and the listener
 * sees no connection, a UDP datagram never arrives, /proc/net/dev lists only lo. Many parallel
 * connections, a large upload with a half-close, a read-only policy and a profile that denies
 * the sockets' directory (without `/`) work through the route; no bridge process is left once
 * the command ends.
 */
import { spawn } from "node:child_process";
import { createSocket, type Socket as UdpSocket } from "node:dgram";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { createServer as createHttpServer, type Server as HttpServer } from "node:http";
import { connect, createServer, type Server, type Socket } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCommand } from "../../src/exec/spawn.js";
import { prepareSandboxedCommand, type SandboxPolicy } from "../../src/policy/sandbox/index.js";
import type { ResolvedFsRule } from "../../src/policy/sandbox/types.js";
import { renderCaptured } from "../../src/tools/truncate.js";
import { findNativeHelper } from "../../src/util/native-helper.js";
import { sandboxBackends } from "../support/sandbox-probe.js";
import { missing, noProgram } from "../support/skips.js";

const backends = await sandboxBackends();
const HTTP_PORT = 3128;
const ECHO_PORT = 8081;
const NODE = process.execPath;

let base: string;
let ws: string;
let proxySocket: string;
let echoSocket: string;
let proxy: HttpServer;
let echo: Server;
/** A host TCP listener on 127.0.0.1 and a UDP socket the sandbox must not reach. */
let tcp: Server;
let udp: UdpSocket;
let tcpPort = 0;
let udpPort = 0;
const tcpSeen: string[] = [];
const udpSeen: string[] = [];

beforeAll(async () => {
  const parent = existsSync("/var/tmp") ? "/var/tmp" : process.cwd();
  base = await mkdtemp(join(parent, ".tscodex-test-route-"));
  ws = join(base, "ws");
  await mkdir(ws);
  await mkdir(join(base, "sockets"));
  proxySocket = join(base, "sockets", "proxy.sock");
  echoSocket = join(base, "sockets", "echo.sock");
  proxy = createHttpServer((request, response) => {
    if (request.url === "/big") return response.end("x".repeat(1_000_000));
    response.end("hello via proxy\n");
  });
  await new Promise<void>((resolve) => proxy.listen(proxySocket, resolve));
  // Answers once the client half-closes: how many bytes came, so a lost EOF hangs the client.
  echo = createServer({ allowHalfOpen: true }, (socket: Socket) => {
    let length = 0;
    socket.on("data", (chunk: Buffer) => {
      length += chunk.length;
    });
    socket.on("end", () => socket.end(`got ${length}\n`));
  });
  await new Promise<void>((resolve) => echo.listen(echoSocket, resolve));
  tcp = createServer((socket) => {
    socket.on("error", () => {});
    socket.once("data", (data) => tcpSeen.push(data.toString()));
    socket.end();
  });
  await new Promise<void>((resolve) => tcp.listen(0, "127.0.0.1", resolve));
  tcpPort = (tcp.address() as { port: number }).port;
  udp = createSocket("udp4");
  udp.on("message", (message) => udpSeen.push(message.toString()));
  await new Promise<void>((resolve) => udp.bind(0, "127.0.0.1", resolve));
  udpPort = udp.address().port;
});

afterAll(async () => {
  await Promise.all([
    new Promise((resolve) => proxy.close(resolve)),
    new Promise((resolve) => echo.close(resolve)),
    new Promise((resolve) => tcp.close(resolve)),
    new Promise((resolve) => udp.close(() => resolve(undefined))),
  ]);
  await rm(base, { recursive: true, force: true });
});

function policy(mode: SandboxPolicy["mode"] = "workspace-write"): SandboxPolicy {
  return {
    mode,
    writableRoots: [ws],
    networkAccess: true, // routes win: still no direct network
    proxyRoutes: [
      { port: HTTP_PORT, socketPath: proxySocket },
      { port: ECHO_PORT, socketPath: echoSocket },
    ],
  };
}

const env = () => ({ PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: ws, LANG: "C.UTF-8" });

async function sandboxed(backend: "bwrap" | "landlock", script: string, mode?: SandboxPolicy["mode"]) {
  const prepared = await prepareSandboxedCommand(["bash", "-c", script], ws, policy(mode), { backend });
  const result = await runCommand({ argv: prepared.argv, cwd: ws, env: env(), timeoutMs: 60_000 });
  return { exitCode: result.exitCode, output: renderCaptured(result.aggregated) };
}

/** Resolves once the host listener got `marker` from the host itself: anything sent earlier arrived. */
async function tcpMarker(marker: string): Promise<void> {
  const socket = connect(tcpPort, "127.0.0.1");
  socket.on("error", () => {});
  socket.end(marker);
  await until(() => tcpSeen.includes(marker));
}

async function udpMarker(marker: string): Promise<void> {
  const sender = createSocket("udp4");
  await new Promise((resolve) => sender.send(marker, udpPort, "127.0.0.1", resolve));
  sender.close();
  await until(() => udpSeen.includes(marker));
}

/** Polls a condition an event will make true (the test's timeout bounds it). */
async function until(done: () => boolean): Promise<void> {
  while (!done()) await new Promise((resolve) => setTimeout(resolve, 5));
}

/** Live bridge processes of this test file (the bridge names itself; its argv names our socket). */
function bridges(): number[] {
  return readdirSync("/proc")
    .filter((entry) => /^\d+$/.test(entry))
    .filter((pid) => {
      try {
        const comm = readFileSync(`/proc/${pid}/comm`, "utf8").trim();
        return (
          comm === "tscodex-bridge" && readFileSync(`/proc/${pid}/cmdline`, "utf8").includes(proxySocket)
        );
      } catch {
        return false;
      }
    })
    .map(Number);
}

describe.each(backends)("proxy routes under $name", ({ name, status }) => {
  const noNetNamespace = name === "landlock" && status.available && !status.netNamespace;
  if (noNetNamespace)
    console.warn("skipped the landlock proxy-route checks: the helper cannot make a network namespace");
  // Every check's command runs curl (and one python3).
  const skip =
    missing(status, `the proxy-route checks under ${name}`) ||
    noNetNamespace ||
    noProgram("curl", "the proxy-route checks") ||
    noProgram("python3", "the proxy-route checks");

  it.skipIf(skip)("reaches the route and nothing else: no direct TCP, no UDP, only lo", async () => {
    const script = [
      `curl -s http://127.0.0.1:${HTTP_PORT}/`,
      `(echo direct > /dev/tcp/127.0.0.1/${tcpPort}) 2>/dev/null && echo BASH-OPEN || echo BASH-FAIL`,
      `${NODE} -e "require('net').connect(${tcpPort}, '127.0.0.1').on('connect', () => console.log('NODE-OPEN')).on('error', (e) => console.log('NODE-FAIL', e.code))"`,
      `curl -s -m 5 --noproxy '*' http://127.0.0.1:${tcpPort}/ && echo CURL-OPEN || echo CURL-FAIL`,
      `python3 -c "import socket; socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b'udp-direct', ('127.0.0.1', ${udpPort}))" && echo UDP-SENT || echo UDP-FAIL`,
      "tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d ' ' | sed 's/^/IF=/'",
    ].join("\n");
    const { exitCode, output } = await sandboxed(name, script);
    expect(output).toContain("hello via proxy");
    expect(output).toContain("BASH-FAIL");
    expect(output).toContain("NODE-FAIL ECONNREFUSED");
    expect(output).toContain("CURL-FAIL");
    expect(output.match(/^IF=.*$/gm)).toEqual(["IF=lo"]);
    expect(exitCode).toBe(0);
    // Whatever the sandbox sent would be queued before the host's own marker.
    await tcpMarker(`marker-${name}`);
    await udpMarker(`marker-${name}`);
    expect(tcpSeen.filter((data) => !data.startsWith("marker"))).toEqual([]);
    expect(udpSeen.filter((data) => !data.startsWith("marker"))).toEqual([]);
  });

  it.skipIf(skip)("carries many parallel connections, large bodies and half-closes", async () => {
    const script = [
      `for i in $(seq 40); do curl -s http://127.0.0.1:${HTTP_PORT}/ & done | grep -c 'hello via proxy'`,
      "wait",
      `curl -s http://127.0.0.1:${HTTP_PORT}/big | wc -c`,
      `python3 -c "
import socket
s = socket.create_connection(('127.0.0.1', ${ECHO_PORT}))
s.sendall(b'a' * 300000)
s.shutdown(socket.SHUT_WR)
data = b''
while True:
    chunk = s.recv(65536)
    if not chunk: break
    data += chunk
print(data.decode().strip())"`,
    ].join("\n");
    const { exitCode, output } = await sandboxed(name, script);
    expect(output.split("\n").map((line) => line.trim())).toEqual(
      expect.arrayContaining(["40", "1000000", "got 300000"]),
    );
    expect(exitCode).toBe(0);
  });

  it.skipIf(skip)("a read-only policy still reaches the route (and writes nothing)", async () => {
    const script = `curl -s http://127.0.0.1:${HTTP_PORT}/; touch made 2>/dev/null && echo WROTE || echo NO-WRITE`;
    const { output } = await sandboxed(name, script, "read-only");
    expect(output).toContain("hello via proxy");
    expect(output).toContain("NO-WRITE");
    expect(existsSync(join(ws, "made"))).toBe(false);
  });

  it.skipIf(skip)(
    "reaches the route under a profile without `/` whose rules deny the socket's directory",
    async () => {
      const fsRules: ResolvedFsRule[] = [
        ...["/usr", "/bin", "/lib", "/lib64"].map((path) => ({ path, access: "read" as const })),
        { path: join(base, "sockets"), access: "deny" },
        { path: ws, access: "write" },
      ];
      const prepared = await prepareSandboxedCommand(
        ["bash", "-c", `curl -s http://127.0.0.1:${HTTP_PORT}/; ls ${base}/sockets || echo SOCKETS-DENIED`],
        ws,
        { ...policy("read-only"), fsRules },
        { backend: name },
      );
      const result = await runCommand({ argv: prepared.argv, cwd: ws, env: env(), timeoutMs: 60_000 });
      const output = renderCaptured(result.aggregated);
      expect(output).toContain("hello via proxy");
      expect(output).toContain("SOCKETS-DENIED");
      expect(output).not.toContain("proxy.sock");
    },
  );

  it.skipIf(skip)("leaves no bridge process once the command ends", async () => {
    const prepared = await prepareSandboxedCommand(
      ["bash", "-c", `curl -s http://127.0.0.1:${HTTP_PORT}/; read line`],
      ws,
      policy(),
      { backend: name },
    );
    const [file, ...args] = prepared.argv;
    const child = spawn(file ?? "", args, { cwd: ws, env: env(), stdio: ["pipe", "pipe", "inherit"] });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => {
      output += chunk.toString();
    });
    const exited = new Promise((resolve) => child.on("exit", resolve));
    await until(() => output.includes("hello via proxy"));
    expect(bridges().length).toBe(1);
    child.stdin.end("\n");
    expect(await exited).toBe(0);
    expect(bridges()).toEqual([]);
  });
});

describe("the helper's own checks", () => {
  it("refuses routes in seccomp-only mode when started on the host's network (not bwrap's namespace)", async () => {
    const helper = await findNativeHelper();
    if (!helper)
      return console.warn("skipped the helper's route check: the helper is not built (npm run build)");
    const interfaces = readFileSync("/proc/net/dev", "utf8").split("\n").slice(2).filter(Boolean);
    if (interfaces.length < 2) return console.warn("skipped the helper's route check: this host has only lo");
    const result = await runCommand({
      argv: [helper, "--seccomp-only", "--proxy-route", `${HTTP_PORT}=${proxySocket}`, "--", "true"],
      cwd: ws,
      env: env(),
      timeoutMs: 10_000,
    });
    // The host has more than lo: the helper must not bridge on the host's network.
    expect(result.exitCode).toBe(125);
    expect(renderCaptured(result.aggregated)).toContain("proxy routes need a network namespace with only lo");
  });
});
