/**
 * Which hooks may run. Hooks the user did not write here (every configured command hook) run
 * only when trusted: for one run with --dangerously-bypass-hook-trust, or durably when
 * `[hooks.state."<key>"] trusted_hash` in the user's config.toml equals the hook's current
 * hash, so an edited hook needs trusting again. Keys and hashes are formed as Codex forms them:
 * key `<source file>:<event label>:<group index>:<handler index>`, hash `sha256:` of the
 * handler's identity as canonical JSON.
 */
import { createHash } from "node:crypto";
import { eventKeyLabel, type HookEventName } from "./events.js";

export interface HookIdentity {
  event: HookEventName;
  matcher: string | null;
  command: string;
  timeoutSec: number;
  statusMessage: string | null;
}

export function hookStateKey(source: string, event: HookEventName, group: number, handler: number): string {
  return `${source}:${eventKeyLabel(event)}:${group}:${handler}`;
}

export function hookTrustHash(identity: HookIdentity): string {
  const handler: Record<string, unknown> = {
    async: false,
    command: identity.command,
    timeout: identity.timeoutSec,
    type: "command",
    ...(identity.statusMessage ? { statusMessage: identity.statusMessage } : {}),
  };
  const whole: Record<string, unknown> = {
    event_name: eventKeyLabel(identity.event),
    hooks: [handler],
    ...(identity.matcher !== null ? { matcher: identity.matcher } : {}),
  };
  return `sha256:${createHash("sha256").update(canonicalJson(whole)).digest("hex")}`;
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (typeof value === "object" && value !== null) {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : 1));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

/** `[hooks.state]` of a config table: key → trusted hash. */
export function trustedHashes(table: Record<string, unknown>): Map<string, string> {
  const hooks = table.hooks;
  const state = isTable(hooks) && isTable(hooks.state) ? hooks.state : {};
  const hashes = new Map<string, string>();
  for (const [key, entry] of Object.entries(state)) {
    if (isTable(entry) && typeof entry.trusted_hash === "string") hashes.set(key, entry.trusted_hash);
  }
  return hashes;
}

function isTable(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
