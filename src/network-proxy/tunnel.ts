/**
 * Sockets of a route: connecting to checked addresses, splicing two sockets into a tunnel, and
 * the set of live sockets a route destroys when it closes.
 */
import { connect, type Socket } from "node:net";

/** How long an upstream TCP connect may take before the next address (or a 502). */
const CONNECT_TIMEOUT_MS = 10_000;

/** The live sockets of one route; closing the route destroys them all. */
export class SocketSet {
  private readonly sockets = new Set<Socket>();
  private closed = false;

  /** Tracks `socket` until it closes; a socket added after close() is destroyed at once. */
  add(socket: Socket): void {
    if (this.closed) {
      socket.destroy();
      return;
    }
    // A kept-alive upstream socket is announced again for each request it carries.
    if (this.sockets.has(socket)) return;
    this.sockets.add(socket);
    socket.once("close", () => this.sockets.delete(socket));
  }

  get size(): number {
    return this.sockets.size;
  }

  destroyAll(): void {
    this.closed = true;
    for (const socket of this.sockets) socket.destroy();
    this.sockets.clear();
  }
}

/**
 * A TCP connection to the first of `addresses` that accepts (they were all checked); rejects
 * with the last error. The socket is tracked in `sockets` from the start.
 */
export async function connectFirst(
  addresses: readonly string[],
  port: number,
  sockets: SocketSet,
): Promise<Socket> {
  let lastError: unknown = new Error("no address to connect to");
  for (const address of addresses) {
    try {
      return await connectOne(address, port, sockets);
    } catch (error) {
      lastError = error;
    }
  }
  throw lastError;
}

function connectOne(address: string, port: number, sockets: SocketSet): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: address, port, allowHalfOpen: true, noDelay: true });
    sockets.add(socket);
    const fail = (error: Error) => {
      socket.destroy();
      reject(error);
    };
    socket.setTimeout(CONNECT_TIMEOUT_MS, () => fail(new Error(`connect to ${address}:${port} timed out`)));
    socket.once("error", fail);
    socket.once("connect", () => {
      socket.setTimeout(0);
      socket.off("error", fail);
      resolve(socket);
    });
  });
}

/** How long a side whose peer has gone may stay idle while it flushes what it was sent. */
const DRAIN_IDLE_MS = 30_000;

/**
 * Bytes both ways until both sides end; an end (FIN) is passed on, so a half-closed side can
 * still receive. When one side is gone, the other goes with it: at once after an error or an
 * abrupt close, else once it has flushed what it was sent (or stayed idle DRAIN_IDLE_MS).
 */
export function splice(a: Socket, b: Socket): void {
  a.pipe(b);
  b.pipe(a);
  followPeer(a, b);
  followPeer(b, a);
}

function followPeer(socket: Socket, peer: Socket): void {
  socket.on("error", () => peer.destroy());
  socket.once("close", (hadError) => {
    if (peer.destroyed) return;
    if (hadError || !socket.readableEnded || peer.writableFinished) {
      peer.destroy();
      return;
    }
    peer.once("finish", () => peer.destroy());
    peer.setTimeout(DRAIN_IDLE_MS, () => peer.destroy());
  });
}
