/**
 * What the model receives for a command (reference section 3). Two envelopes:
 * - freeform (shell_command): `Exit code: {n}\nWall time: {s} seconds\n[Total output lines: {k}\n]Output:\n{out}`
 * - legacy JSON (shell, local_shell, intercepted apply_patch):
 *   `{"output":"{text}","metadata":{"exit_code":{n},"duration_seconds":{s.1}}}`
 * plus the error strings of commands that never ran or died by a signal.
 */
import { constants } from "node:os";
import type { CapturedText } from "../exec/head-tail-buffer.js";
import type { TruncationPolicy } from "../protocol/policy.js";
import {
  capturedFromString,
  countLines,
  formattedTruncateText,
  prependText,
  truncateText,
} from "./truncate.js";

/** The facts of a finished command that the envelopes show. */
export interface ExecSummary {
  exitCode: number;
  durationMs: number;
  timedOut: boolean;
  /** Interleaved stdout and stderr. */
  output: CapturedText | string;
}

/** The output as the model reads it: on timeout, a first line saying so. */
export function modelBody(summary: ExecSummary): CapturedText {
  const output = typeof summary.output === "string" ? capturedFromString(summary.output) : summary.output;
  if (!summary.timedOut) return output;
  return prependText(`command timed out after ${Math.floor(summary.durationMs)} milliseconds\n`, output);
}

/** Seconds rounded to 0.1 without a trailing `.0` (Rust's f32 Display): 0, 0.5, 10. */
export function formatWallTime(durationMs: number): string {
  return String(roundTenths(durationMs));
}

/** Seconds rounded to 0.1, always with a decimal (serde_json's f32): 0.0, 0.5, 10.0. */
export function formatDurationSeconds(durationMs: number): string {
  const seconds = roundTenths(durationMs);
  return Number.isInteger(seconds) ? seconds.toFixed(1) : String(seconds);
}

function roundTenths(durationMs: number): number {
  return Math.round(Math.max(0, durationMs) / 100) / 10;
}

/**
 * The shell_command envelope. `Total output lines` appears when truncation changed the line
 * count (so a single cut line, e.g. 40001 × `c`, shows none).
 */
export function formatFreeformExecOutput(summary: ExecSummary, policy: TruncationPolicy): string {
  const body = modelBody(summary);
  const { text } = truncateText(body, policy);
  const sections = [
    `Exit code: ${summary.exitCode}`,
    `Wall time: ${formatWallTime(summary.durationMs)} seconds`,
  ];
  if (body.totalLines !== countLines(text)) sections.push(`Total output lines: ${body.totalLines}`);
  sections.push("Output:", text);
  return sections.join("\n");
}

/** The legacy shell envelope, body truncated with `Total output lines: {k}\n\n` when cut. */
export function formatLegacyExecOutput(summary: ExecSummary, policy: TruncationPolicy): string {
  return legacyJson(formattedTruncateText(modelBody(summary), policy), summary.exitCode, summary.durationMs);
}

/** The legacy JSON envelope around text that is already final (e.g. a patch summary). */
export function legacyJson(output: string, exitCode: number, durationMs: number): string {
  // Built by hand: JSON.stringify would print 0 where serde prints 0.0.
  return `{"output":${JSON.stringify(output)},"metadata":{"exit_code":${exitCode},"duration_seconds":${formatDurationSeconds(durationMs)}}}`;
}

/** Interrupted call (the turn was aborted). */
export function formatAborted(durationMs: number): string {
  return `Wall time: ${(Math.max(0, durationMs) / 1000).toFixed(1)} seconds\naborted by user`;
}

/** A command killed by a signal we did not send: `execution error: Sandbox(Signal(9))`. */
export function formatSignalError(signal: NodeJS.Signals): string {
  return `execution error: Sandbox(Signal(${constants.signals[signal] ?? 0}))`;
}

/** errno name → [number, Rust io::ErrorKind, strerror text]. */
const OS_ERRORS: Record<string, readonly [number, string, string]> = {
  EPERM: [1, "PermissionDenied", "Operation not permitted"],
  ENOENT: [2, "NotFound", "No such file or directory"],
  E2BIG: [7, "ArgumentListTooLong", "Argument list too long"],
  ENOEXEC: [8, "Uncategorized", "Exec format error"],
  EAGAIN: [11, "WouldBlock", "Resource temporarily unavailable"],
  ENOMEM: [12, "OutOfMemory", "Cannot allocate memory"],
  EACCES: [13, "PermissionDenied", "Permission denied"],
  ENOTDIR: [20, "NotADirectory", "Not a directory"],
  EISDIR: [21, "IsADirectory", "Is a directory"],
  EINVAL: [22, "InvalidInput", "Invalid argument"],
  EMFILE: [24, "Uncategorized", "Too many open files"],
  ETXTBSY: [26, "ExecutableFileBusy", "Text file busy"],
  ENAMETOOLONG: [36, "InvalidFilename", "File name too long"],
  ELOOP: [40, "FilesystemLoop", "Too many levels of symbolic links"],
};

/**
 * A command that could not start, in Codex's Debug form:
 * `execution error: Io(Os { code: 2, kind: NotFound, message: "No such file or directory" })`.
 */
export function formatSpawnError(error: NodeJS.ErrnoException): string {
  const known = error.code ? OS_ERRORS[error.code] : undefined;
  if (known) {
    const [code, kind, message] = known;
    return `execution error: Io(Os { code: ${code}, kind: ${kind}, message: ${JSON.stringify(message)} })`;
  }
  if (typeof error.errno === "number") {
    const code = Math.abs(error.errno);
    return `execution error: Io(Os { code: ${code}, kind: Uncategorized, message: ${JSON.stringify(error.message)} })`;
  }
  return `execution error: Io(Custom { kind: InvalidInput, error: ${JSON.stringify(error.message)} })`;
}
