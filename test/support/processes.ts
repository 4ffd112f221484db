/**
 * Process liveness by pid, for tests that check nothing outlives a run. PID 1 here does not
 * reap orphans, so a killed orphan can stay a zombie: state Z counts as dead unless said otherwise.
 */
import { readdir, readFile } from "node:fs/promises";

/** The state letter of `/proc/<pid>/stat` (e.g. "R", "S", "Z"), or "" when there is no such process. */
function stateOf(stat: string): string {
  return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
}

/** True while the process runs (a zombie counts as dead). */
export async function alive(pid: number): Promise<boolean> {
  const stat = await readFile(`/proc/${pid}/stat`, "utf8").catch(() => "");
  if (stat === "") return false;
  return stateOf(stat) !== "Z";
}

/**
 * Whether a process is gone (exited and reaped: signal 0 no longer reaches it, so a zombie is
 * not gone), polling up to `ms`.
 */
export async function reaped(pid: number, ms = 3000): Promise<boolean> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    try {
      process.kill(pid, 0);
    } catch {
      return true;
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return false;
}

/** Polls `check` until it holds (no fixed sleeps); throws after `timeoutMs`. */
export async function waitFor(check: () => Promise<boolean> | boolean, timeoutMs = 5000): Promise<void> {
  const end = performance.now() + timeoutMs;
  while (!(await check())) {
    if (performance.now() > end) throw new Error("condition not met in time");
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Reads a pid a command wrote (a line ending in a newline), waiting up to `timeoutMs` for it. */
export async function readPid(path: string, timeoutMs = 5000): Promise<number> {
  let text = "";
  await waitFor(async () => {
    text = await readFile(path, "utf8").catch(() => "");
    return text.endsWith("\n");
  }, timeoutMs);
  return Number(text.trim());
}

/** Live processes (host pids) whose command line contains `marker`. */
export async function withMarker(marker: string): Promise<number[]> {
  const pids: number[] = [];
  for (const name of await readdir("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    const cmdline = await readFile(`/proc/${name}/cmdline`, "utf8").catch(() => "");
    if (cmdline.includes(marker) && (await alive(Number(name)))) pids.push(Number(name));
  }
  return pids;
}
