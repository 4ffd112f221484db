/** config.toml's `notify` and `notify_events` (run by session/notify.ts). */

/** What tscodex can notify about (`notify_events`); Codex knows only the first. */
export const NOTIFY_EVENTS = ["agent-turn-complete", "agent-turn-start", "approval-requested"] as const;
export type NotifyEvent = (typeof NOTIFY_EVENTS)[number];

/** `notify` resolved: the program with its arguments, and the events it runs for. */
export interface NotifyConfig {
  argv: string[];
  events: NotifyEvent[];
}
