/**
 * Bounded reads of a SKILL.md. Discovery reads only the first 64 KiB (the front matter must end
 * within it); a `$name` mention reads the whole file, which may be at most 1 MiB (a larger one is
 * refused, not cut: half of a skill's instructions could mislead the model). Nothing past a bound
 * is read, so a 400 MB SKILL.md costs no more memory than a small one. The file is opened
 * non-blocking and checked to be a regular file before any read, so a FIFO or a device named
 * SKILL.md (or swapped in after the caller's stat) cannot hang the reader.
 */
import { constants } from "node:fs";
import { type FileHandle, open } from "node:fs/promises";
import { SkillFileError } from "./skill-front-matter.js";

/** How much of a SKILL.md discovery reads: its front matter must end within these bytes. */
export const MAX_FRONT_MATTER_BYTES = 64 * 1024;
/** The largest SKILL.md a `$name` mention injects. */
export const MAX_SKILL_FILE_BYTES = 1024 * 1024;

export interface SkillHead {
  /** The file's first MAX_FRONT_MATTER_BYTES at most, decoded as UTF-8. */
  text: string;
  /** False when the file goes on past `text`. */
  complete: boolean;
}

/**
 * The start of a SKILL.md, for its front matter; null when it cannot be opened (gone since the
 * listing). Throws SkillFileError when it is not a regular file.
 */
export async function readSkillHead(path: string): Promise<SkillHead | null> {
  return withRegularFile(path, async (handle) => {
    const bytes = await readUpTo(handle, MAX_FRONT_MATTER_BYTES + 1);
    const complete = bytes.length <= MAX_FRONT_MATTER_BYTES;
    return { text: bytes.subarray(0, MAX_FRONT_MATTER_BYTES).toString("utf8"), complete };
  });
}

/**
 * A whole SKILL.md; null when it cannot be opened. Throws SkillFileError when it is not a regular
 * file or is larger than MAX_SKILL_FILE_BYTES (only one byte past the bound is ever read).
 */
export async function readSkillBody(path: string): Promise<string | null> {
  return withRegularFile(path, async (handle) => {
    const bytes = await readUpTo(handle, MAX_SKILL_FILE_BYTES + 1);
    if (bytes.length > MAX_SKILL_FILE_BYTES)
      throw new SkillFileError(`${path} is larger than the 1 MiB a SKILL.md may have`);
    return bytes.toString("utf8");
  });
}

async function withRegularFile<T>(path: string, use: (handle: FileHandle) => Promise<T>): Promise<T | null> {
  const flags = constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY;
  const handle = await open(path, flags).catch(() => null);
  if (!handle) return null;
  try {
    if (!(await handle.stat()).isFile()) throw new SkillFileError("not a regular file");
    return await use(handle);
  } finally {
    await handle.close();
  }
}

/** At most `limit` bytes from the start of the file (fewer at its end). */
async function readUpTo(handle: FileHandle, limit: number): Promise<Buffer> {
  const buffer = Buffer.alloc(limit);
  let filled = 0;
  while (filled < limit) {
    const { bytesRead } = await handle.read(buffer, filled, limit - filled, filled);
    if (bytesRead === 0) break;
    filled += bytesRead;
  }
  return buffer.subarray(0, filled);
}
