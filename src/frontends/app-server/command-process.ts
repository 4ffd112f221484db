/**
 * One running `command/exec`: an exec session (pipes, or a pseudo-terminal) in its own process
 * group, its output capped per stream and either streamed as base64 deltas or kept for the
 * reply, bounded by a timeout, and ended whole (SIGTERM, then SIGKILL to the tree) on terminate.
 *
 * Flow: start → chunks → cap → delta notification | kept bytes → exit (after the output drained)
 * → `done` resolves with the exit code (124 on timeout, 128+n when signal n ended it).
 * Streamed output never piles up: while the client has more than BACKLOG_HIGH bytes untaken,
 * the output is not read (the command blocks on a full pipe) until it is down to BACKLOG_LOW.
 */
import { ExecSession, type ExecSessionSpec, terminate } from "../../exec/session.js";

export type OutputStream = "stdout" | "stderr";

export interface CommandProcessSpec extends ExecSessionSpec {
  /** Bytes kept or streamed per stream; what comes after is dropped. */
  capBytes: number;
  /** Kill the tree after this long; null: no timeout. */
  timeoutMs: number | null;
  /** Streamed output goes here (and is not kept for the reply); null: kept for the reply. */
  onDelta: ((stream: OutputStream, bytes: Buffer, capReached: boolean) => void) | null;
  /** Bytes the client has not taken yet (streamed output waits while it is high). */
  backlog: () => number;
}

export interface CommandOutcome {
  exitCode: number;
  stdout: string;
  stderr: string;
}

export const EXIT_CODE_TIMEOUT = 124;
/** Between SIGTERM and SIGKILL when we end the command. */
const KILL_GRACE_MS = 500;
const BACKLOG_HIGH = 4 * 1024 * 1024;
const BACKLOG_LOW = 1024 * 1024;
const BACKLOG_POLL_MS = 10;

let nextSessionId = 1;

export class CommandProcess {
  readonly done: Promise<CommandOutcome>;
  private readonly kept: Record<OutputStream, Buffer[]> = { stdout: [], stderr: [] };
  private readonly taken: Record<OutputStream, number> = { stdout: 0, stderr: 0 };
  private readonly capped: Record<OutputStream, boolean> = { stdout: false, stderr: false };
  private timedOut = false;
  private ending: Promise<void> | null = null;
  private draining: NodeJS.Timeout | undefined;

  private constructor(
    private readonly session: ExecSession,
    private readonly spec: CommandProcessSpec,
  ) {
    session.onOutput((stream, chunk) => this.receive(stream, chunk));
    const timer = spec.timeoutMs === null ? undefined : setTimeout(() => this.expire(), spec.timeoutMs);
    this.done = session.exited.then((exit) => {
      clearTimeout(timer);
      clearInterval(this.draining);
      return {
        exitCode: this.timedOut ? EXIT_CODE_TIMEOUT : exit.exitCode,
        stdout: text(this.kept.stdout),
        stderr: text(this.kept.stderr),
      };
    });
  }

  /**
   * Starts the command. Rejects when it cannot start (missing program or cwd: an ErrnoException;
   * a tty without node-pty: PtyUnavailableError).
   */
  static async start(spec: CommandProcessSpec): Promise<CommandProcess> {
    return new CommandProcess(await ExecSession.start(nextSessionId++, spec), spec);
  }

  get tty(): boolean {
    return this.session.tty;
  }

  get acceptsInput(): boolean {
    return this.session.acceptsInput;
  }

  write(bytes: Buffer): void {
    this.session.write(bytes);
  }

  closeStdin(): void {
    this.session.closeStdin();
  }

  resize(cols: number, rows: number): void {
    this.session.resize(cols, rows);
  }

  /** End the process tree (idempotent); resolves once it is gone. */
  terminate(): Promise<void> {
    this.ending ??= terminate([this.session], "interrupt", KILL_GRACE_MS);
    return this.ending;
  }

  private expire(): void {
    this.timedOut = true;
    void this.terminate();
  }

  private receive(stream: OutputStream, chunk: Buffer): void {
    if (this.capped[stream]) return;
    const room = this.spec.capBytes - this.taken[stream];
    const capReached = chunk.length > room;
    // Pipe reads reuse their buffer: keep a copy.
    const piece = Buffer.from(capReached ? chunk.subarray(0, room) : chunk);
    this.taken[stream] += piece.length;
    this.capped[stream] = capReached;
    if (!this.spec.onDelta) {
      this.kept[stream].push(piece);
      return;
    }
    this.spec.onDelta(stream, piece, capReached);
    if (this.draining || this.spec.backlog() <= BACKLOG_HIGH) return;
    this.session.pause();
    this.draining = setInterval(() => {
      if (this.spec.backlog() > BACKLOG_LOW) return;
      clearInterval(this.draining);
      this.draining = undefined;
      this.session.resume();
    }, BACKLOG_POLL_MS);
  }
}

function text(chunks: Buffer[]): string {
  return Buffer.concat(chunks).toString("utf8");
}
