/**
 * Process liveness by pid, for tests that check nothing outlives a run. A killed process is a
 * zombie until its parent reaps it. Once it is orphaned (adopted by PID 1, which here and in
 * many containers never reaps), it is gone for good: it has exited and holds nothing. While its
 * own parent still runs (tscodex, a shell, the sandbox), reaping is that parent's job, so the
 * zombie still counts: a check waits for the parent instead of passing early.
 */
import { readdir, readFile } from "node:fs/promises";

/** State letter (e.g. "R", "S", "Z") and parent pid from `/proc/<pid>/stat`; null when there is no such process. */
async function procStat(pid: number): Promise<{ state: string; ppid: number } | null> {
  const stat = await readFile(`/proc/${pid}/stat`, "utf8").catch(() => "");
  if (stat === "") return null;
  // The command name in parentheses may hold spaces: fields count from the last ")".
  const [state = "", ppid = "0"] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return { state, ppid: Number(ppid) };
}

/** True until the process is gone: exited and reaped, or an exited orphan (see above). */
export async function alive(pid: number): Promise<boolean> {
  const stat = await procStat(pid);
  if (stat === null) return false;
  return !(stat.state === "Z" && stat.ppid === 1);
}

/** Whether the process is gone (see `alive`), polling up to `ms`: a killed process takes a moment to exit. */
export async function gone(pid: number, ms = 3000): Promise<boolean> {
  const until = performance.now() + ms;
  while (await alive(pid)) {
    if (performance.now() > until) return false;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return true;
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
