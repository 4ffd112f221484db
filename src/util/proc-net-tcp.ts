/**
 * The kernel's table of TCP sockets (/proc/net/tcp and tcp6): for a loopback connection, the
 * client-side socket's owner uid (the user whose process created it) and inode (what
 * /proc/PID/fd links name). Each table is read once per lookup, however many connections it
 * answers for; only rows to the server's own ports are decoded. Linux only.
 */
import { readFile } from "node:fs/promises";
import { isIP } from "node:net";
import { endianness } from "node:os";

/** Both ends of a loopback TCP connection, as the server sees them. */
export interface LoopbackConnection {
  clientAddress: string;
  clientPort: number;
  serverAddress: string;
  serverPort: number;
}

/** The client-side socket: who created it and its inode. */
export interface SocketOwner {
  uid: number;
  inode: string;
}

/**
 * The client-side socket of every loopback connection to one of `connections`' server ends,
 * by `connectionKey` (a connection asked about but absent: closed, or not on this machine).
 * The read runs off the event loop (reading a table walks the kernel's whole connection hash,
 * a few milliseconds however few sockets there are); tcp6 is read only for connections tcp
 * does not have (an IPv6 client socket, IPv4-mapped ones included).
 */
export async function findClientSockets(
  connections: readonly LoopbackConnection[],
): Promise<Map<string, SocketOwner>> {
  const servers = new Set(connections.map((c) => `${plainAddress(c.serverAddress)}:${c.serverPort}`));
  const found = new Map<string, SocketOwner>();
  for (const table of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    if (connections.every((c) => found.has(connectionKey(c)))) break;
    const text = await readFile(table, "latin1").catch(() => "");
    for (const line of text.split("\n").slice(1)) {
      const fields = line.trim().split(/\s+/);
      const [, local, remote, , , , , uid, , inode] = fields;
      if (!local || !remote || !uid || !inode || inode === "0") continue;
      const server = endpoint(remote);
      if (server === null || !servers.has(server)) continue;
      const client = endpoint(local);
      if (client !== null) found.set(`${client}>${server}`, { uid: Number(uid), inode });
    }
  }
  return found;
}

/** `client>server`, with IPv4-mapped addresses written as plain IPv4. */
export function connectionKey(connection: LoopbackConnection): string {
  const { clientAddress, clientPort, serverAddress, serverPort } = connection;
  return `${plainAddress(clientAddress)}:${clientPort}>${plainAddress(serverAddress)}:${serverPort}`;
}

function plainAddress(address: string): string {
  const rest = address.toLowerCase().startsWith("::ffff:") ? address.slice(7) : address;
  return isIP(rest) === 4 ? rest : address.toLowerCase();
}

/** `ADDR:PORT` from `HEXADDR:HEXPORT`; only loopback addresses are decoded (others: null). */
function endpoint(field: string): string | null {
  const [hex, port] = field.split(":");
  if (!hex || !port) return null;
  const address = hex.length === 8 ? ipv4(hex) : hex.length === 32 ? ipv6Loopback(hex) : null;
  return address === null ? null : `${address}:${Number.parseInt(port, 16)}`;
}

/** The table prints each 32-bit word of an address in host byte order. */
function wordBytes(word: string): number[] {
  const bytes = [0, 2, 4, 6].map((at) => Number.parseInt(word.slice(at, at + 2), 16));
  return endianness() === "LE" ? bytes.reverse() : bytes;
}

function ipv4(hex: string): string {
  return wordBytes(hex).join(".");
}

/** `::1`, or the IPv4 of an IPv4-mapped address; null for any other IPv6 address. */
function ipv6Loopback(hex: string): string | null {
  const words = [0, 8, 16, 24].map((at) => hex.slice(at, at + 8).toUpperCase());
  if (words[0] !== "00000000" || words[1] !== "00000000") return null;
  const third = wordBytes(words[2] ?? "").join(",");
  if (third === "0,0,255,255") return ipv4(words[3] ?? "");
  if (third === "0,0,0,0" && wordBytes(words[3] ?? "").join(",") === "0,0,0,1") return "::1";
  return null;
}
