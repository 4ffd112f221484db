/**
 * Pseudo-terminals, behind a small interface so the rest of tscodex never touches node-pty.
 *
 * `@lydell/node-pty` (prebuilt binaries) is a native addon: it is loaded on the first tty
 * session only, so start-up and every run that never asks for a terminal skip it, and a
 * platform without a prebuilt binary fails that one call with a clear message instead of
 * failing to start.
 *
 * The child runs as a session leader (setsid) with the terminal as its controlling tty, so
 * its pid is also its process group id and its session id.
 */
import { errorMessage } from "../util/errors.js";

/** How a terminal process ended. `signal` is null when it exited on its own. */
export interface PtyExit {
  exitCode: number;
  signal: number | null;
}

/** A process on a pseudo-terminal. Output arrives as raw bytes (terminal line endings, `\r\n`). */
export interface PtyProcess {
  readonly pid: number;
  /** Types into the terminal; the line discipline echoes it and maps ^C, ^D, ^Z. */
  write(data: string | Buffer): void;
  /** Changes the terminal's size in character cells (the process gets SIGWINCH). */
  resize(cols: number, rows: number): void;
  /** Stops reading the terminal (the process blocks once its buffer is full) until resume(). */
  pause(): void;
  resume(): void;
  onData(listener: (chunk: Buffer) => void): void;
  /** Called once, after the output that came before the exit was delivered. */
  onExit(listener: (exit: PtyExit) => void): void;
  /** Stops reading and closes our side of the terminal (the child gets SIGHUP if still there). */
  destroy(): void;
}

export interface PtySpawnOptions {
  file: string;
  args: string[];
  cwd: string;
  /** The complete environment. */
  env: Record<string, string>;
  cols?: number;
  rows?: number;
}

/** node-pty could not be loaded on this platform. */
export class PtyUnavailableError extends Error {
  override name = "PtyUnavailableError";
}

/** The part of node-pty's API this module relies on (its own typings say string output). */
interface NodePtyModule {
  spawn(
    file: string,
    args: string[],
    options: {
      name: string;
      cols: number;
      rows: number;
      cwd: string;
      env: Record<string, string>;
      encoding: null;
    },
  ): NodePtyTerminal;
}

interface NodePtyTerminal {
  readonly pid: number;
  /** Typed as string by node-pty; its Unix terminal writes a Buffer as is (raw bytes). */
  write(data: string | Buffer): void;
  resize(cols: number, rows: number): void;
  pause(): void;
  resume(): void;
  onData(listener: (data: string | Buffer) => void): unknown;
  onExit(listener: (exit: { exitCode: number; signal?: number }) => void): unknown;
  destroy?(): void;
  kill(signal?: string): void;
}

let loading: Promise<NodePtyModule> | undefined;

/** Loads node-pty once; later calls share the result (or the failure). */
export function loadPty(): Promise<NodePtyModule> {
  loading ??= import("@lydell/node-pty").then(
    (module) => module as unknown as NodePtyModule,
    (error: unknown) => {
      throw new PtyUnavailableError(
        `tty sessions need @lydell/node-pty, which could not be loaded: ${errorMessage(error)}`,
        { cause: error },
      );
    },
  );
  return loading;
}

/** Wide enough that tools formatting for the terminal width (ps, ls, tables) keep their lines whole. */
const DEFAULT_COLS = 200;
const DEFAULT_ROWS = 50;

/** Starts `file args` on a new pseudo-terminal. Rejects with PtyUnavailableError without node-pty. */
export async function spawnPty(options: PtySpawnOptions): Promise<PtyProcess> {
  const pty = await loadPty();
  const terminal = pty.spawn(options.file, options.args, {
    name: options.env.TERM ?? "dumb",
    cols: options.cols ?? DEFAULT_COLS,
    rows: options.rows ?? DEFAULT_ROWS,
    cwd: options.cwd,
    env: options.env,
    // Raw bytes: byte counts and UTF-8 sequences split across reads stay exact.
    encoding: null,
  });
  return {
    pid: terminal.pid,
    write: (data) => terminal.write(data),
    resize: (cols, rows) => terminal.resize(cols, rows),
    pause: () => terminal.pause(),
    resume: () => terminal.resume(),
    onData(listener) {
      terminal.onData((data) => listener(typeof data === "string" ? Buffer.from(data, "utf8") : data));
    },
    onExit(listener) {
      terminal.onExit(({ exitCode, signal }) =>
        listener({ exitCode, signal: signal !== undefined && signal > 0 ? signal : null }),
      );
    },
    destroy() {
      if (terminal.destroy) terminal.destroy();
      else terminal.kill("SIGHUP");
    },
  };
}
