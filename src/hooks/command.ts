/**
 * Running one command hook: `sh -c <command>` in its own process group, cwd = the session cwd,
 * the payload on stdin, stdout and stderr captured (bounded). After `timeoutMs` (or when the
 * signal aborts) the group is killed and the run resolves at once: nobody waits for a hook
 * that overran, and its late answer is ignored.
 */
import { spawn } from "node:child_process";
import { killProcessGroup } from "../exec/spawn.js";

/** Captured output per stream is cut here; a hook's answer is small. */
const MAX_CAPTURE_BYTES = 1024 * 1024;

export interface CommandRun {
  exitCode: number | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
}

export interface CommandHookOptions {
  command: string;
  cwd: string;
  input: string;
  timeoutMs: number;
  env: NodeJS.ProcessEnv;
  signal?: AbortSignal | undefined;
}

export function runCommandHook(options: CommandHookOptions): Promise<CommandRun> {
  return new Promise((resolve) => {
    const child = spawn("/bin/sh", ["-c", options.command], {
      cwd: options.cwd,
      env: options.env,
      detached: true,
      stdio: ["pipe", "pipe", "pipe"],
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    const capture = (into: Buffer[]) => {
      let size = 0;
      return (chunk: Buffer) => {
        if (size >= MAX_CAPTURE_BYTES) return;
        into.push(chunk.subarray(0, MAX_CAPTURE_BYTES - size));
        size += chunk.length;
      };
    };
    child.stdout.on("data", capture(out));
    child.stderr.on("data", capture(err));
    let done = false;
    const finish = (exitCode: number | null, timedOut: boolean, extra = "") => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      options.signal?.removeEventListener("abort", onAbort);
      resolve({
        exitCode,
        stdout: Buffer.concat(out).toString("utf8"),
        stderr: Buffer.concat(err).toString("utf8") + extra,
        timedOut,
      });
    };
    const kill = () => {
      if (child.pid !== undefined) killProcessGroup(child.pid, "SIGKILL");
    };
    const timer = setTimeout(() => {
      kill();
      finish(null, true);
    }, options.timeoutMs);
    const onAbort = () => {
      kill();
      finish(null, false, "aborted");
    };
    options.signal?.addEventListener("abort", onAbort, { once: true });
    child.on("error", (error) => finish(null, false, error.message));
    child.on("close", (code, signal) => finish(code ?? (signal ? null : 0), false));
    // A hook that does not read its stdin must not fail the run (EPIPE).
    child.stdin.on("error", () => {});
    child.stdin.end(options.input);
  });
}
