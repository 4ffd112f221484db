/**
 * One-shot command execution.
 *
 * Responsibilities: spawn argv in its own process group with stdin on /dev/null, capture
 * stdout, stderr and both interleaved into bounded head+tail buffers, stream chunks to the
 * caller, and end the whole process tree on timeout or abort.
 *
 * Flow: spawn (detached) → data → HeadTailBuffers + onOutput → leader exits → wait for the
 * pipes to close, bounded (a grandchild may hold them open) → result. On timeout or abort:
 * the group is stopped and its descendants listed; SIGTERM to the group, SIGKILL after a short
 * grace, and a final SIGKILL sweep when done of the group and of every listed descendant;
 * descendants that left the group (a sandbox's own init, a daemon) get SIGKILL at once.
 *
 * Why SIGTERM first (Codex sends SIGKILL at once): test runners, build tools and servers get
 * a moment to stop their own children and remove temp files. Whatever ignores SIGTERM costs
 * at most `killGraceMs` more; `sleep`, shells and most tools die on SIGTERM immediately, so
 * the reported "timed out after" time stays that of the timeout.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { constants } from "node:os";
import type { Readable } from "node:stream";
import { type CapturedText, StreamCaptures } from "./head-tail-buffer.js";
import { readPipe } from "./pipe-reader.js";
import { type FrozenTree, freezeTree, killProcessGroup, killStrays, killSurvivors } from "./process-tree.js";

export { killProcessGroup };

export type OutputStream = "stdout" | "stderr";

export interface RunCommandOptions {
  /** Program and arguments; argv[0] is looked up on PATH of `env`. */
  argv: string[];
  cwd: string;
  /** The complete environment of the command. */
  env: Record<string, string>;
  /** Kill the process group after this long (ms). */
  timeoutMs: number;
  /** Aborting kills the process group; the result then has `aborted: true`. */
  signal?: AbortSignal;
  /** Each chunk as it arrives, valid during the call only (the next read reuses it: copy to keep). */
  onOutput?: (stream: OutputStream, chunk: Uint8Array) => void;
  /** Between SIGTERM and SIGKILL of the group. Default 500 ms. */
  killGraceMs?: number;
  /** How long to wait for the pipes to close once the leader has exited. Default 300 ms. */
  drainTimeoutMs?: number;
}

export interface ExecResult {
  /** The exit code; 124 on timeout; 128+n when killed by signal n; -1 when it never ran. */
  exitCode: number;
  timedOut: boolean;
  /** Ended through `signal` (the turn was interrupted). */
  aborted: boolean;
  /** The signal that ended the leader (also set when we sent it), e.g. "SIGKILL". */
  killedBySignal: NodeJS.Signals | null;
  /** Wall time from spawn to the end of output, in fractional milliseconds. */
  durationMs: number;
  stdout: CapturedText;
  stderr: CapturedText;
  /** stdout and stderr interleaved in arrival order (the same object as a stream that wrote alone). */
  aggregated: CapturedText;
  /** Lines of the aggregated output (whole stream, not only what was kept). */
  totalLines: number;
  /** The command could not be started (missing binary or cwd, permissions). */
  spawnError?: NodeJS.ErrnoException;
}

const DEFAULT_KILL_GRACE_MS = 500;
const DEFAULT_DRAIN_TIMEOUT_MS = 300;
const MAX_TIMER_MS = 2 ** 31 - 1;
export const EXIT_CODE_TIMEOUT = 124;
const EXIT_CODE_SIGNAL_BASE = 128;

