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
import { lstat, stat } from "node:fs/promises";

const WORLD_WRITABLE = 0o002;

/** Why `path` may not steer this user's session, or null when it may; null too when it is missing. */
export async function notOursBecause(path: string): Promise<string | null> {
  const me = process.getuid?.();
  if (me === undefined) return null;
  let link: Stats;
  let target: Stats;
  try {
    link = await lstat(path);
    target = link.isSymbolicLink() ? await stat(path) : link;
  } catch {
    return null;
  }
  for (const info of link === target ? [target] : [link, target])
    if (info.uid !== me && info.uid !== 0) return `owned by uid ${info.uid}, not by you (uid ${me}) or root`;
  // A link's own mode is always 0777 and means nothing: only the target's counts.
  if (target.mode & WORLD_WRITABLE) return "writable by other users";
  return null;
}

/** Whether `path` exists and this user controls it (see the module comment). */
export async function isOurs(path: string): Promise<boolean> {
  const exists = await lstat(path).then(
    () => true,
    () => false,
  );
  return exists && (await notOursBecause(path)) === null;
}

/** The warning for a project file left out because this user does not control it. */
export function notOursWarning(path: string, reason: string): string {
  return `${path} not loaded: ${reason}; only files you own (or root owns) that other users cannot write are read as project configuration`;
}
