/**
 * Whose files may steer this user's session. A project's `.git` decides which directory is "the
 * project" (whose `.codex/` layers load, which AGENTS.md files and skills are read, what
 * `exec --trust` records), and its `.codex/config.toml` can start MCP commands outside the
 * sandbox. So both count only when this user controls them:
 *
 * - owned by the current uid or by root (root can change anything anyway), checked on the path
 *   itself and, for a symbolic link, on the link too (the link's owner chose where it points);
 * - not world-writable: anyone could replace a world-writable file's contents, and anyone can
 *   create entries in a world-writable directory (the sticky bit, as on /tmp, only stops them
 *   removing or renaming other users' entries, so it does not make the directory ours).
 *
 * Group-writable is allowed: with the usual per-user group and umask 002 every file is g+w.
 * Without `process.getuid` (Windows) there are no owners to compare, and everything counts.
 */
import type { Stats } from "node:fs";
import { type FileHandle, lstat, open, stat } from "node:fs/promises";

const WORLD_WRITABLE = 0o002;

/** Why `path` may not steer this user's session, or null when it may; null too when it is missing. */
export async function notOursBecause(path: string): Promise<string | null> {
  return (await ownershipOf(path)) ?? null;
}

/**
 * notOursBecause, with undefined for a missing path (or a dangling link): one lstat, and one
 * stat for a link.
 */
export async function ownershipOf(path: string): Promise<string | null | undefined> {
  let link: Stats;
  let target: Stats;
  try {
    link = await lstat(path);
    target = link.isSymbolicLink() ? await stat(path) : link;
  } catch {
    return undefined;
  }
  return link === target ? reasonOf(target) : (ownerReason(link) ?? reasonOf(target));
}

/**
 * The text of file `path` when this user controls it, else null. The check is made on the open
 * handle, so the file cannot be swapped for someone else's between the check and the read.
 */
export async function readIfOurs(path: string): Promise<string | null> {
  let handle: FileHandle;
  try {
    handle = await open(path, "r");
  } catch {
    return null;
  }
  try {
    if (reasonOf(await handle.stat()) !== null) return null;
    return await handle.readFile("utf8");
  } catch {
    return null;
  } finally {
    await handle.close();
  }
}

function reasonOf(info: Stats): string | null {
  if (process.getuid === undefined) return null;
  // A link's own mode is always 0777 and means nothing: only a target's mode is checked here.
  return ownerReason(info) ?? (info.mode & WORLD_WRITABLE ? "writable by other users" : null);
}

function ownerReason(info: Stats): string | null {
  const me = process.getuid?.();
  if (me === undefined || info.uid === me || info.uid === 0) return null;
  return `owned by uid ${info.uid}, not by you (uid ${me}) or root`;
}

/** Whether `path` exists and this user controls it (see the module comment). */
export async function isOurs(path: string): Promise<boolean> {
  return (await ownershipOf(path)) === null;
}

/** The warning for a project file left out because this user does not control it. */
export function notOursWarning(path: string, reason: string): string {
  return `${path} not loaded: ${reason}; only files you own (or root owns) that other users cannot write are read as project configuration`;
}
