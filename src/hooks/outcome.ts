/** What running an event's hooks needs (where, how to report) and gives back (their folded answers). */
import type { HookRunSummary } from "../protocol/events.js";
import type { HookAnswer } from "./events.js";

/** Where an event's hooks run and report. */
export interface HookRunContext {
  cwd: string;
  signal?: AbortSignal | undefined;
  /** A problem worth telling the user (failed hook, untrusted hook, systemMessage). */
  warn(message: string): void;
  /** A hook (command or callback) started or finished. */
  report?(phase: "started" | "completed", run: HookRunSummary): void;
}

/** The folded answers of an event's hooks. */
export interface HookOutcome {
  additionalContexts: string[];
  block: string | null;
  /** Which hook blocked: its run id (hookRunId). */
  blockedBy: string | null;
  permission: HookAnswer["permission"] | null;
  stop: { reason: string | null } | null;
  updatedInput: unknown;
  /** How many hooks ran. */
  ran: number;
}

export const NO_OUTCOME: HookOutcome = {
  additionalContexts: [],
  block: null,
  blockedBy: null,
  permission: null,
  stop: null,
  updatedInput: undefined,
  ran: 0,
};
