/**
 * Drives the real terminal UI in a real terminal: a detached tmux session (its own socket, so
 * tests never touch a user's tmux) running the built CLI. `send` types keys (tmux key names or
 * literal text), `waitFor` polls capture-pane until the screen matches (bounded; never a fixed
 * sleep), and `exitCode` reads the status the program left (the pane stays after it exits).
 */
import { execFile } from "node:child_process";
import { readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterEach, beforeEach } from "vitest";
import { CLI_PATH } from "./cli.js";
import { noProgram, skipIfSandboxWasNeeded } from "./skips.js";

const run = promisify(execFile);

export interface TmuxOptions {
  cwd: string;
  home: string;
  args: string[];
  env?: Record<string, string>;
  width?: number;
  height?: number;
  /** The CLI's entry point (default the repository's bin/tscodex.js). */
  cli?: string;
  /** Let the program set tmux's clipboard (paste buffers) with OSC 52 (`set-clipboard on`). */
  clipboard?: boolean;
}

let nextSession = 1;

export class TmuxTerminal {
  private constructor(
    private readonly socket: string,
    readonly name: string,
    private readonly statusFile: string,
  ) {}

  static async start(options: TmuxOptions): Promise<TmuxTerminal> {
    const socket = `tscodex-tui-${process.pid}-${nextSession}`;
    const name = `tui${nextSession++}`;
    const env = {
      PATH: process.env.PATH ?? "",
      HOME: options.home,
      TSCODEX_HOME: options.home,
      TERM: "xterm-256color",
      ...options.env,
    };
    // The shell records the program's status where exitCode() finds it.
    const statusFile = join(options.home, `${name}.status`);
    const exports = Object.entries(env)
      .map(([key, value]) => `${key}=${shellQuote(value)}`)
      .join(" ");
    const command = `env -i ${exports} ${shellQuote(process.execPath)} ${shellQuote(options.cli ?? CLI_PATH)} ${options.args.map(shellQuote).join(" ")}; echo $? > ${shellQuote(statusFile)}`;
    const terminal = new TmuxTerminal(socket, name, statusFile);
    await terminal.tmux(
      "-f",
      "/dev/null",
      "new-session",
      "-d",
      "-s",
      name,
      "-x",
      String(options.width ?? 100),
      "-y",
      String(options.height ?? 30),
      "-c",
      options.cwd,
    );
    // Keep the pane after the program exits, so its status can be read.
    await terminal.tmux("set-option", "-t", name, "remain-on-exit", "on");
    await terminal.tmux("set-option", "-s", "escape-time", "0");
    if (options.clipboard) await terminal.tmux("set-option", "-s", "set-clipboard", "on");
    await terminal.tmux("respawn-pane", "-k", "-t", name, "sh", "-c", command);
    return terminal;
  }

  private async tmux(...args: string[]): Promise<string> {
    const { stdout } = await run("tmux", ["-L", this.socket, ...args]);
    return stdout;
  }

  /** Types keys: tmux key names (`Enter`, `Escape`, `C-c`) or, with `literal`, text. */
  async send(keys: string | string[], literal = false): Promise<void> {
    const list = Array.isArray(keys) ? keys : [keys];
    await this.tmux("send-keys", "-t", this.name, ...(literal ? ["-l"] : []), ...list);
  }

  async type(text: string): Promise<void> {
    await this.send(text, true);
  }

  /** The visible screen as text (with `escapes`: the SGR codes too). */
  async capture(escapes = false): Promise<string> {
    return this.tmux("capture-pane", "-p", ...(escapes ? ["-e"] : []), "-t", this.name);
  }

  /** What has scrolled off the top of the screen (the terminal's scrollback), as text. */
  async scrollback(): Promise<string> {
    return this.tmux("capture-pane", "-p", "-S", "-", "-E", "-1", "-t", this.name);
  }

  /** Polls the screen until `test` holds; throws with the last screen after `timeoutMs`. */
  async waitFor(test: string | RegExp | ((screen: string) => boolean), timeoutMs = 15_000): Promise<string> {
    const matches =
      typeof test === "string"
        ? (screen: string) => screen.includes(test)
        : test instanceof RegExp
          ? (screen: string) => test.test(screen)
          : test;
    const deadline = Date.now() + timeoutMs;
    let screen = "";
    for (let delay = 10; ; delay = Math.min(delay * 2, 100)) {
      screen = await this.capture();
      if (matches(screen)) return screen;
      if (Date.now() > deadline) {
        await skipIfSandboxWasNeeded(screen);
        throw new Error(`screen never matched ${String(test)}; last screen:\n${screen}`);
      }
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
  }

  /** The program's exit status once it has exited (polled, bounded). */
  async exitCode(timeoutMs = 10_000): Promise<number> {
    const deadline = Date.now() + timeoutMs;
    for (let delay = 10; ; delay = Math.min(delay * 2, 100)) {
      const status = await readFile(this.statusFile, "utf8").catch(() => "");
      if (status.trim() !== "") return Number(status.trim());
      if (Date.now() > deadline) throw new Error(`the UI did not exit; screen:\n${await this.capture()}`);
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
  }

  /** The pane's title (what an OSC 0/2 sequence sets). */
  async paneTitle(): Promise<string> {
    return (await this.tmux("display-message", "-p", "-t", this.name, "#{pane_title}")).trim();
  }

  /** The paste buffers' contents, one line each (what an OSC 52 sequence writes); "" when none. */
  async pasteBuffers(): Promise<string> {
    return (await this.tmux("list-buffers", "-F", "#{buffer_sample}")).trim();
  }

  async resize(width: number, height: number): Promise<void> {
    await this.tmux("resize-window", "-t", this.name, "-x", String(width), "-y", String(height));
  }

  async kill(): Promise<void> {
    // tmux leaves its socket file behind; remove it too.
    const socketPath = (await this.tmux("display-message", "-p", "#{socket_path}").catch(() => "")).trim();
    await this.tmux("kill-server").catch(() => {});
    if (socketPath) await rm(socketPath, { force: true });
  }
}

function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

export type TerminalOptions = {
  env?: Record<string, string>;
  width?: number;
  height?: number;
  clipboard?: boolean;
};

/**
 * For a test file: `open(args)` starts the UI in the harness's home and work dir (FAKE_KEY set),
 * closing the previous terminal first; every terminal is killed after each test. Without tmux
 * every test of the file is skipped.
 */
export function useTmuxTerminal(harness: { home: string; work: string }) {
  let current: TmuxTerminal | undefined;
  // Without tmux (a fresh machine) each test skips, saying why once, rather than fails.
  const absent = noProgram("tmux", "the terminal UI tests");
  beforeEach((context) => {
    context.skip(absent, "tmux is not installed");
  });
  afterEach(async () => {
    await current?.kill();
    current = undefined;
  });
  return async (args: string[], extra: TerminalOptions = {}): Promise<TmuxTerminal> => {
    await current?.kill();
    current = await TmuxTerminal.start({
      cwd: harness.work,
      home: harness.home,
      args,
      env: { FAKE_KEY: "sk-test", ...extra.env },
      ...(extra.width ? { width: extra.width } : {}),
      ...(extra.height ? { height: extra.height } : {}),
      ...(extra.clipboard ? { clipboard: true } : {}),
    });
    return current;
  };
}
