/**
 * The proxy's decision without sockets: pattern normalisation and matching, Codex's order
 * (limited-mode guard, deny, allowlist, local guard), which addresses count as local, and the
 * addresses handed to the connect step being the ones checked.
 */
import { describe, expect, it } from "vitest";
import { isLocalAddress } from "../../src/network-proxy/addresses.js";
import { RoutePolicy } from "../../src/network-proxy/decide.js";
import { compilePattern, normalizeHost, patternMatches } from "../../src/network-proxy/patterns.js";
import { allow, deny, HOSTS, resolveFromTable, rules } from "./support.js";

describe("normalizeHost", () => {
  it.each([
    ["  Example.COM ", "example.com"],
    ["example.com.", "example.com"],
    ["example.com:8080", "example.com"],
    ["[::1]", "::1"],
    ["[::1]:443", "::1"],
    ["::1", "::1"],
    ["*.Bar.Test.", "*.bar.test"],
  ])("%j → %j", (raw, expected) => {
    expect(normalizeHost(raw)).toBe(expected);
  });
});

describe("domain patterns", () => {
  const table: [pattern: string, host: string, matches: boolean][] = [
    ["allowed.bar.test", "allowed.bar.test", true],
    ["allowed.bar.test", "x.allowed.bar.test", false],
    ["*.bar.test", "allowed.bar.test", true],
    ["*.bar.test", "a.b.bar.test", true],
    ["*.bar.test", "bar.test", false],
    ["*.bar.test", "xbar.test", false],
    ["**.bar.test", "bar.test", true],
    ["**.bar.test", "a.b.bar.test", true],
    ["**.bar.test", "xbar.test", false],
    ["*", "anything.example", true],
    ["ALLOWED.bar.test.", "allowed.bar.test", true],
    ["allowed.bar.test:443", "allowed.bar.test", true],
    ["[::1]", "::1", true],
  ];
  it.each(table)("%s matches %s: %s", (pattern, host, matches) => {
    expect(patternMatches(compilePattern(pattern), host)).toBe(matches);
  });
});

describe("isLocalAddress", () => {
  it.each([
    ["127.0.0.1", true],
    ["127.9.9.9", true],
    ["10.1.2.3", true],
    ["172.16.0.1", true],
    ["172.31.255.255", true],
    ["172.32.0.1", false],
    ["192.168.1.1", true],
    ["169.254.1.1", true],
    ["100.64.0.1", true],
    ["100.128.0.1", false],
    ["0.0.0.0", true],
    ["::", true],
    ["::1", true],
    ["fd12::1", true],
    ["fc00::1", true],
    ["fe80::1", true],
    ["::ffff:127.0.0.1", true],
    ["::ffff:10.0.0.1", true],
    ["8.8.8.8", false],
    ["2001:db8::1", false],
    ["not an address", true],
  ])("%s: %s", (address, local) => {
    expect(isLocalAddress(address)).toBe(local);
  });
});

describe("RoutePolicy.decide", () => {
  const http = (host: string, method = "GET") => ({ host, port: 80, protocol: "http" as const, method });

  it("blocks everything when there is no allow entry", async () => {
    for (const domains of [[], deny("bad.bar.test")]) {
      const policy = new RoutePolicy(rules({ domains }), resolveFromTable);
      const decision = await policy.decide(http("allowed.bar.test"));
      expect(decision).toEqual({
        kind: "block",
        block: { host: "allowed.bar.test", port: 80, protocol: "http", reason: "not_allowed", method: "GET" },
      });
    }
  });

  it("lets deny win over a wildcard allow, and `*` allow everything else", async () => {
    const policy = new RoutePolicy(
      rules({ domains: [...allow("*"), ...deny("*.bar.test")] }),
      resolveFromTable,
    );
    expect(await policy.decide(http("a.b.bar.test"))).toMatchObject({
      kind: "block",
      block: { reason: "denied" },
    });
    expect(await policy.decide(http("bar.test"))).toEqual({ kind: "connect", addresses: ["127.0.0.1"] });
  });

  it("checks limited mode before the domain rules: only GET, HEAD, OPTIONS; no CONNECT, SOCKS or upgrades", async () => {
    const policy = new RoutePolicy(
      rules({ mode: "limited", domains: [...allow("*.bar.test"), ...deny("bad.bar.test")] }),
      resolveFromTable,
    );
    for (const method of ["GET", "HEAD", "OPTIONS"]) {
      expect((await policy.decide(http("allowed.bar.test", method))).kind).toBe("connect");
    }
    expect(await policy.decide(http("bad.bar.test", "POST"))).toMatchObject({
      block: { reason: "method_not_allowed", method: "POST" },
    });
    expect(await policy.decide(http("bad.bar.test", "GET"))).toMatchObject({ block: { reason: "denied" } });
    for (const protocol of ["https", "socks5Tcp"] as const) {
      expect(await policy.decide({ host: "allowed.bar.test", port: 443, protocol })).toMatchObject({
        block: { reason: "mitm_required", protocol },
      });
    }
    expect(await policy.decide({ ...http("allowed.bar.test"), upgrade: true })).toMatchObject({
      block: { reason: "mitm_required" },
    });
  });

  it("blocks a name with any local address unless local binding is allowed", async () => {
    const guarded = new RoutePolicy(
      rules({ domains: allow("*"), allowLocalBinding: false }),
      resolveFromTable,
    );
    for (const host of ["allowed.bar.test", "private.bar.test", "mixed.bar.test", "localhost", "10.0.0.1"]) {
      expect(await guarded.decide(http(host))).toMatchObject({
        block: { reason: "not_allowed_local", host },
      });
    }
    expect(await guarded.decide(http("public.bar.test"))).toEqual({
      kind: "connect",
      addresses: HOSTS["public.bar.test"],
    });
    const open = new RoutePolicy(rules({ domains: allow("*"), allowLocalBinding: true }), resolveFromTable);
    expect(await open.decide(http("mixed.bar.test"))).toEqual({
      kind: "connect",
      addresses: ["192.0.2.10", "192.168.1.1"],
    });
  });

  it("reaches the loopback literals when an allow entry names them exactly", async () => {
    const policy = new RoutePolicy(
      rules({ domains: allow("localhost", "127.0.0.1", "::1", "10.0.0.1"), allowLocalBinding: false }),
      resolveFromTable,
    );
    expect(await policy.decide(http("localhost"))).toEqual({ kind: "connect", addresses: ["127.0.0.1"] });
    expect(await policy.decide(http("127.0.0.1"))).toEqual({ kind: "connect", addresses: ["127.0.0.1"] });
    expect(await policy.decide(http("::1"))).toEqual({ kind: "connect", addresses: ["::1"] });
    // Only the loopback literals: another private address stays behind the guard.
    expect(await policy.decide(http("10.0.0.1"))).toMatchObject({ block: { reason: "not_allowed_local" } });
  });

  it("resolves once, and not at all for a refused name", async () => {
    const asked: string[] = [];
    const policy = new RoutePolicy(rules({ domains: allow("allowed.bar.test") }), async (host) => {
      asked.push(host);
      return ["127.0.0.1"];
    });
    await policy.decide(http("other.bar.test"));
    await policy.decide(http("allowed.bar.test"));
    expect(asked).toEqual(["allowed.bar.test"]);
  });

  it("reports a name that does not resolve", async () => {
    const policy = new RoutePolicy(rules({ domains: allow("*") }), resolveFromTable);
    expect(await policy.decide(http("nosuch.bar.test"))).toEqual({
      kind: "unresolvable",
      message: "could not resolve nosuch.bar.test (ENOTFOUND)",
    });
  });
});
