/**
 * One exec session: a command that keeps running between tool calls.
 *
 * Responsibilities: start the command on a pseudo-terminal (stdin open, output merged as a
 * terminal shows it) or on pipes (stdin on /dev/null, stdout and stderr interleaved); buffer
 * what it prints until the next poll takes it (bounded: first and last 512 KiB); keep a
 * smaller transcript of the whole run for the end-of-command event; report the exit once
 * all output before it was read; end the whole tree on request.
 *
 * Flow: start → chunks → pending buffer + transcript + listeners → exit (after the output
 * drained) → `exited` resolves. terminate(): SIGTERM to groups and sessions → grace →
 * SIGKILL sweep (also catching what an exited leader left behind).
 */
import { spawn } from "node:child_process";
import { stat } from "node:fs/promises";
import { constants } from "node:os";
import { type CapturedText, chunkStats, EMPTY_TEXT, HeadTailBuffer } from "./head-tail-buffer.js";
import { readPipe } from "./pipe-reader.js";
import {
  freezeTree,
  killProcessGroup,
  killSurvivors,
  processState,
  signalSessions,
  waitUntilDead,
} from "./process-tree.js";
import { spawnPty } from "./pty.js";

export type SessionStream = "stdout" | "stderr";

export interface ExecSessionSpec {
  /** Program and arguments, e.g. [shell, "-lc", script]. */
  argv: string[];
  /** Absolute working directory. */
  cwd: string;
  /** The complete environment. */
  env: Record<string, string>;
  /** A pseudo-terminal (stdin stays open) instead of pipes. */
  tty: boolean;
  /** Pipes only: stdin is a pipe the caller writes to (write, closeStdin) instead of /dev/null. */
  stdin?: boolean;
  /** Tty only: the terminal's size in character cells. */
  size?: { cols: number; rows: number };
}

/** How the leader ended: its code, or 128 + n when signal n killed it. */
export interface SessionExit {
  exitCode: number;
  signal: NodeJS.Signals | null;
}

/** Why we ended a session (null: it ended on its own). */
export type KillReason = "interrupt" | "prune" | "shutdown";

export type OutputListener = (stream: SessionStream, chunk: Buffer) => void;

/** Transcript bounds per stream, for events only; the model reads the pending buffer. */
const TRANSCRIPT_HEAD = 64 * 1024;
const TRANSCRIPT_TAIL = 64 * 1024;
/** A background grandchild may hold the pipes open for ever; wait this long after the leader exits. */
const PIPE_DRAIN_MS = 300;
/** After SIGKILL, how long to wait for the exit to be observed before giving up on it. */
const KILL_WAIT_MS = 2000;

export class ExecSession {
  readonly startedAt = performance.now();
  /** Last time a call used the session (performance.now()); pruning goes by it. */
  lastUsed = this.startedAt;
  /** Calls currently waiting on the session; a busy session is never pruned. */
  busy = 0;
  killReason: KillReason | null = null;
  readonly exited: Promise<SessionExit>;
  private exitStatus: SessionExit | null = null;
  private resolveExit!: (exit: SessionExit) => void;
  private pending = new HeadTailBuffer();
  private readonly all = new HeadTailBuffer(2 * TRANSCRIPT_HEAD, 2 * TRANSCRIPT_TAIL);
  private readonly out: HeadTailBuffer | null;
  private readonly err: HeadTailBuffer | null;
  private readonly listeners = new Set<OutputListener>();
  private backend: Backend | null = null;

  private constructor(
    readonly id: number,
    readonly spec: ExecSessionSpec,
  ) {
    this.exited = new Promise((resolve) => {
      this.resolveExit = resolve;
    });
    const separate = !spec.tty;
    this.out = separate ? new HeadTailBuffer(TRANSCRIPT_HEAD, TRANSCRIPT_TAIL) : null;
    this.err = separate ? new HeadTailBuffer(TRANSCRIPT_HEAD, TRANSCRIPT_TAIL) : null;
  }

  /**
   * Starts the command. Rejects with a NodeJS.ErrnoException when it cannot start (missing
   * cwd or program), or PtyUnavailableError for a tty without node-pty.
   */
  static async start(id: number, spec: ExecSessionSpec): Promise<ExecSession> {
    await checkDirectory(spec.cwd);
    const session = new ExecSession(id, spec);
    const sink: Sink = {
      data: (stream, chunk) => session.receive(stream, chunk),
      exit: (exit) => session.finish(exit),
    };
    session.backend = spec.tty ? await startPty(spec, sink) : await startPipes(spec, sink);
    return session;
  }

  get tty(): boolean {
    return this.spec.tty;
  }

  /** The leader's pid: also the id of its process group and of its session. */
  get pid(): number {
    return this.backend?.pid ?? -1;
  }

  /** Set once the leader exited and its output was read. */
  get exit(): SessionExit | null {
    return this.exitStatus;
  }

