/**
 * What a refused request looks like: the `x-proxy-error` header and 403 bodies Codex's proxy
 * sends (header values, JSON fields and messages as the reference records them; except that a
 * local-address block says `blocked-by-policy`, where Codex wrongly says `blocked-by-allowlist`),
 * and the one line the model and the client read about it.
 */
import type { BlockReason, ProxyBlock } from "./types.js";

/** The `x-proxy-error` header value of each reason. */
export const PROXY_ERROR_HEADER: Record<BlockReason, string> = {
  not_allowed: "blocked-by-allowlist",
  denied: "blocked-by-denylist",
  not_allowed_local: "blocked-by-policy",
  method_not_allowed: "blocked-by-method-policy",
  mitm_required: "blocked-by-mitm-required",
};

/** The short message of a 403 body. */
const BODY_MESSAGE: Record<BlockReason, string> = {
  not_allowed: "Domain not in allowlist.",
  denied: "Domain denied by the sandbox policy.",
  not_allowed_local: "Sandbox policy blocks local/private network addresses.",
  method_not_allowed: "Method not allowed in limited mode.",
  mitm_required: "Limited mode cannot inspect tunnelled traffic; only plain HTTP GET, HEAD and OPTIONS.",
};

/** Which part of the policy refused: the mode's guard, or the domain and address rules. */
function sourceOf(reason: BlockReason): "mode_guard" | "baseline_policy" {
  return reason === "method_not_allowed" || reason === "mitm_required" ? "mode_guard" : "baseline_policy";
}

/** The one-line JSON body of a plain-HTTP 403. */
export function blockJsonBody(block: ProxyBlock): string {
  return JSON.stringify({
    status: "blocked",
    host: block.host,
    reason: block.reason,
    decision: "deny",
    source: sourceOf(block.reason),
    protocol: block.protocol,
    port: block.port,
    message: BODY_MESSAGE[block.reason],
  });
}

/** The text body of a CONNECT 403. */
export function blockTextBody(block: ProxyBlock): string {
  return BODY_MESSAGE[block.reason];
}

/** What limited mode cannot look into, by how it arrived. */
const UNINSPECTABLE: Record<ProxyBlock["protocol"], string> = {
  http: "a protocol upgrade (WebSocket)",
  https: "HTTPS (CONNECT)",
  socks5Tcp: "a SOCKS5 connection",
  socks5Udp: "SOCKS5 UDP",
};

/** The sentence the model and the client read about a block: which host, and why. */
export function describeBlock(block: ProxyBlock): string {
  const head = `Network access to ${JSON.stringify(block.host)} was blocked`;
  switch (block.reason) {
    case "not_allowed":
      return `${head}: domain is not on the allowlist for the current sandbox mode.`;
    case "denied":
      return `${head}: domain is on the deny list of the sandbox's network policy.`;
    case "not_allowed_local":
      return `${head}: it resolves to a local or private address and allow_local_binding is off.`;
    case "method_not_allowed":
      return `${head}: method ${block.method ?? "(unknown)"} is not allowed in limited mode (only GET, HEAD and OPTIONS).`;
    case "mitm_required":
      return `${head}: ${UNINSPECTABLE[block.protocol]} cannot be inspected in limited mode, which allows only plain HTTP GET, HEAD and OPTIONS.`;
  }
}
