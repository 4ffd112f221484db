/**
 * The network proxy tests' world: a loopback HTTP target and a raw TCP echo server, host names
 * of our own (a resolver table, never /etc/hosts or the internet), curl as the client, and a
 * proxy per test with its routes.
 */
import { execFile } from "node:child_process";
import { once } from "node:events";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createServer as createNetServer, type Server as NetServer } from "node:net";
import {
  type NetworkProxy,
  type ProxyBlock,
  type ProxyRules,
  startNetworkProxy,
  type TcpProxyRoute,
} from "../../src/network-proxy/index.js";
import { requireProgram } from "../support/skips.js";

/** Names the tests use; every one resolves to loopback unless a test says otherwise. */
export const HOSTS: Record<string, string[]> = {
  "allowed.bar.test": ["127.0.0.1"],
  "other.bar.test": ["127.0.0.1"],
  "bad.bar.test": ["127.0.0.1"],
  "a.b.bar.test": ["127.0.0.1"],
  "bar.test": ["127.0.0.1"],
  "xbar.test": ["127.0.0.1"],
  "private.bar.test": ["10.1.2.3"],
  "mixed.bar.test": ["192.0.2.10", "192.168.1.1"],
  // TEST-NET-1: not local, and nothing answers there (the guard passes, the connect fails).
  "public.bar.test": ["192.0.2.10"],
  localhost: ["127.0.0.1"],
};

export const resolveFromTable = async (host: string): Promise<string[]> => {
  const found = HOSTS[host];
  if (!found) throw Object.assign(new Error(`no such host ${host}`), { code: "ENOTFOUND" });
  return found;
};

export function rules(overrides: Partial<ProxyRules> = {}): ProxyRules {
  return { mode: "full", domains: [], allowLocalBinding: true, unixSockets: [], ...overrides };
}

export function allow(...patterns: string[]): ProxyRules["domains"] {
  return patterns.map((pattern) => ({ pattern, action: "allow" as const }));
}

export function deny(...patterns: string[]): ProxyRules["domains"] {
  return patterns.map((pattern) => ({ pattern, action: "deny" as const }));
}

/** A target that answers `target saw METHOD PATH host=HOST body=BODY`, and /big?bytes=N. */
export interface Target {
  port: number;
  /** Requests it received, as "METHOD host path". */
  seen: string[];
  close(): Promise<void>;
}

export async function startTarget(): Promise<Target> {
  const seen: string[] = [];
  const server: Server = createServer((req, res) => {
    seen.push(`${req.method} ${req.headers.host} ${req.url}`);
    const url = new URL(req.url ?? "/", "http://x");
    if (url.pathname === "/big") {
      const total = Number(url.searchParams.get("bytes") ?? 0);
      res.writeHead(200, { "content-type": "application/octet-stream", "content-length": total });
      const chunk = Buffer.alloc(64 * 1024, 97);
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
      return;
    }
    let body = "";
    req.setEncoding("utf8").on("data", (chunk: string) => {
      body += chunk;
    });
    req.on("end", () => {
      const headers = JSON.stringify(req.headers);
      res.end(
        `target saw ${req.method} ${url.pathname} host=${req.headers.host} body=${body} headers=${headers}\n`,
      );
    });
  });
  // An upgrade (as WebSocket does): 101, then it echoes raw bytes.
  server.on("upgrade", (req, socket) => {
    seen.push(`UPGRADE ${req.headers.host} ${req.url}`);
    socket.on("error", () => socket.destroy());
    socket.write("HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: echo\r\n\r\n");
    socket.pipe(socket);
  });
  server.keepAliveTimeout = 1000;
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  return {
    port: (server.address() as AddressInfo).port,
    seen,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/** A raw TCP echo server (the other end of a tunnel). */
export interface Echo {
  port: number;
  /** Its open connections (so a test sees them close). */
  connections: Set<import("node:net").Socket>;
  close(): Promise<void>;
}

export async function startEcho(): Promise<Echo> {
  const sockets = new Set<import("node:net").Socket>();
  const server: NetServer = createNetServer((socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => socket.destroy());
    socket.pipe(socket);
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  return {
    port: (server.address() as AddressInfo).port,
    connections: sockets,
    close: () => {
      for (const socket of sockets) socket.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

export interface CurlResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** curl with `args` (-s added, never the user's .curlrc or proxy environment). */
export function curl(args: string[]): Promise<CurlResult> {
  requireProgram("curl");
  return new Promise((resolve) => {
    execFile(
      "curl",
      ["-q", "-s", "-S", "--max-time", "10", ...args],
      { env: { PATH: process.env.PATH ?? "" } },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === "number" ? error.code : -1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

/** A proxy with the test resolver, a route on TCP ports and the blocks it reported. */
export interface ProxyFixture {
  proxy: NetworkProxy;
  route: TcpProxyRoute;
  blocks: ProxyBlock[];
  httpProxyUrl: string;
  socksUrl: string;
}

export async function proxyWith(routeRules: ProxyRules): Promise<ProxyFixture> {
  const proxy = await startNetworkProxy({ resolveHost: resolveFromTable });
  const blocks: ProxyBlock[] = [];
  const route = await proxy.openRoute(routeRules, { listen: "tcp", onBlock: (block) => blocks.push(block) });
  return {
    proxy,
    route,
    blocks,
    httpProxyUrl: `http://127.0.0.1:${route.http.port}`,
    socksUrl: `socks5h://127.0.0.1:${route.socks.port}`,
  };
}
