/**
 * File I/O for fs/* that never blocks on what is not a regular file: opens are non-blocking (a
 * FIFO never hangs the request), and reads stop at a bound.
 */
import { constants, type Stats } from "node:fs";
import { open, stat } from "node:fs/promises";
import { RpcError } from "./protocol/jsonrpc.js";

const { O_NONBLOCK, O_RDONLY } = constants;
/** Bytes read at a time once the file's stated size is read. */
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
