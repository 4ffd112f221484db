/**
 * Domain patterns of a proxied network policy (Codex's forms): `host` exactly; `*.host` any
 * subdomain at any depth, not the apex; `**.host` the apex and every subdomain; `*` every host
 * (meaningful in an allow entry only). Patterns and request hosts are normalised the same way.
 */
import type { DomainRule } from "../protocol/permissions.js";

/**
 * A pattern or host as compared: trimmed, lowercased, brackets of an IPv6 literal and a simple
 * `:port` removed, one trailing dot dropped.
 */
export function normalizeHost(raw: string): string {
  let host = raw.trim().toLowerCase();
  const bracketed = /^\[([^\]]*)\](?::\d+)?$/.exec(host);
  if (bracketed) host = bracketed[1] ?? "";
  // Exactly one colon: `name:port`. More than one is an IPv6 literal and keeps its colons.
  else if (/^[^:]+:\d+$/.test(host)) host = host.slice(0, host.lastIndexOf(":"));
  if (host.endsWith(".")) host = host.slice(0, -1);
  return host;
}

/** A normalised pattern: its kind and the domain it is anchored on. */
export type CompiledPattern =
  | { kind: "any" }
  | { kind: "exact"; host: string }
  | { kind: "subdomains"; domain: string }
  | { kind: "apexAndSubdomains"; domain: string };

export function compilePattern(raw: string): CompiledPattern {
  const pattern = normalizeHost(raw);
  if (pattern === "*") return { kind: "any" };
  if (pattern.startsWith("**.")) return { kind: "apexAndSubdomains", domain: pattern.slice(3) };
  if (pattern.startsWith("*.")) return { kind: "subdomains", domain: pattern.slice(2) };
  return { kind: "exact", host: pattern };
}

/** Whether a normalised `host` matches `pattern`. */
export function patternMatches(pattern: CompiledPattern, host: string): boolean {
  switch (pattern.kind) {
    case "any":
      return true;
    case "exact":
      return host === pattern.host;
    case "subdomains":
      return host.endsWith(`.${pattern.domain}`);
    case "apexAndSubdomains":
      return host === pattern.domain || host.endsWith(`.${pattern.domain}`);
  }
}

/** The allow and deny entries of a policy, compiled once per route. */
export interface DomainMatcher {
  /** Some deny entry matches. */
  denies(host: string): boolean;
  /** Some allow entry matches. */
  allows(host: string): boolean;
  /** An allow entry names exactly this host (no wildcard). */
  allowsExactly(host: string): boolean;
}

export function compileDomainRules(rules: readonly DomainRule[]): DomainMatcher {
  const allow = rules.filter((rule) => rule.action === "allow").map((rule) => compilePattern(rule.pattern));
  // `*` is meant for allow entries; a deny `*` is kept and blocks everything (fail closed).
  const deny = rules.filter((rule) => rule.action === "deny").map((rule) => compilePattern(rule.pattern));
  return {
    denies: (host) => deny.some((pattern) => patternMatches(pattern, host)),
    allows: (host) => allow.some((pattern) => patternMatches(pattern, host)),
    allowsExactly: (host) => allow.some((pattern) => pattern.kind === "exact" && pattern.host === host),
  };
}
