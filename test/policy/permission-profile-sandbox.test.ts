/**
 * Permission profiles through `tscodex sandbox -P NAME -- CMD`, on both backends (issue 39):
 * a profile's domain rules run the command behind the managed proxy, in a network namespace that
 * reaches only the proxy. Hosts are names of the test's own (TSCODEX_PROXY_HOSTS_FILE), all on a
 * loopback HTTP server, so `allow_local_binding = true` as in Codex's own observation; never the
 * internet. Also: a filesystem deny and the subtree a narrower rule reopens, and bad profiles
 * refused before anything runs.
 */
import { mkdir, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { runCli } from "../support/cli.js";
import { sandboxBackends } from "../support/sandbox-probe.js";
import { missing, requireProgram } from "../support/skips.js";
import { type TempDir, tmpdir } from "../support/tmpdir.js";

const backends = await sandboxBackends();

/** The target: answers every request with its Host header; counts what it got. */
let target: Server;
let port = 0;
const seen: string[] = [];
let home: TempDir;
let work: TempDir;
let hostsFile = "";

beforeAll(async () => {
  target = createServer((request, response) => {
    seen.push(`${request.method} ${request.headers.host}`);
    response.end(`hello from ${request.headers.host}\n`);
  });
  await new Promise<void>((resolve) => target.listen(0, "127.0.0.1", resolve));
  port = (target.address() as { port: number }).port;
});
afterAll(async () => {
  await new Promise((resolve) => target.close(resolve));
});

const PROFILES = `
[permissions.web]
description = "the workspace and a few test hosts"
extends = ":workspace"
[permissions.web.network]
enabled = true
allow_local_binding = true
[permissions.web.network.domains]
"allowed.bar.test" = "allow"
"*.deep.test" = "allow"
"bad.deep.test" = "deny"
"**.apex.test" = "allow"

[permissions.strict]
extends = ":workspace"
[permissions.strict.network]
enabled = true
[permissions.strict.network.domains]
"allowed.bar.test" = "allow"

[permissions.ronet]
extends = ":read-only"
[permissions.ronet.network]
enabled = true

[permissions.limited]
extends = ":workspace"
[permissions.limited.network]
enabled = true
mode = "limited"
allow_local_binding = true
[permissions.limited.network.domains]
"allowed.bar.test" = "allow"

[permissions.secret]
extends = ":workspace"
[permissions.secret.filesystem.":workspace_roots"]
"secret" = "deny"

[permissions.reopened]
extends = "secret"
[permissions.reopened.filesystem.":workspace_roots"]
"secret/public" = "read"
`;

beforeEach(async () => {
  home = await tmpdir("tscodex-profile-home-");
  work = await tmpdir("tscodex-profile-work-");
  hostsFile = join(home.path, "hosts");
  const names = ["allowed.bar.test", "other.bar.test", "a.b.deep.test", "bad.deep.test", "apex.test"];
  await writeFile(hostsFile, names.map((name) => `127.0.0.1 ${name}`).join("\n"));
  await writeFile(join(home.path, "config.toml"), `default_permissions = ":read-only"\n${PROFILES}`);
  seen.length = 0;
  return async () => {
    await home.cleanup();
    await work.cleanup();
  };
});

/** `tscodex sandbox -P profile --backend name -- sh -c script` in the work dir. */
const sandbox = (profile: string, backend: string, script: string) =>
  runCli(["sandbox", "-P", profile, "--backend", backend, "--", "sh", "-c", script], {
    cwd: work.path,
    home: home.path,
    env: { TSCODEX_PROXY_HOSTS_FILE: hostsFile },
  });

/** curl through the environment's proxy: status, the x-proxy-error header, the body. */
const curl = (url: string, extra = "") =>
  `curl -s -m 10 ${extra} -o /tmp/body.$$ -D /tmp/head.$$ -w '%{http_code}' '${url}'; echo " $(grep -i '^x-proxy-error' /tmp/head.$$ | tr -d '\\r') $(cat /tmp/body.$$)"; rm -f /tmp/body.$$ /tmp/head.$$`;

describe.each(backends)("permission profiles under $name", ({ name, status }) => {
  const skip = missing(status, `the permission profile checks under ${name}`);

  it.skipIf(skip)(
    "an allowed host is reached through the proxy; others get 403 with the reason",
    async () => {
      requireProgram("curl");
      const script = [
        `echo "A $(${curl(`http://allowed.bar.test:${port}/`)})"`,
        `echo "B $(${curl(`http://other.bar.test:${port}/`)})"`,
        `echo "C $(${curl(`http://a.b.deep.test:${port}/`)})"`,
        `echo "D $(${curl(`http://bad.deep.test:${port}/`)})"`,
        `echo "E $(${curl(`http://apex.test:${port}/`)})"`,
        `echo "ENV $HTTP_PROXY $ALL_PROXY $CODEX_NETWORK_PROXY_ACTIVE $NODE_USE_ENV_PROXY"`,
      ].join("; ");
      const result = await sandbox("web", name, script);
      expect(result.code, result.stderr).toBe(0);
      const line = (tag: string) =>
        result.stdout.split("\n").find((text) => text.startsWith(`${tag} `)) ?? "";
      expect(line("A")).toContain(`200  hello from allowed.bar.test:${port}`);
      expect(line("B")).toMatch(/403 x-proxy-error: blocked-by-allowlist .*"reason":"not_allowed"/);
      expect(line("C")).toContain("200  hello from a.b.deep.test");
      expect(line("D")).toMatch(/403 x-proxy-error: blocked-by-denylist .*"reason":"denied"/);
      expect(line("E")).toContain("200  hello from apex.test");
      expect(line("ENV")).toBe("ENV http://127.0.0.1:3128 socks5h://127.0.0.1:8081 1 1");
      // The blocks are reported as they happen, naming the host and why.
      expect(result.stderr).toContain('Network access to "other.bar.test" was blocked');
      expect(seen).toEqual([
        `GET allowed.bar.test:${port}`,
        `GET a.b.deep.test:${port}`,
        `GET apex.test:${port}`,
      ]);
    },
  );

  it.skipIf(skip)("nothing but the proxy: direct TCP, a raw IP and curl --noproxy fail", async () => {
    requireProgram("curl");
    const script = [
      `(echo > /dev/tcp/127.0.0.1/${port}) 2>/dev/null && echo TCP-OPEN || echo TCP-REFUSED`,
      `node -e "require('net').connect(${port},'127.0.0.1').on('connect',()=>{console.log('NODE-OPEN');process.exit()}).on('error',()=>console.log('NODE-REFUSED'))"`,
      `curl -s -m 5 --noproxy '*' http://allowed.bar.test:${port}/ >/dev/null && echo NOPROXY-OPEN || echo NOPROXY-REFUSED`,
      `echo "SOCKS $(curl -s -m 10 -x "$ALL_PROXY" http://allowed.bar.test:${port}/)"`,
      `grep -c ':' /proc/net/dev`,
    ].join("; ");
    const result = await sandbox("web", name, script);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain("TCP-REFUSED");
    expect(result.stdout).toContain("NODE-REFUSED");
    expect(result.stdout).toContain("NOPROXY-REFUSED");
    expect(result.stdout).toContain(`SOCKS hello from allowed.bar.test:${port}`);
    // Only lo in the namespace (the header lines have no colon... one line per interface).
    expect(result.stdout.trim().split("\n").at(-1)).toBe("1");
    expect(seen).toEqual([`GET allowed.bar.test:${port}`]);
  });

  it.skipIf(skip)("a name resolving to loopback stays blocked without allow_local_binding", async () => {
    requireProgram("curl");
    const result = await sandbox("strict", name, `echo "L $(${curl(`http://allowed.bar.test:${port}/`)})"`);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/L 403 x-proxy-error: blocked-by-policy .*"reason":"not_allowed_local"/);
    expect(seen).toEqual([]);
  });

  it.skipIf(skip)("limited mode lets GET through and refuses POST", async () => {
    requireProgram("curl");
    const script = [
      `echo "GET $(${curl(`http://allowed.bar.test:${port}/`)})"`,
      `echo "POST $(${curl(`http://allowed.bar.test:${port}/`, "-X POST -d x=1")})"`,
    ].join("; ");
    const result = await sandbox("limited", name, script);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain(`GET 200  hello from allowed.bar.test:${port}`);
    expect(result.stdout).toMatch(/POST 403 x-proxy-error: blocked-by-method-policy/);
    expect(seen).toEqual([`GET allowed.bar.test:${port}`]);
  });

  it.skipIf(skip)(
    "a denied directory is unreadable and unwritable; a narrower rule reopens inside it",
    async () => {
      await mkdir(join(work.path, "secret", "public"), { recursive: true });
      await writeFile(join(work.path, "secret", "s.txt"), "top secret\n");
      await writeFile(join(work.path, "secret", "public", "p.txt"), "public\n");
      const probe = [
        "cat secret/s.txt 2>&1",
        "ls secret 2>&1",
        "(echo x > secret/new.txt) 2>&1",
        "cat secret/public/p.txt 2>&1",
        "echo ok > written.txt && cat written.txt",
      ].join("; ");
      // As Codex: every access to the denied directory is "Permission denied".
      const denied = await sandbox("secret", name, probe);
      expect(denied.code, denied.stderr).toBe(0);
      expect(denied.stdout.split("\n").slice(0, 4)).toEqual([
        "cat: secret/s.txt: Permission denied",
        "ls: cannot open directory 'secret': Permission denied",
        "sh: 1: cannot create secret/new.txt: Permission denied",
        "cat: secret/public/p.txt: Permission denied",
      ]);
      expect(denied.stdout).toContain("ok\n");
      // Reopened below: only the reopened subtree is readable; the rest stays out of reach.
      const reopened = await sandbox("reopened", name, probe);
      expect(reopened.code, reopened.stderr).toBe(0);
      expect(reopened.stdout).not.toContain("top secret");
      expect(reopened.stdout).toContain("ls: cannot open directory 'secret': Permission denied");
      expect(reopened.stdout).toMatch(/cannot create secret\/new.txt/);
      expect(reopened.stdout).toContain("public\n");
    },
  );

  it.skipIf(skip)(
    "network enabled without domain rules is the host's network, even on a read-only filesystem",
    async () => {
      requireProgram("curl");
      const script = `curl -s -m 5 http://127.0.0.1:${port}/ || echo REFUSED; touch f.txt 2>/dev/null || echo READ-ONLY`;
      const open = await sandbox("ronet", name, script);
      expect(open.stdout).toContain(`hello from 127.0.0.1:${port}`);
      expect(open.stdout).toContain("READ-ONLY");
      expect((await sandbox(":read-only", name, script)).stdout).toContain("REFUSED");
    },
  );

  it.skipIf(skip)("the command's exit status is its own; built-ins run as -P", async () => {
    expect((await sandbox(":workspace", name, "exit 7")).code).toBe(7);
    const readOnly = await sandbox(":read-only", name, "echo x > f.txt 2>&1 || echo DENIED");
    expect(readOnly.stdout).toContain("DENIED");
  });
});

describe("bad profiles are refused before anything runs", () => {
  it("an unknown -P, a cycle", async () => {
    const unknown = await sandbox("nosuch", "auto", "echo RAN");
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain("default_permissions refers to undefined profile `nosuch`");
    expect(unknown.stdout).not.toContain("RAN");
    const loops = `[permissions.loop_a]\nextends = "loop_b"\n[permissions.loop_b]\nextends = "loop_a"\n`;
    await writeFile(join(home.path, "config.toml"), loops);
    const cycle = await sandbox("loop_a", "auto", "echo RAN");
    expect(cycle.code).toBe(1);
    expect(cycle.stderr).toMatch(
      /permissions profile inheritance cycle detected: loop_\w -> loop_\w -> loop_\w/,
    );
    expect(cycle.stdout).not.toContain("RAN");
  });
});
