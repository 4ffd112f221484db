/**
 * What a path looked like before a patch: read once per path while planning, then used to
 * verify hunks, to roll back a failed write, to detect edits made while a patch awaited
 * approval, and as the turn diff's baseline.
 */
import type { BigIntStats } from "node:fs";
import { lstat, readFile, readlink, realpath, stat } from "node:fs/promises";
import { InvalidUtf8Error } from "./errors.js";

export interface FileSnapshot {
  /** Absolute path as the patch names it. */
  readonly path: string;
  /** Something (file, directory, link) exists at `path`. */
  readonly exists: boolean;
  /** Contents when `path` is (or links to) a readable regular file. */
  readonly bytes: Buffer | null;
  /** Why `bytes` is null: the read error (ENOENT when nothing is there). */
  readonly readError: unknown;
  /** Permission bits of the file (after following links); null when absent. */
  readonly mode: number | null;
  /** Where a write lands: the link target for a link to a file, else `path`. */
  readonly writeTarget: string;
  /** The link's target when `path` itself is a symlink (to restore it on rollback). */
  readonly linkTarget: string | null;
  /** Identity and version of what is at `path` (`missing` if nothing), to notice later edits. */
  readonly stamp: string;
  /**
   * When the patch read `path` through the client's editor (EditorFiles): the text the editor
   * holds, unsaved changes included, which is then the file's content before the patch; null
   * when the editor had nothing to say (the disk's `bytes` count). Absent when not asked.
   */
  readonly editorText?: string | null | undefined;
}

const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** Decode as strict UTF-8 (a BOM is kept as text); throws InvalidUtf8Error. */
export function decodeUtf8(bytes: Uint8Array): string {
  try {
    return utf8.decode(bytes);
  } catch {
    throw new InvalidUtf8Error();
  }
}

const MISSING = "missing";

function stampParts(info: BigIntStats): string {
  return `${info.dev}:${info.ino}:${info.size}:${info.mtimeNs}:${info.ctimeNs}`;
}

/** lstat of `path` (and stat through a link) as a comparable string; `missing` if absent. */
async function probe(path: string): Promise<{ stamp: string; isLink: boolean; mode: number | null }> {
  const link = await lstat(path, { bigint: true }).catch(() => null);
  if (link === null) return { stamp: MISSING, isLink: false, mode: null };
  if (!link.isSymbolicLink())
    return { stamp: stampParts(link), isLink: false, mode: Number(link.mode & 0o7777n) };
  const target = await stat(path, { bigint: true }).catch(() => null);
  return {
    stamp: `${stampParts(link)}>${target ? stampParts(target) : "dangling"}`,
    isLink: true,
    mode: target ? Number(target.mode & 0o7777n) : null,
  };
}

/** Current stamp of `path`: cheap (one or two stats), to detect changes since planning. */
export async function stampOf(path: string): Promise<string> {
  return (await probe(path)).stamp;
}

export async function readSnapshot(path: string): Promise<FileSnapshot> {
  const { stamp, isLink, mode } = await probe(path);
  let bytes: Buffer | null = null;
  let readError: unknown = null;
  try {
    // Read even when lstat found nothing, for the exact error (ENOENT, or ENOTDIR under a file).
    bytes = await readFile(path);
  } catch (error) {
    readError = error;
  }
  if (stamp === MISSING) {
    return {
      path,
      exists: false,
      bytes: null,
      readError,
      mode: null,
      writeTarget: path,
      linkTarget: null,
      stamp,
    };
  }
  // Write through a symlink to a file as a plain write would, instead of replacing the link.
  const writeTarget = isLink && bytes !== null ? await realpath(path).catch(() => path) : path;
  const linkTarget = isLink ? await readlink(path).catch(() => null) : null;
  return {
    path,
    exists: true,
    bytes,
    readError,
    mode: bytes === null ? null : mode,
    writeTarget,
    linkTarget,
    stamp,
  };
}
