/**
 * Runs the built CLI (dist/, via bin/tscodex.js) as a real child process, with its own
 * TSCODEX_HOME whose config.toml points at a fake model server.
 */
import { spawn } from "node:child_process";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

export const CLI_PATH = fileURLToPath(new URL("../../bin/tscodex.js", import.meta.url));

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** Peak resident set size in KiB (VmHWM, polled while the CLI ran). */
  peakRssKb: number;
}

export interface CliOptions {
  cwd: string;
  home: string;
  env?: Record<string, string>;
  stdin?: string;
  timeoutMs?: number;
  /** Called once the process is running (e.g. to send it a signal later). */
  onSpawn?: (child: import("node:child_process").ChildProcess) => void;
}

export function runCli(args: string[], options: CliOptions): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI_PATH, ...args], {
      cwd: options.cwd,
      env: { PATH: process.env.PATH ?? "", HOME: options.home, TSCODEX_HOME: options.home, ...options.env },
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
    });
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`CLI timed out: tscodex ${args.join(" ")}\nstderr:\n${stderr}`));
    }, options.timeoutMs ?? 30_000);
    let peakRssKb = 0;
    const pollRss = setInterval(() => {
      readFile(`/proc/${child.pid}/status`, "utf8").then(
        (status) => {
          const kb = Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0);
          peakRssKb = Math.max(peakRssKb, kb);
        },
        () => {},
      );
    }, 20);
    options.onSpawn?.(child);
    child.on("error", reject);
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      clearInterval(pollRss);
      resolve({ code, signal, stdout, stderr, peakRssKb });
    });
    child.stdin.end(options.stdin ?? "");
  });
}

export interface FakeProviderConfig {
  baseUrl: string;
  wireApi?: "responses" | "chat";
  model?: string;
  extra?: string | undefined;
}

/** Write a config.toml that routes the default provider to the fake model server. */
export async function writeFakeConfig(home: string, config: FakeProviderConfig): Promise<void> {
  await mkdir(home, { recursive: true });
  const toml = [
    `model = "${config.model ?? "gpt-5.2-codex"}"`,
    `model_provider = "fake"`,
    config.extra ?? "",
    "",
    "[model_providers.fake]",
    `name = "fake"`,
    `base_url = "${config.baseUrl}"`,
    `wire_api = "${config.wireApi ?? "responses"}"`,
    `env_key = "FAKE_KEY"`,
    "request_max_retries = 3",
    "stream_max_retries = 3",
    "stream_idle_timeout_ms = 2000",
    "",
  ].join("\n");
  await writeFile(join(home, "config.toml"), toml);
}
