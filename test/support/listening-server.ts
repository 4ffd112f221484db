/**
 * The tscodex servers the tests spawn (proxy, `mcp-server --http`, `app-server --listen ws://`),
 * started the same way: the built CLI in its own home, ready once it prints
 * "listening on URL" on stderr, stopped with SIGTERM (SIGKILL if it hangs).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { CLI_PATH } from "./cli.js";

/** Where a spawned server runs: its home (HOME and TSCODEX_HOME), cwd and extra variables. */
export interface ServerEnv {
  home: string;
  cwd: string;
  env?: Record<string, string>;
}

/** The environment of a server in `server`'s home (FAKE_KEY: the fake model's key). */
export function childEnv(server: ServerEnv): Record<string, string> {
  return {
    PATH: process.env.PATH ?? "",
    HOME: server.home,
    TSCODEX_HOME: server.home,
    FAKE_KEY: "sk-test",
    ...server.env,
  };
}

export interface ListeningServer {
  /** What it printed after "listening on". */
  url: string;
  child: ChildProcess;
  /** Everything it wrote on stderr so far. */
  stderr(): string;
  /** SIGTERM (SIGKILL after 10 s), then resolves once the process exited. */
  stop(): Promise<void>;
}

/** Spawn `tscodex ...args` in `server`'s home; resolves once it listens (rejects if it exits first). */
export function spawnListening(
  args: string[],
  server: ServerEnv,
  options: { what: string; timeoutMs?: number; cli?: string },
): Promise<ListeningServer> {
  // Benchmarks run bundled elsewhere and name the CLI themselves (bench/support/bench.ts).
  const child = spawn(process.execPath, [options.cli ?? CLI_PATH, ...args], {
    cwd: server.cwd,
    env: childEnv(server),
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
    const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
    child.kill("SIGTERM");
    await exited;
    clearTimeout(timer);
  };
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`${options.what} did not start:\n${stderr}`)),
      options.timeoutMs ?? 15_000,
    );
    child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
      const url = /listening on (\S+)/.exec(stderr)?.[1];
      if (url) {
        clearTimeout(timer);
        resolve({ url, child, stderr: () => stderr, stop });
      }
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`${options.what} exited (${code}):\n${stderr}`));
    });
  });
}
