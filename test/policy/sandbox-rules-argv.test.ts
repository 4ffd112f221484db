/**
 * The pure half of fsRules and proxyRoutes: the rule layout (order from the least specific
 * path, control dirs inside write rules as reads but not inside a narrower deny, missing paths
 * dropped, symlinked rule paths recreated), the argv both backends get, and the refusals of
 * prepareSandboxedCommand when the Landlock helper cannot enforce a route or rule (its status
 * is faked here: this machine can make a network namespace).
 */
import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { bwrapArgv } from "../../src/policy/sandbox/bwrap.js";
import { resolveRuleLayout } from "../../src/policy/sandbox/fs-rules.js";
import { prepareSandboxedCommand, SandboxUnavailableError } from "../../src/policy/sandbox/index.js";
import { landlockArgv, seccompOnlyArgv } from "../../src/policy/sandbox/landlock.js";
import type { SandboxPolicy } from "../../src/policy/sandbox/types.js";

vi.mock("../../src/policy/sandbox/detect.js", async (original) => ({
  ...(await original<typeof import("../../src/policy/sandbox/detect.js")>()),
  landlockBackendStatus: async () => ({
    available: true,
    path: "/opt/helper",
    notes: [],
    abi: 6,
    pidNamespace: true,
    netNamespace: false,
  }),
}));

let base: string;

beforeEach(async () => {
  base = await mkdtemp(join(tmpdir(), "tscodex-test-rules-argv-"));
  await mkdir(join(base, "ws", "secret", "open"), { recursive: true });
  await mkdir(join(base, "ws", ".git"));
  await mkdir(join(base, "ws", "secret", ".codex"));
  await writeFile(join(base, "ws", "key.pem"), "k");
  await symlink(join(base, "ws"), join(base, "link"));
});

afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

const policy = (extra: Partial<SandboxPolicy> = {}): SandboxPolicy => ({
  mode: "workspace-write",
  writableRoots: [],
  networkAccess: false,
  ...extra,
});

describe("resolveRuleLayout", () => {
  it("orders from the least specific path and protects control dirs only where a write rule governs", async () => {
    const ws = join(base, "ws");
    const layout = await resolveRuleLayout(
      [
        { path: join(ws, "secret", "open"), access: "read" },
        { path: join(ws, "secret"), access: "deny" },
        { path: join(ws, "key.pem"), access: "deny" },
        { path: ws, access: "write" },
        { path: join(base, "missing"), access: "write" },
        { path: "/", access: "read" },
      ],
      policy(),
    );
    expect(layout.root).toBe("read");
    expect(layout.mounts).toEqual([
      { access: "write", path: ws },
      { access: "read", path: join(ws, ".git") },
      { access: "deny", path: join(ws, "key.pem"), directory: false, reopened: false },
      { access: "deny", path: join(ws, "secret"), directory: true, reopened: true },
      { access: "read", path: join(ws, "secret", "open") },
    ]);
  });

  it("drops a read or write rule inside one with the same access", async () => {
    const ws = join(base, "ws");
    const layout = await resolveRuleLayout(
      [
        { path: ws, access: "read" },
        { path: join(ws, "secret"), access: "read" },
        { path: join(base, "link"), access: "read" },
        { path: join(base, "missing"), access: "deny" },
      ],
      policy(),
    );
    expect(layout.mounts).toEqual([{ access: "read", path: ws }]);
  });

  it("keeps a symlinked rule path as a link to recreate when `/` is not covered", async () => {
    const layout = await resolveRuleLayout([{ path: join(base, "link"), access: "read" }], policy());
    expect(layout.root).toBeNull();
    expect(layout.mounts).toEqual([{ access: "read", path: join(base, "ws") }]);
    expect(layout.links).toEqual([{ path: join(base, "link"), target: join(base, "ws") }]);
  });
});

describe("argv builders", () => {
  const rules = {
    root: null,
    mounts: [
      { access: "write" as const, path: "/w" },
      { access: "deny" as const, path: "/w/d", directory: true, reopened: true },
      { access: "read" as const, path: "/w/d/r" },
      { access: "deny" as const, path: "/w/f", directory: false, reopened: false },
    ],
    links: [{ path: "/lib64", target: "/usr/lib64" }],
  };

  it("bwrap without `/`: no host root, rules in order, denies read-only last, the helper bound in", () => {
    const argv = bwrapArgv("bwrap", ["helper", "--", "true"], "/w", {
      layout: { writable: [], readOnly: [] },
      rules,
      deniedFile: "/tmp/denied",
      networkAccess: false,
      sockets: ["/run/p.sock"],
      helper: "/opt/helper",
    });
    const text = argv.join(" ");
    expect(text).not.toContain("--ro-bind / /");
    expect(text).toContain(
      "--bind-try /w /w --perms 0111 --tmpfs /w/d --ro-bind-try /w/d/r /w/d/r --ro-bind /tmp/denied /w/f " +
        "--ro-bind /run/p.sock /run/p.sock --symlink /usr/lib64 /lib64 --ro-bind /opt/helper /opt/helper " +
        "--remount-ro /w/d --remount-ro / --chdir /w",
    );
    expect(argv).toContain("--unshare-net");
  });

  it("the helper gets routes, restricted reads and the rules in order", () => {
    const sockets = {
      networkAccess: false,
      allowUnixSockets: false,
      proxyRoutes: [{ port: 3128, socketPath: "/run/p.sock" }],
    };
    expect(landlockArgv("h", ["true"], { writable: [], readOnly: [] }, sockets, true, rules)).toEqual([
      "h",
      "--proxy-route",
      "3128=/run/p.sock",
      "--pid-namespace",
      "--restrict-reads",
      "--writable",
      "/dev/shm",
      "--writable",
      "/w",
      "--deny",
      "/w/d",
      "--read-only",
      "/w/d/r",
      "--deny",
      "/w/f",
      "--",
      "true",
    ]);
    expect(seccompOnlyArgv("h", ["true"], sockets)).toEqual([
      "h",
      "--seccomp-only",
      "--proxy-route",
      "3128=/run/p.sock",
      "--",
      "true",
    ]);
  });
});

describe("refusals (Landlock helper without a network namespace)", () => {
  it("proxy routes are refused, naming the rule and the backend, even in read-only", async () => {
    const refused = prepareSandboxedCommand(
      ["true"],
      base,
      policy({ mode: "read-only", proxyRoutes: [{ port: 3128, socketPath: join(base, "p.sock") }] }),
      { backend: "landlock" },
    );
    await expect(refused).rejects.toBeInstanceOf(SandboxUnavailableError);
    await expect(refused).rejects.toThrow(
      /network domain rules need a network namespace that reaches only the proxy; the Landlock helper cannot create one here/,
    );
  });

  it("`/ = write` is refused by the Landlock helper", async () => {
    const refused = prepareSandboxedCommand(
      ["true"],
      base,
      policy({ fsRules: [{ path: "/", access: "write" }] }),
      {
        backend: "landlock",
      },
    );
    await expect(refused).rejects.toThrow(/`\/ = write` cannot be enforced by the Landlock helper/);
  });

  it("without routes or rules the helper's argv is as before", async () => {
    const prepared = await prepareSandboxedCommand(["true"], base, policy({ writableRoots: [base] }), {
      backend: "landlock",
    });
    expect(prepared.argv[0]).toBe("/opt/helper");
    expect(prepared.argv).not.toContain("--proxy-route");
    expect(prepared.argv).not.toContain("--restrict-reads");
  });
});
