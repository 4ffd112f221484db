/**
 * `npm run bench -- network-proxy`: the managed network proxy's cost on loopback. The target
 * (a node HTTP server) and the proxy each run in their own process; this process is the client.
 * - small GETs, sequential: direct vs through the proxy, client keep-alive and a new connection
 *   per request (as a curl loop makes), p50/p99 per request;
 * - CONNECT tunnels, sequential: open, one GET inside, close; vs a direct connection doing the same;
 * - a large body (plain HTTP and through a tunnel): MB/s direct vs proxied, and the proxy's peak RSS;
 * - opening and closing routes (unix and tcp), in this process.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { readFile } from "node:fs/promises";
import { Agent, type RequestOptions, request } from "node:http";
import { connect, type Socket } from "node:net";
import { startNetworkProxy } from "../src/network-proxy/index.js";
import { benchRuns, median, writeResults } from "./support/bench.js";

const SMALL = benchRuns(2000);
const TUNNELS = Math.max(100, Math.round(SMALL / 4));
const BIG_BYTES = Number(process.env.BENCH_BIG_MB ?? 256) * 1024 * 1024;
const ROUTES = 200;

const TARGET_SCRIPT = `
const http = require("node:http");
const chunk = Buffer.alloc(256 * 1024, 97);
const server = http.createServer((req, res) => {
  const big = /^\\/big\\?bytes=(\\d+)/.exec(req.url);
  if (!big) return res.end("ok\\n");
  const total = Number(big[1]);
  res.writeHead(200, { "content-length": total });
  let sent = 0;
  const pump = () => {
    while (sent < total) {
      const piece = chunk.subarray(0, Math.min(chunk.length, total - sent));
      sent += piece.length;
      if (!res.write(piece)) return void res.once("drain", pump);
    }
    res.end();
  };
  pump();
});
server.keepAliveTimeout = 60000;
server.listen(0, "127.0.0.1", () => process.stdout.write(JSON.stringify({ port: server.address().port }) + "\\n"));
`;

/** Spawns a child and reads its first stdout line as JSON. */
async function spawnReady<T>(argv: string[]): Promise<{ child: ChildProcess; ready: T }> {
  const child = spawn(process.execPath, argv, { stdio: ["ignore", "pipe", "inherit"] });
  const [line] = (await once(child.stdout?.setEncoding("utf8") ?? child, "data")) as [string];
  return { child, ready: JSON.parse(line) as T };
}

/** One GET read to the end; resolves its duration in ms. */
function get(options: RequestOptions): Promise<{ ms: number; bytes: number }> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = request(options, (res) => {
      let bytes = 0;
      res.on("data", (chunk: Buffer) => {
        bytes += chunk.length;
      });
      res.on("end", () =>
        res.statusCode === 200
          ? resolve({ ms: performance.now() - started, bytes })
          : reject(new Error(`status ${res.statusCode}`)),
      );
    });
    req.on("error", reject);
    req.end();
  });
}

/** A raw GET on an open socket (direct or a tunnel), read until the server closes. */
async function rawGet(socket: Socket, host: string, path: string): Promise<number> {
  let bytes = 0;
  socket.on("data", (chunk: Buffer) => {
    bytes += chunk.length;
  });
  socket.write(`GET ${path} HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`);
  await once(socket, "close");
  return bytes;
}

/** A CONNECT tunnel through the proxy to `host:port`, established. */
async function tunnel(proxyPort: number, host: string, port: number): Promise<Socket> {
  const socket = connect(proxyPort, "127.0.0.1");
  await once(socket, "connect");
  socket.write(`CONNECT ${host}:${port} HTTP/1.1\r\nHost: ${host}:${port}\r\n\r\n`);
  const [chunk] = (await once(socket, "data")) as [Buffer];
  if (!chunk.toString().startsWith("HTTP/1.1 200")) throw new Error(`CONNECT refused: ${chunk}`);
  return socket;
}

async function direct(port: number): Promise<Socket> {
  const socket = connect(port, "127.0.0.1");
  await once(socket, "connect");
  return socket;
}

function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;
}

async function timed(count: number, once_: () => Promise<unknown>): Promise<number[]> {
  for (let i = 0; i < Math.min(50, count); i++) await once_();
  const times: number[] = [];
  for (let i = 0; i < count; i++) {
    const started = performance.now();
    await once_();
    times.push(performance.now() - started);
  }
  return times;
}

async function currentRssMb(pid: number | undefined): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, "utf8").catch(() => "");
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
}

async function peakRssMb(pid: number | undefined): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, "utf8").catch(() => "");
  return Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
}

