/**
 * The proxy's private directory for its unix sockets: `$TMPDIR/tscodex-proxy-<pid>-<random>/`,
 * mode 0700. Directories left by processes that died without cleaning up are swept.
 */
import { rmSync } from "node:fs";
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

const PREFIX = "tscodex-proxy-";

/** Creates this process's directory (mkdtemp: 0700, a name nobody else has). */
export function createProxyDir(): Promise<string> {
  return mkdtemp(join(tmpdir(), `${PREFIX}${process.pid}-`));
}

/** Removes the directories of pids that no longer run; returns their paths. */
export async function sweepStaleProxyDirs(root = tmpdir()): Promise<string[]> {
  const removed: string[] = [];
  for (const name of await readdir(root).catch(() => [])) {
    const pid = new RegExp(`^${PREFIX}(\\d+)-`).exec(name)?.[1];
    if (!pid || processAlive(Number(pid))) continue;
    const path = join(root, name);
    await rm(path, { recursive: true, force: true }).catch(() => undefined);
    removed.push(path);
  }
  return removed;
}

/** Removes `dir` synchronously (for process exit, where nothing async runs). */
export function removeProxyDirSync(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}

function processAlive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it runs, as another user.
    return (error as NodeJS.ErrnoException).code !== "ESRCH";
  }
}
