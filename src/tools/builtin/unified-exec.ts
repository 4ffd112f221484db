/**
 * What exec_command and write_stdin share (Codex's "unified exec"): the thread's session
 * manager, the yield-time rules, the output envelope (reference section 3) and the exec
 * events of a session's life.
 *
 * Envelope: `Chunk ID: {6 hex}\nWall time: {s:.4} seconds\n{Process exited with code {n} |
 * Process running with session ID {id}}\nOriginal token count: {ceil(bytes/4)}\nOutput:\n{text}`,
 * the text cut to `max_output_tokens` as `Total output lines: {k}\n\n{head}…{N} tokens truncated…{tail}`.
 *
 * Events: begin when exec_command starts the process; output deltas as chunks arrive, for
 * the whole life of the session; end when the process exits (during whichever call is
 * waiting then, or between calls), never for sessions ended because the thread shut down.
 */
import { randomBytes } from "node:crypto";
import type { CapturedText } from "../../exec/head-tail-buffer.js";
import type { ExecSession, SessionExit } from "../../exec/session.js";
import { ExecSessionManager, type ExecSessionManagerOptions } from "../../exec/sessions.js";
import { resourceKey } from "../../util/resource-scope.js";
import { formattedTruncateText, renderCaptured, truncateText } from "../truncate.js";
import type { TurnContext } from "../types.js";

/** Codex's defaults and bounds (reference section 3). */
export const DEFAULT_EXEC_YIELD_MS = 10_000;
export const DEFAULT_WRITE_YIELD_MS = 250;
export const MIN_YIELD_MS = 250;
export const MAX_YIELD_MS = 30_000;
/** A poll that sends nothing waits at least this long: fast empty polls only burn tokens. */
export const MIN_EMPTY_POLL_MS = 5_000;
export const DEFAULT_MAX_OUTPUT_TOKENS = 10_000;
/** Enough for any UI; past this a chatty server would only flood the event stream. */
const MAX_OUTPUT_DELTAS = 10_000;

/**
 * Set for every session command: the model reads plain text, and nothing may stop to page
 * or ask for a terminal it cannot see.
 */
export const SESSION_ENV: Readonly<Record<string, string>> = {
  NO_COLOR: "1",
  TERM: "dumb",
  PAGER: "cat",
  GIT_PAGER: "cat",
  GH_PAGER: "cat",
};

const SESSIONS = resourceKey<ExecSessionManager>("exec-sessions");

/** The thread's session manager, created on first use. */
export function sessionsOf(turn: TurnContext, options?: ExecSessionManagerOptions): ExecSessionManager {
  return turn.resources.use(SESSIONS, () => new ExecSessionManager(options));
}

/** The thread's session manager if one was ever made. */
export function existingSessions(turn: TurnContext): ExecSessionManager | undefined {
  return turn.resources.peek(SESSIONS);
}

/** `requested` (or the default) within [MIN_YIELD_MS, MAX_YIELD_MS]. */
export function clampYield(requested: number | undefined, fallback: number, minimum = MIN_YIELD_MS): number {
  return Math.min(MAX_YIELD_MS, Math.max(minimum, requested ?? fallback));
}

export interface SessionReply {
  wallMs: number;
  session: ExecSession;
  exit: SessionExit | null;
  output: CapturedText;
  maxOutputTokens: number | undefined;
  /** Lines for the model before `Output:` (e.g. a session ended to make room). */
  notes?: readonly string[];
}

/** The text the model reads for one exec_command / write_stdin call. */
export function formatSessionReply(reply: SessionReply): string {
  const limit = reply.maxOutputTokens ?? DEFAULT_MAX_OUTPUT_TOKENS;
  const lines = [
    `Chunk ID: ${randomBytes(3).toString("hex")}`,
    `Wall time: ${(Math.max(0, reply.wallMs) / 1000).toFixed(4)} seconds`,
    reply.exit
      ? `Process exited with code ${reply.exit.exitCode}`
      : `Process running with session ID ${reply.session.id}`,
    `Original token count: ${Math.ceil(reply.output.totalBytes / 4)}`,
    ...(reply.notes ?? []),
    "Output:",
    formattedTruncateText(reply.output, { mode: "tokens", limit }),
  ];
  return lines.join("\n");
}

/** The note for a session ended to make room for a new one. */
export function prunedNote(pruned: ExecSession, maxSessions: number): string {
  const script = pruned.spec.argv.at(-1) ?? "";
  const shown = script.length > 80 ? `${script.slice(0, 77)}...` : script;
  return `Note: session ${pruned.id} (\`${shown}\`) was ended to stay within ${maxSessions} live sessions; it was the least recently used.`;
}

/** Where a session's events go: the turn now using it. */
type EventSink = Pick<TurnContext, "emit" | "wantsOutputDeltas">;

interface Tracker {
  turn: EventSink;
  deltas: number;
}

const trackers = new WeakMap<ExecSession, Tracker>();

export interface SessionOrigin {
  callId: string;
  turnId: string;
  command: string[];
  cwd: string;
}

/**
 * Streams the session's output as deltas and announces its exit, under the exec_command
 * call that started it. Events go to `turn` until retarget() points them at a later turn.
 */
export function trackSession(
  session: ExecSession,
  origin: SessionOrigin,
  turn: EventSink,
  /** Sentences about hosts the managed proxy refused, appended to the end's output. */
  blockedHosts: () => readonly string[] = () => [],
): void {
  const tracker: Tracker = { turn, deltas: 0 };
  trackers.set(session, tracker);
  session.onOutput((stream, chunk) => {
    // The chunk is reused by the next read: a delta gets its own copy, made only if read.
    if (tracker.deltas < MAX_OUTPUT_DELTAS && tracker.turn.wantsOutputDeltas?.() !== false) {
      tracker.deltas++;
      tracker.turn.emit({
        type: "exec_command_output_delta",
        call_id: origin.callId,
        stream,
        chunk: Buffer.from(chunk),
      });
    }
  });
  void session.exited.then((exit) => {
    // The thread is going away: nobody is left to show the end to.
    if (session.killReason === "shutdown") return;
    const { aggregated, stdout, stderr } = session.transcript();
    const blocked = blockedHosts();
    const noted = (text: string) => (blocked.length > 0 ? `${text}\n\n${blocked.join("\n")}` : text);
    tracker.turn.emit({
      type: "exec_command_end",
      call_id: origin.callId,
      turn_id: origin.turnId,
      command: origin.command,
      cwd: origin.cwd,
      exit_code: exit.exitCode,
      duration_ms: Math.round(performance.now() - session.startedAt),
      stdout: renderCaptured(stdout),
      stderr: renderCaptured(stderr),
      aggregated_output: noted(renderCaptured(aggregated)),
      formatted_output: noted(
        truncateText(aggregated, { mode: "tokens", limit: DEFAULT_MAX_OUTPUT_TOKENS }).text,
      ),
    });
  });
}

/** Later events of the session go to the turn of the call now using it. */
export function retarget(session: ExecSession, turn: EventSink): void {
  const tracker = trackers.get(session);
  if (tracker) tracker.turn = turn;
}
