/**
 * File I/O for fs/* that neither follows a link swapped in after the path was judged nor blocks
 * on what is not a regular file: opens are non-blocking (a FIFO never hangs the request),
 * writes open with O_NOFOLLOW and are re-judged on the file actually opened
 * (/proc/self/fd) before a byte changes, and reads stop at a bound.
 */
import { constants, type Stats } from "node:fs";
import { type FileHandle, lstat, open, readlink, stat, unlink } from "node:fs/promises";
import { RpcError } from "./protocol/jsonrpc.js";

const { O_CREAT, O_EXCL, O_NOFOLLOW, O_NONBLOCK, O_RDONLY, O_WRONLY } = constants;
const WRITE_FLAGS = O_WRONLY | O_NOFOLLOW | O_NONBLOCK;
/** Bytes moved per read or write when copying. */
const CHUNK = 1024 * 1024;

/**
 * The whole of the regular file at `path` (links followed: reads go anywhere the server can
 * read), at most `limit` bytes. -32600 for anything else: a device, FIFO, socket or directory is
 * refused before it is opened and again after (a swap in between), a file over `limit` (or that
 * grows past it while read) is refused whole, never answered in part.
 */
export async function readRegular(method: string, path: string, limit: number): Promise<Buffer> {
  const tooLarge = (size: number) =>
    RpcError.invalidRequest(
      `${method}: ${path} is ${size} bytes; files over ${limit} bytes are not read whole`,
    );
  const checked = (info: Stats): Stats => {
    if (!info.isFile()) throw notRegular(method, path, info, "read");
    if (info.size > limit) throw tooLarge(info.size);
    return info;
  };
  checked(await stat(path));
  const handle = await open(path, O_RDONLY | O_NONBLOCK);
  try {
    const info = checked(await handle.stat());
    const chunks: Buffer[] = [];
    let total = 0;
    // One byte past the limit tells a file that grew from one that ends there.
    for (;;) {
      const buffer = Buffer.allocUnsafe(Math.min(Math.max(info.size - total, CHUNK), limit + 1 - total));
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, null);
      if (bytesRead === 0) break;
      chunks.push(buffer.subarray(0, bytesRead));
      total += bytesRead;
      if (total > limit) throw tooLarge(total);
    }
    return Buffer.concat(chunks, total);
  } finally {
    await handle.close();
  }
}

/**
 * `path` (a real path the caller judged) opened for writing, created if missing, not truncated
 * yet. Refuses a link as the last component (ELOOP), anything but a regular file, and a file
 * whose real path, read back from the open descriptor, `allows` refuses (a directory on the way
 * swapped for a link after the check); an empty file it created there is removed again.
 */
export async function openForWrite(
  method: string,
  path: string,
  allows: (realPath: string) => boolean,
  refusal: (realPath: string) => RpcError,
): Promise<FileHandle> {
  // Opening a FIFO for writing would fail (no reader) or feed one: say what it is instead.
  const before = await lstat(path).catch(() => null);
  if (before && !before.isFile() && !before.isSymbolicLink())
    throw notRegular(method, path, before, "written");
  let created = true;
  const handle = await open(path, WRITE_FLAGS | O_CREAT | O_EXCL, 0o666).catch(
    (error: NodeJS.ErrnoException) => {
      if (error.code !== "EEXIST") throw error;
      created = false;
      return open(path, WRITE_FLAGS);
    },
  );
  try {
    const info = await handle.stat();
    if (!info.isFile()) throw notRegular(method, path, info, "written");
    const opened = await readlink(`/proc/self/fd/${handle.fd}`);
    if (!allows(opened)) {
      if (created) await unlink(opened).catch(() => undefined);
      throw refusal(opened);
    }
    return handle;
  } catch (error) {
    await handle.close();
    throw error;
  }
}

/** Replaces the contents of `handle` (from openForWrite) with `bytes`, then closes it. */
export async function writeAll(handle: FileHandle, bytes: Uint8Array): Promise<void> {
  try {
    await handle.truncate(0);
    await handle.writeFile(bytes);
  } finally {
    await handle.close();
  }
}

/**
 * Copies the regular file at `source` (a link or anything else refused: the caller decided
 * what a link means) into the file `openTarget` opens (openForWrite), with the source's
 * permission bits; the target is opened only once the source is known to be a regular file.
 */
export async function copyRegular(
  method: string,
  source: string,
  openTarget: () => Promise<FileHandle>,
): Promise<void> {
  const from = await open(source, O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
  try {
    const info = await from.stat();
    if (!info.isFile()) throw notRegular(method, source, info, "copied");
    const target = await openTarget();
    try {
      await target.truncate(0);
      const buffer = Buffer.allocUnsafe(CHUNK);
      let position = 0;
      for (;;) {
        const { bytesRead } = await from.read(buffer, 0, CHUNK, null);
        if (bytesRead === 0) break;
        await target.write(buffer, 0, bytesRead, position);
        position += bytesRead;
      }
      await target.chmod(info.mode & 0o777);
    } finally {
      await target.close();
    }
  } finally {
    await from.close();
  }
}

function notRegular(method: string, path: string, info: Stats, verb: string): RpcError {
  return RpcError.invalidRequest(
    `${method} refused: ${path} is ${kindOf(info)}; only regular files are ${verb}`,
  );
}

function kindOf(info: Stats): string {
  if (info.isDirectory()) return "a directory";
  if (info.isCharacterDevice()) return "a character device";
  if (info.isBlockDevice()) return "a block device";
  if (info.isFIFO()) return "a FIFO";
  if (info.isSocket()) return "a socket";
  return "not a regular file";
}