async function main(): Promise<void> {
  const target = await spawnReady<{ port: number }>(["-e", TARGET_SCRIPT]);
  const proxy = await spawnReady<{ httpPort: number; socksPort: number }>([
    "scripts/run-ts.mjs",
    "bench/support/network-proxy-child.ts",
  ]);
  try {
    const port = target.ready.port;
    const proxyPort = proxy.ready.httpPort;
    const host = `t.bench.test:${port}`;
    const keepAlive = new Agent({ keepAlive: true, maxSockets: 1 });
    const viaProxy = (path: string, agent: Agent | false) => ({
      host: "127.0.0.1",
      port: proxyPort,
      path: `http://${host}${path}`,
      headers: { host },
      agent,
    });
    const straight = (path: string, agent: Agent | false) => ({
      host: "127.0.0.1",
      port,
      path,
      headers: { host },
      agent,
    });

    const rows: { name: string; direct: number[]; proxied: number[] }[] = [];
    rows.push({
      name: "GET, keep-alive",
      direct: await timed(SMALL, () => get(straight("/", keepAlive))),
      proxied: await timed(SMALL, () => get(viaProxy("/", keepAlive))),
    });
    rows.push({
      name: "GET, new connection",
      direct: await timed(SMALL, () => get(straight("/", false))),
      proxied: await timed(SMALL, () => get(viaProxy("/", false))),
    });
    rows.push({
      name: "CONNECT + GET + close",
      direct: await timed(TUNNELS, async () => rawGet(await direct(port), host, "/")),
      proxied: await timed(TUNNELS, async () =>
        rawGet(await tunnel(proxyPort, "t.bench.test", port), host, "/"),
      ),
    });

    const throughput = async (fetchOnce: () => Promise<number>) => {
      const rates: number[] = [];
      for (let i = 0; i < 3; i++) {
        const started = performance.now();
        const bytes = await fetchOnce();
        if (bytes < BIG_BYTES) throw new Error(`short body: ${bytes}`);
        rates.push(BIG_BYTES / 1024 / 1024 / ((performance.now() - started) / 1000));
      }
      return median(rates);
    };
    const bigPath = `/big?bytes=${BIG_BYTES}`;
    const rssBeforeBigMb = await currentRssMb(proxy.child.pid);
    const big = {
      direct: await throughput(async () => (await get(straight(bigPath, false))).bytes),
      proxied: await throughput(async () => (await get(viaProxy(bigPath, false))).bytes),
      tunnelled: await throughput(async () =>
        rawGet(await tunnel(proxyPort, "t.bench.test", port), host, bigPath),
      ),
    };
    const proxyPeakRssMb = await peakRssMb(proxy.child.pid);
    keepAlive.destroy();

    const inProcess = await startNetworkProxy({ resolveHost: async () => ["127.0.0.1"] });
    const routeCost = async (listen: "unix" | "tcp") =>
      timed(ROUTES, async () => {
        const route = await inProcess.openRoute(
          { mode: "full", domains: [], allowLocalBinding: false, unixSockets: [] },
          { listen },
        );
        await route.close();
      });
    const routes = { unix: await routeCost("unix"), tcp: await routeCost("tcp") };
    await inProcess.close();

    const f = (n: number) => n.toFixed(3);
    console.log(`sequential requests (${SMALL} small GETs, ${TUNNELS} tunnels), ms per request:`);
    console.log("  case                     direct p50   proxied p50   added p50   proxied p99");
    for (const row of rows) {
      const d = percentile(row.direct, 50);
      const p = percentile(row.proxied, 50);
      console.log(
        `  ${row.name.padEnd(24)} ${f(d).padStart(10)}   ${f(p).padStart(11)}   ${f(p - d).padStart(9)}   ${f(percentile(row.proxied, 99)).padStart(11)}`,
      );
    }
    console.log(`${BIG_BYTES / 1024 / 1024} MB body, MB/s (median of 3):`);
    console.log(
      `  direct ${big.direct.toFixed(0)}   plain HTTP via proxy ${big.proxied.toFixed(0)}   CONNECT tunnel ${big.tunnelled.toFixed(0)}   (proxy RSS ${rssBeforeBigMb.toFixed(0)} MB before, peak ${proxyPeakRssMb.toFixed(0)} MB)`,
    );
    console.log(
      `open + close a route (${ROUTES} each), ms: unix p50 ${f(percentile(routes.unix, 50))} p99 ${f(percentile(routes.unix, 99))}; tcp p50 ${f(percentile(routes.tcp, 50))} p99 ${f(percentile(routes.tcp, 99))}`,
    );
    await writeResults("network-proxy", {
      requests: rows.map((row) => ({
        name: row.name,
        directP50Ms: percentile(row.direct, 50),
        proxiedP50Ms: percentile(row.proxied, 50),
        proxiedP99Ms: percentile(row.proxied, 99),
      })),
      bigBodyMBps: big,
      proxyRssBeforeBigMb: rssBeforeBigMb,
      proxyPeakRssMb,
      routeOpenCloseMs: {
        unixP50: percentile(routes.unix, 50),
        unixP99: percentile(routes.unix, 99),
        tcpP50: percentile(routes.tcp, 50),
        tcpP99: percentile(routes.tcp, 99),
      },
    });
  } finally {
    for (const child of [proxy.child, target.child]) {
      const exited = once(child, "exit");
      child.kill("SIGTERM");
      await exited;
    }
  }
}

await main();
