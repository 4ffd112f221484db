/**
 * The key-less servers' caller check (util/loopback-peer.ts) against real sockets: a connection
 * from this process, from another user's process, from a sandboxed command (both backends), a
 * closed one, and a check that runs out of time.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { connect, createServer, type Server, type Socket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { prepareSandboxedCommand } from "../../src/policy/sandbox/index.js";
import { type LoopbackConnection, LoopbackPeers } from "../../src/util/loopback-peer.js";
import { notRoot, OTHER_UID } from "../support/peer-clients.js";
import { sandboxBackends } from "../support/sandbox-probe.js";

const backends = await sandboxBackends();
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A server on `host`, and the next connection it accepts. */
async function listen(host: string): Promise<{ port: number; accepted: Promise<Socket> }> {
  const server: Server = createServer();
  const accepted = once(server, "connection").then(([socket]) => socket as Socket);
  server.listen(0, host);
  await once(server, "listening");
  cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("no port");
  return { port: address.port, accepted };
}

/** The connection as the server sees it. */
function connectionOf(socket: Socket): LoopbackConnection {
  cleanups.push(() => void socket.destroy());
  return {
    clientAddress: socket.remoteAddress ?? "",
    clientPort: socket.remotePort ?? 0,
    serverAddress: socket.localAddress ?? "",
    serverPort: socket.localPort ?? 0,
  };
}

/** Connects from this process; the server's side of the connection. */
async function connectHere(host: string): Promise<LoopbackConnection> {
  const { port, accepted } = await listen(host);
  const client = connect(port, host);
  cleanups.push(() => void client.destroy());
  return connectionOf(await accepted);
}

/** A `node -e` child (argv wrapped by `wrap`) that connects to `port` and stays connected. */
async function connectFromChild(
  port: number,
  accepted: Promise<Socket>,
  wrap: (argv: string[]) => Promise<string[]>,
  options: { uid?: number; gid?: number } = {},
): Promise<LoopbackConnection> {
  const script = `require("node:net").connect(${port}, "127.0.0.1"); setInterval(() => {}, 1000);`;
  const [command, ...args] = await wrap([process.execPath, "-e", script]);
  const child: ChildProcess = spawn(command ?? "", args, {
    cwd: "/",
    stdio: "ignore",
    detached: true,
    ...options,
  });
  cleanups.push(async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = once(child, "exit");
    process.kill(-(child.pid ?? 0), "SIGKILL");
    await exited;
  });
  return connectionOf(await accepted);
}

const asIs = async (argv: string[]) => argv;

describe("loopbackPeers.verdict", () => {
  it("a connection from this process is unconfined, over IPv4, IPv6 and IPv4-mapped IPv6", async () => {
    const peers = new LoopbackPeers();
    expect(await peers.verdict(await connectHere("127.0.0.1"))).toBe("unconfined");
    const ipv6 = await listen("::1").catch(() => null);
    if (ipv6 === null) return console.warn("skipped the IPv6 half: no ::1 here");
    const client = connect(ipv6.port, "::1");
    cleanups.push(() => void client.destroy());
    expect(await peers.verdict(connectionOf(await ipv6.accepted))).toBe("unconfined");
    // A dual-stack server sees an IPv4 client as ::ffff:127.0.0.1.
    const dual = await listen("::");
    const mapped = connect(dual.port, "127.0.0.1");
    cleanups.push(() => void mapped.destroy());
    const connection = connectionOf(await dual.accepted);
    expect(connection.clientAddress).toBe("::ffff:127.0.0.1");
    expect(await peers.verdict(connection)).toBe("unconfined");
  });

  it.skipIf(notRoot("the other-user verdict"))("another user's connection is other-user", async () => {
    const { port, accepted } = await listen("127.0.0.1");
    const connection = await connectFromChild(port, accepted, asIs, { uid: OTHER_UID, gid: OTHER_UID });
    expect(await new LoopbackPeers().verdict(connection)).toBe("other-user");
  });

  for (const { name, status } of backends) {
    it.skipIf(!status.available)(`a command inside the ${name} sandbox is confined`, async () => {
      const { port, accepted } = await listen("127.0.0.1");
      const policy = { mode: "workspace-write" as const, writableRoots: [], networkAccess: true };
      const wrap = async (argv: string[]) =>
        (await prepareSandboxedCommand(argv, "/", policy, { backend: name })).argv;
      expect(await new LoopbackPeers().verdict(await connectFromChild(port, accepted, wrap))).toBe(
        "confined",
      );
    });
  }

  it("a connection that is gone is unknown", async () => {
    const { port, accepted } = await listen("127.0.0.1");
    const client = connect(port, "127.0.0.1");
    const connection = connectionOf(await accepted);
    client.destroy();
    await once(client, "close");
    expect(await new LoopbackPeers().verdict(connection)).toBe("unknown");
  });

  it("a walk that runs out of time answers busy (the servers refuse it)", async () => {
    const connection = await connectHere("127.0.0.1");
    expect(await new LoopbackPeers({ walkBudgetMs: 0 }).verdict(connection)).toBe("busy");
  });
});
