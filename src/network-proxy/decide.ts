/**
 * The decision for one request, in Codex's order: the limited-mode guard, then the deny list
 * (deny wins), then the allowlist (no allow entry: everything is blocked), then the local guard
 * on the resolved addresses. The addresses returned are the ones checked: the listener connects
 * to them, never looking the name up again (no rebinding window between check and connect).
 */
import { isIP } from "node:net";
import { isLocalAddress } from "./addresses.js";
import { compileDomainRules, type DomainMatcher } from "./patterns.js";
import type { ProxyBlock, ProxyProtocol, ProxyRules, ResolveHost } from "./types.js";

/** A request as the listener parsed it; `host` already normalised. */
export interface ProxyRequest {
  host: string;
  port: number;
  protocol: ProxyProtocol;
  method?: string | undefined;
  /** A plain-HTTP request asking to switch protocols (WebSocket): a tunnel once answered. */
  upgrade?: boolean | undefined;
}

export type Decision =
  | { kind: "connect"; addresses: string[] }
  | { kind: "block"; block: ProxyBlock }
  | { kind: "unresolvable"; message: string };

/** Methods limited mode lets through (no request bodies that change anything). */
const LIMITED_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/** Loopback names Codex reaches when an allow entry names them exactly, whatever the guard. */
const LOOPBACK_LITERALS = new Set(["localhost", "127.0.0.1", "::1"]);

/** One route's rules, compiled once, deciding each of its requests. */
export class RoutePolicy {
  private readonly domains: DomainMatcher;

  constructor(
    private readonly rules: ProxyRules,
    private readonly resolveHost: ResolveHost,
    /** Decides allowlist misses (an approval question); absent: every miss is blocked. */
    private readonly allowMiss?: (block: ProxyBlock) => Promise<boolean>,
  ) {
    this.domains = compileDomainRules(rules.domains);
  }

  async decide(request: ProxyRequest): Promise<Decision> {
    const refused = this.checkName(request);
    if (refused && !(refused.reason === "not_allowed" && (await this.missAllowed(refused))))
      return { kind: "block", block: refused };
    let addresses: string[];
    try {
      addresses = isIP(request.host) ? [request.host] : await this.resolveHost(request.host);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      return {
        kind: "unresolvable",
        message: `could not resolve ${request.host}${code ? ` (${code})` : ""}`,
      };
    }
    if (addresses.length === 0) return { kind: "unresolvable", message: `could not resolve ${request.host}` };
    if (!this.rules.allowLocalBinding && !this.loopbackLiteralAllowed(request.host)) {
      if (addresses.some(isLocalAddress))
        return { kind: "block", block: blockOf(request, "not_allowed_local") };
    }
    return { kind: "connect", addresses };
  }

  /** The checks that need no name resolution; undefined when they pass. */
  checkName(request: ProxyRequest): ProxyBlock | undefined {
    if (this.rules.mode === "limited") {
      if (request.protocol !== "http" || request.upgrade) return blockOf(request, "mitm_required");
      if (!LIMITED_METHODS.has(request.method ?? "")) return blockOf(request, "method_not_allowed");
    }
    if (this.domains.denies(request.host)) return blockOf(request, "denied");
    if (!this.domains.allows(request.host)) return blockOf(request, "not_allowed");
    return undefined;
  }

  private async missAllowed(block: ProxyBlock): Promise<boolean> {
    if (!this.allowMiss) return false;
    return this.allowMiss({ ...block }).catch(() => false);
  }

  private loopbackLiteralAllowed(host: string): boolean {
    return LOOPBACK_LITERALS.has(host) && this.domains.allowsExactly(host);
  }
}

function blockOf(request: ProxyRequest, reason: ProxyBlock["reason"]): ProxyBlock {
  const block: ProxyBlock = { host: request.host, port: request.port, protocol: request.protocol, reason };
  if (request.method !== undefined) block.method = request.method;
  return block;
}
