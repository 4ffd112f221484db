/**
 * The SOCKS5 listener over real sockets: curl --socks5-hostname reaches an allowed host and
 * gets reply 2 for a refused one; raw clients for IPv4 and IPv6 addresses, a pipelined
 * handshake, an unsupported auth method, and UDP ASSOCIATE (reply 7).
 */
import { once } from "node:events";
import { connect, type Socket } from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  allow,
  curl,
  deny,
  type ProxyFixture,
  proxyWith,
  rules,
  startEcho,
  startTarget,
  type Target,
} from "./support.js";

let target: Target;
let echo: Awaited<ReturnType<typeof startEcho>>;
let fixture: ProxyFixture | undefined;

beforeAll(async () => {
  target = await startTarget();
  echo = await startEcho();
});
afterAll(async () => {
  await target.close();
  await echo.close();
});
afterEach(async () => {
  await fixture?.proxy.close();
  fixture = undefined;
});

async function open(routeRules: Parameters<typeof proxyWith>[0]): Promise<ProxyFixture> {
  fixture = await proxyWith(routeRules);
  return fixture;
}

/** A socket to the route's SOCKS5 port that collects what it receives. */
async function socksClient(
  f: ProxyFixture,
): Promise<{ socket: Socket; read(count: number): Promise<Buffer> }> {
  const socket = connect(f.route.socks.port, "127.0.0.1");
  await once(socket, "connect");
  let received = Buffer.alloc(0);
  let closed = false;
  const waiters: (() => void)[] = [];
  const wake = () => {
    for (const waiter of waiters.splice(0)) waiter();
  };
  socket.on("data", (chunk: Buffer) => {
    received = Buffer.concat([received, chunk]);
    wake();
  });
  socket.on("close", () => {
    closed = true;
    wake();
  });
  const read = async (count: number): Promise<Buffer> => {
    while (received.length < count) {
      if (closed) throw new Error(`closed after ${received.length} of ${count} bytes`);
      await new Promise<void>((resolve) => waiters.push(resolve));
    }
    const bytes = received.subarray(0, count);
    received = received.subarray(count);
    return bytes;
  };
  return { socket, read };
}

const portBytes = (port: number) => [port >> 8, port & 255];

describe("SOCKS5", () => {
  it("reaches an allowed host by name (curl --socks5-hostname)", async () => {
    const f = await open(rules({ domains: allow("allowed.bar.test") }));
    const result = await curl([
      "--socks5-hostname",
      `127.0.0.1:${f.route.socks.port}`,
      `http://allowed.bar.test:${target.port}/s`,
    ]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("target saw GET /s host=allowed.bar.test");
  });

  it("answers reply 2 for a refused host and reports it", async () => {
    const f = await open(rules({ domains: [...allow("*.bar.test"), ...deny("bad.bar.test")] }));
    const result = await curl(["-x", f.socksUrl, `http://bad.bar.test:${target.port}/`]);
    expect(result.code).toBe(97);
    expect(result.stderr).toContain("Can't complete SOCKS5 connection to bad.bar.test. (2)");
    expect(f.blocks).toEqual([
      { host: "bad.bar.test", port: target.port, protocol: "socks5Tcp", reason: "denied" },
    ]);
  });

  it("connects to an IPv4 address and tunnels bytes, with the request pipelined after the greeting", async () => {
    const f = await open(rules({ domains: allow("127.0.0.1") }));
    const { socket, read } = await socksClient(f);
    socket.write(Buffer.from([5, 1, 0, 5, 1, 0, 1, 127, 0, 0, 1, ...portBytes(echo.port)]));
    socket.write("early payload");
    expect([...(await read(2))]).toEqual([5, 0]);
    const reply = await read(10);
    expect([...reply.subarray(0, 4)]).toEqual([5, 0, 0, 1]);
    expect((await read(13)).toString()).toBe("early payload");
    socket.write("more");
    expect((await read(4)).toString()).toBe("more");
    socket.destroy();
  });

  it("reads IPv6 addresses in their canonical form and applies the rules to them", async () => {
    const f = await open(rules({ domains: allow("allowed.bar.test") }));
    const { socket, read } = await socksClient(f);
    const loopback6 = [...Array(15).fill(0), 1];
    socket.write(Buffer.from([5, 1, 0, 5, 1, 0, 4, ...loopback6, ...portBytes(echo.port)]));
    expect([...(await read(2))]).toEqual([5, 0]);
    expect((await read(10))[1]).toBe(2);
    expect(f.blocks).toEqual([
      { host: "::1", port: echo.port, protocol: "socks5Tcp", reason: "not_allowed" },
    ]);
  });

  it("refuses clients without the no-authentication method", async () => {
    const f = await open(rules({ domains: allow("*") }));
    const { socket, read } = await socksClient(f);
    socket.write(Buffer.from([5, 1, 2]));
    expect([...(await read(2))]).toEqual([5, 0xff]);
    await once(socket, "close");
  });

  it("answers UDP ASSOCIATE and BIND with reply 7 (not supported)", async () => {
    const f = await open(rules({ domains: allow("*") }));
    for (const command of [3, 2]) {
      const { socket, read } = await socksClient(f);
      socket.write(Buffer.from([5, 1, 0, 5, command, 0, 1, 127, 0, 0, 1, 0, 53]));
      expect([...(await read(2))]).toEqual([5, 0]);
      expect((await read(10))[1]).toBe(7);
      await once(socket, "close");
    }
    expect(f.blocks).toEqual([]);
  });
});
