/** A configured hook: a command from a file, or a callback of the embedding program. */
import type { HookCallback, HookEventName } from "./events.js";

/** Codex's default per-hook timeout. */
export const DEFAULT_TIMEOUT_SEC = 600;
/** SessionEnd hooks may not hold up the end of a session longer than this. */
export const SESSION_END_MAX_TIMEOUT_SEC = 3;

export interface CommandHook {
  kind: "command";
  event: HookEventName;
  /** Tested against the event's match value (tool name, source, trigger, agent type); null: all. */
  matcher: RegExp | null;
  matcherText: string | null;
  command: string;
  timeoutSec: number;
  /** The file it was read from. */
  source: string;
  /** The config layer of that file. */
  layer: "user" | "project";
  /** Its place among every configured hook (Codex's displayOrder; hooks/list shows the same). */
  displayOrder: number;
  /** `statusMessage` of its entry: what a UI shows while it runs. */
  statusMessage: string | null;
  /** `[hooks.state]` key. */
  key: string;
  /** The current trust hash (`sha256:...`). */
  hash: string;
  /** May run: its stored hash is the current one, or trust is bypassed for this run. */
  trusted: boolean;
  /**
   * What the user's config records (Codex's HookTrustStatus): `modified` when a hash was stored
   * but the hook changed since (an edited command, matcher or timeout), so it needs trusting again.
   */
  trustStatus: HookTrustStatus;
}

export type HookTrustStatus = "trusted" | "untrusted" | "modified";

export interface CallbackHook {
  kind: "callback";
  event: HookEventName;
  callback: HookCallback;
  /** Its place among every hook of the thread (after the configured ones). */
  displayOrder: number;
}

export type Hook = CommandHook | CallbackHook;
