/**
 * Reading a child's output pipe without creating garbage per read.
 *
 * A stream socket normally gets a fresh 64 KiB buffer from libuv for every read, and those
 * buffers live until V8 next collects: a command printing 50 MB left ~35 MB of them behind
 * before a GC ran, and the process kept that memory. Here the pipe's handle is moved to a
 * socket that reads into one process-wide buffer (net.Socket's `onread` option); each chunk
 * is handed over synchronously and the next read overwrites it, so a consumer copies what
 * it keeps (HeadTailBuffer does).
 *
 * The move relies on the handle Node's child_process gives its pipe sockets (`_handle`, the
 * same kind `net.Socket({ handle })` takes). Where that is missing (another runtime, a
 * future Node), the pipe is read the ordinary way, with the same callbacks.
 */
import { Socket } from "node:net";
import type { Readable } from "node:stream";

/** Libuv's own read size: one read per wakeup on a busy pipe, as before. */
const READ_BUFFER_BYTES = 64 * 1024;

/**
 * One buffer for every pipe of the process: each read is delivered before the next one
 * starts (one thread), and consumers never keep the chunk.
 */
let shared: Buffer | null = null;

/** Called with each chunk; the chunk is valid during the call only (copy what you keep). */
export type ChunkConsumer = (chunk: Buffer) => void;

interface StreamHandle {
  readStart(): number;
  readStop(): number;
  useUserBuffer?(buffer: Uint8Array): void;
}

/**
 * Reads `pipe` (a child's stdout or stderr from `spawn`) into the shared buffer, calling
 * `onChunk` per read and `onClose` once when the pipe is closed (EOF, error or destroy).
 * Returns the stream to destroy to stop reading early.
 */
export function readPipe(pipe: Readable, onChunk: ChunkConsumer, onClose: () => void): Readable {
  const handle = (pipe as Readable & { _handle?: StreamHandle | null })._handle;
  if (!(pipe instanceof Socket) || !handle || typeof handle.useUserBuffer !== "function") {
    pipe.on("data", onChunk).once("close", onClose);
    return pipe;
  }
  shared ??= Buffer.allocUnsafe(READ_BUFFER_BYTES);
  // Detach the handle from child_process's socket (destroying a socket without a handle
  // closes nothing and only emits its 'close'), then adopt it with the user buffer.
  (pipe as unknown as { _handle: StreamHandle | null })._handle = null;
  pipe.destroy();
  const socket = new Socket({
    handle,
    readable: true,
    writable: false,
    onread: {
      buffer: shared,
      callback: (bytes: number, buffer: Uint8Array) => {
        onChunk((buffer as Buffer).subarray(0, bytes));
      },
    },
  } as ConstructorParameters<typeof Socket>[0] & { handle: StreamHandle });
  // Read errors (EIO from a vanished writer) end the pipe like EOF does.
  socket.on("error", () => {});
  socket.once("close", onClose);
  return socket;
}
