/**
 * The route's SOCKS5 listener (RFC 1928): the no-authentication method only, CONNECT to a
 * domain name, IPv4 or IPv6 address, decided like an HTTP request (protocol `socks5Tcp`). A
 * refused CONNECT gets reply 2 ("connection not allowed by ruleset"); BIND and UDP ASSOCIATE
 * get reply 7 (command not supported): there is no UDP relay.
 */
import { createServer, isIPv4, type Server, type Socket } from "node:net";
import { normalizeHost } from "./patterns.js";
import type { RouteContext } from "./route-context.js";
import { connectFirst, splice } from "./tunnel.js";

/** A client must finish its handshake within this. */
const HANDSHAKE_TIMEOUT_MS = 30_000;

const VERSION = 5;
const NO_AUTH = 0;
const NO_ACCEPTABLE_METHOD = 0xff;
const CMD_CONNECT = 1;

/** Reply codes (RFC 1928 §6). */
const REPLY = {
  succeeded: 0,
  generalFailure: 1,
  notAllowed: 2,
  hostUnreachable: 4,
  connectionRefused: 5,
  commandNotSupported: 7,
  addressTypeNotSupported: 8,
} as const;

export function createSocksServer(route: RouteContext): Server {
  return createServer({ allowHalfOpen: true }, (socket) => {
    route.sockets.add(socket);
    socket.on("error", () => socket.destroy());
    socket.setTimeout(HANDSHAKE_TIMEOUT_MS, () => socket.destroy());
    negotiate(route, socket).catch(() => socket.destroy());
  });
}

async function negotiate(route: RouteContext, socket: Socket): Promise<void> {
  const reader = new ByteReader(socket);
  const [version, methodCount] = await reader.read(2);
  if (version !== VERSION) return void socket.destroy();
  const methods = await reader.read(methodCount ?? 0);
  if (!methods.includes(NO_AUTH)) return void socket.end(Buffer.from([VERSION, NO_ACCEPTABLE_METHOD]));
  socket.write(Buffer.from([VERSION, NO_AUTH]));

  const [requestVersion, command, , addressType] = await reader.read(4);
  if (requestVersion !== VERSION) return void socket.destroy();
  const host = await readAddress(reader, addressType);
  const port = (await reader.read(2)).readUInt16BE(0);
  if (host === undefined) return reply(socket, REPLY.addressTypeNotSupported);
  if (command !== CMD_CONNECT) return reply(socket, REPLY.commandNotSupported);

  const decision = await route.policy.decide({ host: normalizeHost(host), port, protocol: "socks5Tcp" });
  if (decision.kind === "block") {
    route.reportBlock(decision.block);
    return reply(socket, REPLY.notAllowed);
  }
  if (decision.kind === "unresolvable") return reply(socket, REPLY.hostUnreachable);
  let upstream: Socket;
  try {
    upstream = await connectFirst(decision.addresses, port, route.sockets);
  } catch (error) {
    const refused = (error as NodeJS.ErrnoException).code === "ECONNREFUSED";
    return reply(socket, refused ? REPLY.connectionRefused : REPLY.hostUnreachable);
  }
  if (socket.destroyed) return void upstream.destroy();
  socket.setTimeout(0);
  socket.write(successReply(upstream));
  const early = reader.release();
  if (early.length > 0) upstream.write(early);
  splice(socket, upstream);
}

/** DST.ADDR of a request; undefined for an unknown address type. */
async function readAddress(reader: ByteReader, addressType: number | undefined): Promise<string | undefined> {
  if (addressType === 1) return [...(await reader.read(4))].join(".");
  if (addressType === 3) {
    const [length] = await reader.read(1);
    return (await reader.read(length ?? 0)).toString("latin1");
  }
  if (addressType === 4) {
    const bytes = await reader.read(16);
    const groups = Array.from({ length: 8 }, (_, i) => bytes.readUInt16BE(i * 2).toString(16));
    // The URL parser writes the address in its canonical (compressed) form, as patterns are.
    return new URL(`http://[${groups.join(":")}]/`).hostname;
  }
  return undefined;
}

/** A failure reply (bound address 0.0.0.0:0), then the connection ends. */
function reply(socket: Socket, code: number): void {
  socket.end(Buffer.from([VERSION, code, 0, 1, 0, 0, 0, 0, 0, 0]));
}

/** Success, with the proxy's end of the upstream connection as the bound address. */
function successReply(upstream: Socket): Buffer {
  const address = upstream.localAddress && isIPv4(upstream.localAddress) ? upstream.localAddress : "0.0.0.0";
  const port = Buffer.alloc(2);
  port.writeUInt16BE(upstream.localPort ?? 0);
  return Buffer.concat([
    Buffer.from([VERSION, REPLY.succeeded, 0, 1, ...address.split(".").map(Number)]),
    port,
  ]);
}

/** Reads exact byte counts from a socket during the handshake, then hands the socket back. */
class ByteReader {
  private buffered = Buffer.alloc(0);
  private waiting:
    | { count: number; resolve: (bytes: Buffer) => void; reject: (error: Error) => void }
    | undefined;
  private ended = false;
  private readonly onData = (chunk: Buffer) => {
    this.buffered = Buffer.concat([this.buffered, chunk]);
    this.settle();
  };
  private readonly onEnd = () => {
    this.ended = true;
    this.settle();
  };

  constructor(private readonly socket: Socket) {
    socket.on("data", this.onData);
    socket.once("end", this.onEnd);
    socket.once("close", this.onEnd);
  }

  read(count: number): Promise<Buffer> {
    return new Promise((resolve, reject) => {
      this.waiting = { count, resolve, reject };
      this.settle();
    });
  }

  /** Stops reading; returns what arrived beyond the handshake (pipelined payload). */
  release(): Buffer {
    this.socket.off("data", this.onData);
    this.socket.off("end", this.onEnd);
    this.socket.off("close", this.onEnd);
    this.socket.pause();
    const rest = this.buffered;
    this.buffered = Buffer.alloc(0);
    return rest;
  }

  private settle(): void {
    const waiting = this.waiting;
    if (!waiting) return;
    if (this.buffered.length >= waiting.count) {
      this.waiting = undefined;
      const bytes = this.buffered.subarray(0, waiting.count);
      this.buffered = this.buffered.subarray(waiting.count);
      waiting.resolve(bytes);
    } else if (this.ended) {
      this.waiting = undefined;
      waiting.reject(new Error("SOCKS5 client closed during the handshake"));
    }
  }
}
