/** Helpers for the apply_patch tests: real temp dirs and whole-tree snapshots. */
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, relative, sep } from "node:path";

/** A fresh temp dir and its cleanup. */
export async function makeTempDir(): Promise<{ dir: string; cleanup: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), "tscodex-apply-patch-"));
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

/** Every file under `root` (relative path with `/` → bytes); empty directories are not listed. */
export async function readTree(root: string): Promise<Record<string, Buffer>> {
  const out: Record<string, Buffer> = {};
  const walk = async (dir: string): Promise<void> => {
    let entries: import("node:fs").Dirent[];
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return;
      throw error;
    }
    for (const entry of entries) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) await walk(path);
      else out[relative(root, path).split(sep).join("/")] = await readFile(path);
    }
  };
  await walk(root);
  return out;
}

/** Tree snapshot as printable strings, for readable assertion diffs. */
export function printable(tree: Record<string, Buffer>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const key of Object.keys(tree).sort()) out[key] = JSON.stringify(tree[key]!.toString("latin1"));
  return out;
}

export { zeroTiming } from "../support/timing.js";
