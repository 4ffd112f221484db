/** The proxy's contract types, shared by its listeners and its API. */
import type { NetworkPolicy } from "../protocol/permissions.js";

/** The rules one route applies: a proxied network policy without its tag. */
export type ProxyRules = Omit<Extract<NetworkPolicy, { kind: "proxied" }>, "kind">;

/** How a request reached the proxy: plain HTTP, CONNECT (HTTPS), SOCKS5 TCP or UDP. */
export type ProxyProtocol = "http" | "https" | "socks5Tcp" | "socks5Udp";

/**
 * Why a request was refused: not on the allowlist; on the deny list; the name resolves to a
 * local or private address and `allowLocalBinding` is off; a method limited mode refuses; a
 * connection limited mode cannot inspect (CONNECT, SOCKS5: we do not intercept TLS).
 */
export type BlockReason =
  | "not_allowed"
  | "denied"
  | "not_allowed_local"
  | "method_not_allowed"
  | "mitm_required";

/** One refused request, as the route's `onBlock` receives it. */
export interface ProxyBlock {
  /** The host as the client named it, normalised (lowercase, no brackets or trailing dot). */
  host: string;
  port: number;
  protocol: ProxyProtocol;
  reason: BlockReason;
  /** The HTTP method, for plain-HTTP requests. */
  method?: string;
}

/** Names to addresses (all of them: the local guard checks every one). */
export type ResolveHost = (host: string) => Promise<string[]>;