/** Runs a command to completion. Never rejects: failures to start are in `spawnError`. */
export function runCommand(options: RunCommandOptions): Promise<ExecResult> {
  const started = performance.now();
  const captures = new StreamCaptures();
  const result = (fields: Partial<ExecResult>): ExecResult => ({
    exitCode: -1,
    timedOut: false,
    aborted: false,
    killedBySignal: null,
    durationMs: performance.now() - started,
    ...captures.texts(),
    totalLines: captures.totalLines,
    ...fields,
  });

  const [file, ...args] = options.argv;
  if (file === undefined) {
    return Promise.resolve(result({ spawnError: new Error("command args are empty") }));
  }
  if (options.signal?.aborted) return Promise.resolve(result({ aborted: true }));

  let child: ChildProcess;
  try {
    child = spawn(file, args, {
      cwd: options.cwd,
      env: options.env,
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
    });
  } catch (error) {
    // Synchronous failures: invalid arguments such as NUL bytes.
    return Promise.resolve(result({ spawnError: error as NodeJS.ErrnoException }));
  }

  return new Promise<ExecResult>((resolve) => {
    let exit: { code: number | null; signal: NodeJS.Signals | null } | null = null;
    let killReason: "timeout" | "abort" | null = null;
    let openPipes = 2;
    let drainTimer: NodeJS.Timeout | undefined;
    let graceTimer: NodeJS.Timeout | undefined;
    let done = false;
    /** What ran below the leader when it was killed: all of it must be gone by the end. */
    let tree: FrozenTree | null = null;
    const pipes: Readable[] = [];

    const killGroup = (signal: NodeJS.Signals): void => {
      if (child.pid !== undefined) killProcessGroup(child.pid, signal);
    };

    const kill = (reason: "timeout" | "abort"): void => {
      if (killReason || done || child.pid === undefined) return;
      killReason = reason;
      // Listed with the group stopped, before it is signalled: once their parent is dead they
      // are init's, and a process that was starting would have been missed.
      tree = freezeTree(child.pid);
      killGroup("SIGTERM");
      killStrays(tree.strays);
      killGroup("SIGCONT");
      graceTimer = setTimeout(() => killGroup("SIGKILL"), options.killGraceMs ?? DEFAULT_KILL_GRACE_MS);
    };

    const onAbort = (): void => kill("abort");
    const timeoutTimer = setTimeout(() => kill("timeout"), clampTimer(options.timeoutMs));
    options.signal?.addEventListener("abort", onAbort, { once: true });

    const finish = (fields: Partial<ExecResult>): void => {
      if (done) return;
      done = true;
      clearTimeout(timeoutTimer);
      clearTimeout(graceTimer);
      clearTimeout(drainTimer);
      options.signal?.removeEventListener("abort", onAbort);
      // Whatever survived SIGTERM without holding the pipes goes now: the group, and what was
      // below the leader when it was killed (a bwrap's init that left the group since).
      if (killReason) killGroup("SIGKILL");
      if (tree) killSurvivors(tree.descendants);
      for (const pipe of pipes) pipe.destroy();
      resolve(result(fields));
    };

    const settle = (): void => {
      if (!exit || openPipes > 0) return;
      const { code, signal } = exit;
      if (killReason === "timeout") {
        finish({ exitCode: EXIT_CODE_TIMEOUT, timedOut: true, killedBySignal: signal });
        return;
      }
      const exitCode = code ?? EXIT_CODE_SIGNAL_BASE + (signal ? (constants.signals[signal] ?? 0) : 0);
      finish({ exitCode, aborted: killReason === "abort", killedBySignal: signal });
    };

    const onPipeClosed = (): void => {
      openPipes--;
      if (openPipes === 0) settle();
    };

    const pipe = (stream: OutputStream) => (chunk: Buffer) => {
      captures.write(stream, chunk);
      options.onOutput?.(stream, chunk);
    };
    if (child.stdout) pipes.push(readPipe(child.stdout, pipe("stdout"), onPipeClosed));
    if (child.stderr) pipes.push(readPipe(child.stderr, pipe("stderr"), onPipeClosed));

    child.once("error", (error: NodeJS.ErrnoException) => {
      // Spawn failures (ENOENT for binary or cwd, EACCES) come here without a pid.
      if (child.pid === undefined) finish({ spawnError: error });
    });

    child.once("exit", (code, signal) => {
      exit = { code, signal };
      if (openPipes > 0) {
        // A background grandchild may keep the pipes open forever: wait, but not for long.
        drainTimer = setTimeout(() => {
          openPipes = 0;
          settle();
        }, options.drainTimeoutMs ?? DEFAULT_DRAIN_TIMEOUT_MS);
        return;
      }
      settle();
    });
  });
}

function clampTimer(ms: number): number {
  if (!Number.isFinite(ms)) return MAX_TIMER_MS;
  return Math.min(Math.max(0, Math.floor(ms)), MAX_TIMER_MS);
}
