/**
 * Running ripgrep for grep_files: the binary bundled by @vscode/ripgrep (else `rg` on PATH),
 * in its own process group so a timeout or an interrupt kills it whole, with stdout consumed
 * line by line (the caller can stop early, which kills rg) and stderr kept bounded.
 */
import { spawn } from "node:child_process";

const STDERR_LIMIT = 8 * 1024;
const KILL_GRACE_MS = 500;

let rgPathPromise: Promise<string> | undefined;

/** Path of the rg binary: the bundled one when its package is installed, else `rg` (PATH). */
export function ripgrepPath(): Promise<string> {
  rgPathPromise ??= import("@vscode/ripgrep").then(
    (module) => module.rgPath,
    () => "rg",
  );
  return rgPathPromise;
}

export interface RipgrepOptions {
  cwd: string;
  /** Kill rg and reject with RipgrepTimeoutError after this long. */
  timeoutMs: number;
  signal?: AbortSignal;
  /** Called for each complete stdout line that is valid UTF-8; return false to stop rg. */
  onLine(line: string): boolean;
}

export interface RipgrepResult {
  /** rg's exit code; null when it was stopped (onLine returned false) or killed. */
  code: number | null;
  /** True when onLine asked to stop. */
  stopped: boolean;
  /** The start of stderr. */
  stderr: string;
}

export class RipgrepTimeoutError extends Error {
  override name = "RipgrepTimeoutError";
}

export class RipgrepAbortedError extends Error {
  override name = "RipgrepAbortedError";
}

/** Run rg with `args`; rejects with the spawn error (e.g. ENOENT), timeout or abort. */
export async function runRipgrep(args: readonly string[], options: RipgrepOptions): Promise<RipgrepResult> {
  const rg = await ripgrepPath();
  return new Promise<RipgrepResult>((resolve, reject) => {
    const child = spawn(rg, args, { cwd: options.cwd, detached: true, stdio: ["ignore", "pipe", "pipe"] });
    const decoder = new TextDecoder("utf-8", { fatal: true });
    let pending: Buffer[] = [];
    let stderr = "";
    let stopped = false;
    let failure: Error | null = null;
    let graceTimer: NodeJS.Timeout | undefined;

    const killGroup = (signal: NodeJS.Signals) => {
      if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
      try {
        process.kill(-child.pid, signal);
      } catch {
        // Already gone.
      }
    };
    const stop = () => {
      killGroup("SIGTERM");
      graceTimer ??= setTimeout(() => killGroup("SIGKILL"), KILL_GRACE_MS);
    };
    const timer = setTimeout(() => {
      failure = new RipgrepTimeoutError(`rg timed out after ${options.timeoutMs / 1000} seconds`);
      stop();
    }, options.timeoutMs);
    const onAbort = () => {
      failure = new RipgrepAbortedError("grep_files was interrupted");
      stop();
    };
    options.signal?.addEventListener("abort", onAbort, { once: true });
    if (options.signal?.aborted) onAbort();

    const emit = (bytes: Buffer) => {
      if (stopped || bytes.length === 0) return;
      let line: string;
      try {
        line = decoder.decode(bytes);
      } catch {
        return; // Not UTF-8: a path the model could not use anyway.
      }
      if (!options.onLine(line)) {
        stopped = true;
        stop();
      }
    };
    child.stdout.on("data", (chunk: Buffer) => {
      let start = 0;
      for (let newline = chunk.indexOf(10); newline !== -1 && !stopped; newline = chunk.indexOf(10, start)) {
        const piece = chunk.subarray(start, newline);
        emit(pending.length === 0 ? piece : Buffer.concat([...pending, piece]));
        pending = [];
        start = newline + 1;
      }
      if (!stopped && start < chunk.length) pending.push(chunk.subarray(start));
    });
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      if (stderr.length < STDERR_LIMIT) stderr = (stderr + chunk).slice(0, STDERR_LIMIT);
    });
    let settled = false;
    const finish = (code: number | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      clearTimeout(graceTimer);
      options.signal?.removeEventListener("abort", onAbort);
      if (!stopped && !failure && pending.length > 0) emit(Buffer.concat(pending));
      if (failure) reject(failure);
      else resolve({ code: stopped ? null : code, stopped, stderr });
    };
    child.on("error", (error) => {
      failure ??= error;
      // A spawn failure has no process to wait for.
      if (child.pid === undefined) finish(null);
    });
    child.on("close", (code) => finish(code));
  });
}
