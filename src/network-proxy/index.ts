/**
 * The managed network proxy: one per process (sharedNetworkProxy), with one route per
 * sandboxed command. A route is an HTTP proxy (CONNECT for HTTPS) and a SOCKS5 listener
 * applying one set of rules (a proxied NetworkPolicy), reporting its blocks to that command's
 * owner.
 *
 * Responsibilities / flow:
 * - openRoute: two listeners on unix sockets in the proxy's 0700 directory (what the sandbox's
 *   network namespace is bridged to) or on 127.0.0.1 ephemeral ports;
 * - each request: parse (http-proxy.ts, socks5.ts) → decide (decide.ts: mode guard, deny,
 *   allow, resolve once, local guard) → 403 / SOCKS reply 2 with onBlock, or connect to the
 *   checked address and stream;
 * - close: a route's listeners and live connections; the proxy's routes and directory.
 * The child's environment (environment.ts) and the block sentence (blocked.ts) are for callers.
 */
import { once } from "node:events";
import { unlink } from "node:fs/promises";
import { Agent, type Server } from "node:http";
import type { AddressInfo, Server as NetServer } from "node:net";
import { join } from "node:path";
import { RoutePolicy } from "./decide.js";
import { createHttpProxyServer } from "./http-proxy.js";
import { createProxyDir, removeProxyDirSync, sweepStaleProxyDirs } from "./proxy-dir.js";
import { defaultResolveHost } from "./resolve.js";
import type { RouteContext } from "./route-context.js";
import { createSocksServer } from "./socks5.js";
import { SocketSet } from "./tunnel.js";
import type { ProxyBlock, ProxyRules, ResolveHost } from "./types.js";

export { describeBlock, PROXY_ERROR_HEADER } from "./blocked.js";
export { PROXY_ENVIRONMENT_NAMES, proxyEnvironment, stripProxyEnvironment } from "./environment.js";
export { HOSTS_FILE_ENV } from "./resolve.js";
export type { BlockReason, ProxyBlock, ProxyProtocol, ProxyRules, ResolveHost } from "./types.js";

export interface NetworkProxyOptions {
  /** Name → addresses; replaces the default ($TSCODEX_PROXY_HOSTS_FILE, then dns.lookup). */
  resolveHost?: ResolveHost;
}

export interface OpenRouteOptions {
  /** Called once per refused request; exceptions it throws are swallowed. */
  onBlock?: (block: ProxyBlock) => void;
  /**
   * Asked about a host no allow entry matches (never a denied, local or method block): true lets
   * this request through (an approval for the turn or session). Its rejection counts as false.
   */
  allowMiss?: (block: ProxyBlock) => Promise<boolean>;
  /** `unix` (default): sockets in the proxy's directory; `tcp`: 127.0.0.1 ephemeral ports. */
  listen?: "unix" | "tcp";
}

interface RouteHandleBase {
  /** Stops both listeners and destroys the route's live connections. Idempotent. */
  close(): Promise<void>;
}

/** A route on unix sockets: what a sandbox bridges into the command's network namespace. */
export interface UnixProxyRoute extends RouteHandleBase {
  listen: "unix";
  http: { socketPath: string };
  socks: { socketPath: string };
}

/** A route on 127.0.0.1 ports: for a command that shares the host's network (and tests). */
export interface TcpProxyRoute extends RouteHandleBase {
  listen: "tcp";
  http: { port: number };
  socks: { port: number };
}

export type ProxyRouteHandle = UnixProxyRoute | TcpProxyRoute;

export interface NetworkProxy {
  /** This proxy's private directory (0700), holding the unix sockets of its routes. */
  readonly dir: string;
  openRoute(rules: ProxyRules, options: OpenRouteOptions & { listen: "tcp" }): Promise<TcpProxyRoute>;
  openRoute(rules: ProxyRules, options?: OpenRouteOptions & { listen?: "unix" }): Promise<UnixProxyRoute>;
  openRoute(rules: ProxyRules, options?: OpenRouteOptions): Promise<ProxyRouteHandle>;
  /** Closes every route and connection and removes the directory. Idempotent. */
  close(): Promise<void>;
}