  /** Whether write() reaches the process: a tty, or pipes started with `stdin`. */
  get acceptsInput(): boolean {
    return this.spec.tty || this.spec.stdin === true;
  }

  /** Types into the terminal, or writes to the stdin pipe; ignored once the process exited. */
  write(data: string | Buffer): void {
    if (data.length === 0) return;
    if (!this.acceptsInput) throw new Error("stdin is closed for this session");
    if (this.exitStatus) return;
    this.backend?.write?.(data);
  }

  /** End of input: closes the stdin pipe, or types ^D (end of file) into the terminal. */
  closeStdin(): void {
    if (!this.acceptsInput) throw new Error("stdin is closed for this session");
    if (this.exitStatus) return;
    this.backend?.closeStdin?.();
  }

  /** Stops reading the output (the process blocks once the pipe or terminal is full) until resume(). */
  pause(): void {
    this.backend?.pause?.();
  }

  resume(): void {
    this.backend?.resume?.();
  }

  /** Resizes the terminal (tty sessions only). */
  resize(cols: number, rows: number): void {
    if (!this.spec.tty) throw new Error("only a tty session has a terminal size");
    if (this.exitStatus) return;
    this.backend?.resize?.(cols, rows);
  }

  /** What arrived since the previous call (or the start), as text with whole-stream totals. */
  takeOutput(): CapturedText {
    const text = this.pending.toText();
    this.pending = new HeadTailBuffer();
    return text;
  }

  /** The whole run so far, bounded (for events): interleaved, and per stream for pipes. */
  transcript(): { aggregated: CapturedText; stdout: CapturedText; stderr: CapturedText } {
    const aggregated = this.all.toText();
    return {
      aggregated,
      stdout: this.out?.toText() ?? aggregated,
      stderr: this.err?.toText() ?? EMPTY_TEXT,
    };
  }

  /**
   * Every chunk as it arrives, valid during the call only (pipe reads reuse the buffer: copy
   * what you keep). Returns the unsubscribe.
   */
  onOutput(listener: OutputListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private receive(stream: SessionStream, chunk: Buffer): void {
    const stats = chunkStats(chunk);
    this.pending.write(chunk, stats);
    this.all.write(chunk, stats);
    (stream === "stderr" ? this.err : this.out)?.write(chunk, stats);
    for (const listener of this.listeners) listener(stream, chunk);
  }

  private finish(exit: SessionExit): void {
    if (this.exitStatus) return;
    this.exitStatus = exit;
    this.listeners.clear();
    this.resolveExit(exit);
  }
}

/**
 * Ends sessions and everything they started: each group stopped and its descendants listed
 * (those that left it get SIGKILL at once), SIGTERM to each group and session, up to
 * `graceMs` for the leaders to exit, then a SIGKILL sweep that also reaches `leftovers`
 * (leaders that exited earlier but may have left children behind) and whatever listed
 * descendant still runs. Never rejects.
 */
export async function terminate(
  sessions: readonly ExecSession[],
  reason: KillReason,
  graceMs: number,
  leftovers: readonly number[] = [],
): Promise<void> {
  for (const session of sessions) session.killReason ??= reason;
  const running = sessions.filter((session) => !session.exit && session.pid > 0);
  // Listed with each group stopped: a sandbox's init that is just starting leaves the group
  // and the session, and ignores SIGTERM (process-tree.ts, freezeTree). Those get SIGKILL with
  // the final sweep (killSurvivors), not at once: the helper's keeper (danger-full-access) is
  // outside the group by design, and the command below it is owed its SIGTERM first.
  const trees = running.map((session) => freezeTree(session.pid));
  if (running.length > 0) {
    await signalSessions(
      running.map((session) => session.pid),
      "SIGTERM",
    );
    for (const session of running) killProcessGroup(session.pid, "SIGCONT");
    await settledWithin(
      running.map((session) => session.exited),
      graceMs,
    );
  }
  const alive = new Set(sessions.filter((session) => !session.exit).map((session) => session.pid));
  const exited = [...sessions.filter((session) => session.exit).map((session) => session.pid), ...leftovers];
  const leaders = [...alive, ...(await sweepable(exited.filter((pid) => pid > 0 && !alive.has(pid))))];
  const members = await signalSessions(leaders, "SIGKILL");
  for (const tree of trees) killSurvivors(tree.descendants);
  // Our own children are reaped by Node (exited); the rest are confirmed dead through /proc.
  await Promise.all([
    settledWithin(
      running.map((session) => session.exited),
      KILL_WAIT_MS,
    ),
    waitUntilDead(members, KILL_WAIT_MS),
  ]);
}

/**
 * Exited (reaped) leaders whose sessions may still be swept. Linux never hands out a pid
 * while it is still some process's group or session id, so while anything of the old
 * session is left, no process has the leader's pid; once a process has it, the pid was
 * reused and signalling that group or session would hit a stranger.
 */
async function sweepable(leaders: readonly number[]): Promise<number[]> {
  const unique = [...new Set(leaders)];
  const states = await Promise.all(unique.map((pid) => processState(pid)));
  return unique.filter((_, i) => states[i] === null);
}

async function settledWithin(promises: Promise<unknown>[], ms: number): Promise<void> {
  if (promises.length === 0) return;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms);
  });
  await Promise.race([Promise.all(promises), timeout]);
  clearTimeout(timer);
}

