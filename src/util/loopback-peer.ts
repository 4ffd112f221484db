/**
 * Who is on the other end of a loopback TCP connection, judged from /proc: is it confined
 * relative to this process (a command inside a tscodex sandbox, which has network access and so
 * can reach 127.0.0.1)? A key-less local server uses this to refuse sandboxed callers: the Host
 * check stops web pages, not local processes.
 *
 * The connection's client port is looked up in /proc/net/tcp{,6} for its socket inode, the
 * process holding that inode is found under /proc/PID/fd, and it counts as confined when it
 * is in another PID namespace (bwrap), or has no_new_privs or a seccomp filter that this
 * process lacks (both backends set them, and neither can be undone). Linux only.
 */
import { readdir, readFile, readlink } from "node:fs/promises";
import { isIP } from "node:net";

/** `confined`: a sandboxed process; `unknown`: no process found (another user's, or it left). */
export type PeerVerdict = "confined" | "unconfined" | "unknown";

interface Confinement {
  pidNamespace: string;
  noNewPrivs: boolean;
  seccomp: boolean;
}

/** The verdict for a connection from `clientPort` to `serverPort` on this machine. */
export async function loopbackPeerVerdict(clientPort: number, serverPort: number): Promise<PeerVerdict> {
  const inode = await socketInode(clientPort, serverPort);
  if (inode === null) return "unknown";
  const holders = await socketHolders(inode);
  if (holders.length === 0) return "unknown";
  const self = await confinementOf("self");
  if (!self) return "unknown";
  const peers = await Promise.all(holders.map((pid) => confinementOf(String(pid))));
  // Any holder confined (a sandboxed process may share its socket): confined.
  for (const peer of peers) {
    if (!peer) return "unknown";
    const confined =
      peer.pidNamespace !== self.pidNamespace ||
      (peer.noNewPrivs && !self.noNewPrivs) ||
      (peer.seccomp && !self.seccomp);
    if (confined) return "confined";
  }
  return "unconfined";
}

/** True for 127.0.0.0/8, ::1 and IPv4-mapped loopback. */
export function isLoopbackAddress(address: string): boolean {
  const plain = address.startsWith("::ffff:") ? address.slice(7) : address;
  if (isIP(plain) === 4) return plain.startsWith("127.");
  return plain === "::1";
}

/** The inode of the client-side socket: local port = clientPort, remote port = serverPort. */
async function socketInode(clientPort: number, serverPort: number): Promise<string | null> {
  const local = clientPort.toString(16).toUpperCase().padStart(4, "0");
  const remote = serverPort.toString(16).toUpperCase().padStart(4, "0");
  for (const table of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    const text = await readFile(table, "utf8").catch(() => "");
    for (const line of text.split("\n").slice(1)) {
      const fields = line.trim().split(/\s+/);
      const [, localAddr, remoteAddr] = fields;
      if (!localAddr?.endsWith(`:${local}`) || !remoteAddr?.endsWith(`:${remote}`)) continue;
      const inode = fields[9];
      if (inode && inode !== "0") return inode;
    }
  }
  return null;
}

/** Every process with the socket open. */
async function socketHolders(inode: string): Promise<number[]> {
  const wanted = `socket:[${inode}]`;
  const pids = (await readdir("/proc").catch(() => [] as string[])).filter((name) => /^\d+$/.test(name));
  const found = await Promise.all(
    pids.map(async (pid) => {
      const fds = await readdir(`/proc/${pid}/fd`).catch(() => [] as string[]);
      for (const fd of fds) {
        if ((await readlink(`/proc/${pid}/fd/${fd}`).catch(() => "")) === wanted) return true;
      }
      return false;
    }),
  );
  return pids.filter((_, i) => found[i]).map(Number);
}

async function confinementOf(pid: string): Promise<Confinement | null> {
  try {
    const [status, pidNamespace] = await Promise.all([
      readFile(`/proc/${pid}/status`, "utf8"),
      readlink(`/proc/${pid}/ns/pid`),
    ]);
    const field = (name: string): string => new RegExp(`^${name}:\\s*(\\d+)`, "m").exec(status)?.[1] ?? "0";
    return { pidNamespace, noNewPrivs: field("NoNewPrivs") === "1", seccomp: field("Seccomp") !== "0" };
  } catch {
    return null;
  }
}