/** Starts a proxy (no listeners until a route opens). */
export async function startNetworkProxy(options: NetworkProxyOptions = {}): Promise<NetworkProxy> {
  return new ManagedProxy(await createProxyDir(), options.resolveHost ?? defaultResolveHost);
}

let shared: Promise<NetworkProxy> | undefined;

/**
 * The process's proxy, started on first use (sweeping directories of dead processes first),
 * its directory removed when the process exits.
 */
export function sharedNetworkProxy(): Promise<NetworkProxy> {
  shared ??= (async () => {
    await sweepStaleProxyDirs();
    const proxy = await startNetworkProxy();
    process.once("exit", () => removeProxyDirSync(proxy.dir));
    return proxy;
  })();
  return shared;
}

class ManagedProxy implements NetworkProxy {
  private readonly routes = new Set<ProxyRouteHandle>();
  private nextRoute = 0;
  private closed = false;

  constructor(
    readonly dir: string,
    private readonly resolveHost: ResolveHost,
  ) {}

  openRoute(rules: ProxyRules, options: OpenRouteOptions & { listen: "tcp" }): Promise<TcpProxyRoute>;
  openRoute(rules: ProxyRules, options?: OpenRouteOptions & { listen?: "unix" }): Promise<UnixProxyRoute>;
  openRoute(rules: ProxyRules, options?: OpenRouteOptions): Promise<ProxyRouteHandle>;
  async openRoute(rules: ProxyRules, options: OpenRouteOptions = {}): Promise<ProxyRouteHandle> {
    if (this.closed) throw new Error("the network proxy is closed");
    const onBlock = options.onBlock;
    const sockets = new SocketSet();
    const agent = new Agent({ keepAlive: true, maxFreeSockets: 16 });
    const context: RouteContext = {
      policy: new RoutePolicy(rules, this.resolveHost, options.allowMiss),
      sockets,
      agent,
      reportBlock: (block) => {
        try {
          onBlock?.({ ...block });
        } catch {
          // The owner's bug must not take the listener down.
        }
      },
    };
    const httpServer = createHttpProxyServer(context);
    const socksServer = createSocksServer(context);
    const id = this.nextRoute++;
    const unix = (options.listen ?? "unix") === "unix";
    const paths = unix
      ? [join(this.dir, `route-${id}-http.sock`), join(this.dir, `route-${id}-socks.sock`)]
      : [];
    let closing: Promise<void> | undefined;
    const close = (): Promise<void> => {
      closing ??= (async () => {
        this.routes.delete(handle);
        const stopped = [closeServer(httpServer), closeServer(socksServer)];
        sockets.destroyAll();
        agent.destroy();
        await Promise.all(stopped);
        await Promise.all(paths.map((path) => unlink(path).catch(() => undefined)));
      })();
      return closing;
    };
    let handle: ProxyRouteHandle;
    try {
      if (unix) {
        await Promise.all([listen(httpServer, paths[0] ?? ""), listen(socksServer, paths[1] ?? "")]);
        handle = {
          listen: "unix",
          http: { socketPath: paths[0] ?? "" },
          socks: { socketPath: paths[1] ?? "" },
          close,
        };
      } else {
        const [httpPort, socksPort] = await Promise.all([listen(httpServer), listen(socksServer)]);
        handle = { listen: "tcp", http: { port: httpPort }, socks: { port: socksPort }, close };
      }
    } catch (error) {
      httpServer.close();
      socksServer.close();
      throw error;
    }
    this.routes.add(handle);
    return handle;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.all([...this.routes].map((route) => route.close()));
    removeProxyDirSync(this.dir);
  }
}

/** Listens on a unix socket path, or on 127.0.0.1:0; resolves the port (0 for a path). */
async function listen(server: Server | NetServer, path?: string): Promise<number> {
  if (path) server.listen(path);
  else server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const address = server.address();
  return typeof address === "object" && address ? (address as AddressInfo).port : 0;
}

function closeServer(server: Server | NetServer): Promise<void> {
  return new Promise((resolve) => server.close(() => resolve()));
}