/** What a backend reports into. */
interface Sink {
  data(stream: SessionStream, chunk: Buffer): void;
  exit(exit: SessionExit): void;
}

interface Backend {
  readonly pid: number;
  write?(data: string | Buffer): void;
  closeStdin?(): void;
  resize?(cols: number, rows: number): void;
  pause?(): void;
  resume?(): void;
}

async function checkDirectory(cwd: string): Promise<void> {
  const info = await stat(cwd);
  if (!info.isDirectory()) {
    throw Object.assign(new Error(`not a directory: ${cwd}`), { code: "ENOTDIR", errno: -20, path: cwd });
  }
}

async function startPty(spec: ExecSessionSpec, sink: Sink): Promise<Backend> {
  const [file, ...args] = spec.argv;
  if (file === undefined) throw new Error("command args are empty");
  const terminal = await spawnPty({ file, args, cwd: spec.cwd, env: spec.env, ...spec.size });
  terminal.onData((chunk) => sink.data("stdout", chunk));
  terminal.onExit(({ exitCode, signal }) => {
    // node-pty hangs up a terminal whose output closed before it reaped the child, so a
    // process already on its way out (cat after ^D) is often reported as "killed by SIGHUP"
    // with exit code 0. Nothing else hangs up our terminals, so report a plain exit; the code
    // a shell wrapper would have passed on is lost in that race (node-pty gives 0).
    const hungUpByNodePty = signal === SIGHUP && exitCode === 0;
    sink.exit(
      signal === null || hungUpByNodePty ? { exitCode, signal: null } : exitBySignal(signalName(signal)),
    );
  });
  return {
    pid: terminal.pid,
    write: (data) => terminal.write(data),
    // ^D at the start of a line is end of file for the terminal's reader.
    closeStdin: () => terminal.write("\x04"),
    resize: (cols, rows) => terminal.resize(cols, rows),
    pause: () => terminal.pause(),
    resume: () => terminal.resume(),
  };
}

function startPipes(spec: ExecSessionSpec, sink: Sink): Promise<Backend> {
  const [file, ...args] = spec.argv;
  if (file === undefined) return Promise.reject(new Error("command args are empty"));
  // Its own session and process group, so the whole tree can be ended at once.
  const options = { cwd: spec.cwd, env: spec.env, detached: true };
  const child = spec.stdin
    ? spawn(file, args, { ...options, stdio: ["pipe", "pipe", "pipe"] })
    : spawn(file, args, { ...options, stdio: ["ignore", "pipe", "pipe"] });
  // Writing to a process that already exited fails (EPIPE): the exit reports what happened.
  child.stdin?.on("error", () => {});
  let openPipes = 2;
  let exit: SessionExit | null = null;
  let drainTimer: NodeJS.Timeout | undefined;
  const settle = (): void => {
    if (!exit || openPipes > 0) return;
    clearTimeout(drainTimer);
    sink.exit(exit);
  };
  const onClose = (): void => {
    openPipes--;
    settle();
  };
  const stdout = readPipe(child.stdout, (chunk) => sink.data("stdout", chunk), onClose);
  const stderr = readPipe(child.stderr, (chunk) => sink.data("stderr", chunk), onClose);
  child.once("exit", (code, signal) => {
    exit = code === null ? exitBySignal(signal) : { exitCode: code, signal: null };
    if (openPipes === 0) return settle();
    drainTimer = setTimeout(() => {
      // Whoever still holds the pipes gets EPIPE from now on; the session has ended.
      stdout.destroy();
      stderr.destroy();
      openPipes = 0;
      settle();
    }, PIPE_DRAIN_MS);
  });
  return new Promise((resolve, reject) => {
    // Without a pid it never started; later errors (none expected) must not crash the process.
    child.on("error", (error) => {
      if (child.pid === undefined) reject(error);
    });
    child.once("spawn", () =>
      resolve({
        pid: child.pid ?? -1,
        pause: () => {
          stdout.pause();
          stderr.pause();
        },
        resume: () => {
          stdout.resume();
          stderr.resume();
        },
        ...(child.stdin
          ? { write: (data) => child.stdin?.write(data), closeStdin: () => child.stdin?.end() }
          : {}),
      }),
    );
  });
}

const SIGHUP = constants.signals.SIGHUP;

function exitBySignal(signal: NodeJS.Signals | null): SessionExit {
  const number = signal ? (constants.signals[signal] ?? 0) : 0;
  return { exitCode: 128 + number, signal };
}

function signalName(number: number): NodeJS.Signals | null {
  for (const [name, value] of Object.entries(constants.signals)) {
    if (value === number) return name as NodeJS.Signals;
  }
  return null;
}
