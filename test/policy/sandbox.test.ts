/**
 * The sandbox runtime: the argv each backend gets, denial detection, killing a sandboxed
 * process tree through runCommand, the Landlock helper's own behaviour, and `tscodex sandbox`.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { mkdir, mkdtemp, rm, symlink } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCommand } from "../../src/exec/spawn.js";
import {
  bwrapBackendStatus,
  containmentStatus,
  detectSandboxBackend,
  isLikelySandboxDenial,
  landlockBackendStatus,
  prepareSandboxedCommand,
  type SandboxPolicy,
} from "../../src/policy/sandbox/index.js";
import { renderCaptured } from "../../src/tools/truncate.js";
import { runCli } from "../support/cli.js";
import { alive } from "../support/processes.js";
import { missing, noSandbox, requireProgram } from "../support/skips.js";

const bwrap = await bwrapBackendStatus();
const landlock = await landlockBackendStatus();
const unsandboxed = await noSandbox("tscodex sandbox running a command");
const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", LANG: "C.UTF-8" };

let base: string;
let ws: string;
let home: string;

beforeAll(async () => {
  // Outside /tmp, which is itself a writable root here.
  base = await mkdtemp(join(existsSync("/var/tmp") ? "/var/tmp" : process.cwd(), ".tscodex-test-sandbox-"));
  ws = join(base, "ws");
  home = join(base, "home");
  await mkdir(join(ws, ".git"), { recursive: true });
  await mkdir(join(ws, ".codex"), { recursive: true });
  await mkdir(join(ws, "nested"), { recursive: true });
  await mkdir(home, { recursive: true });
  await symlink(ws, join(base, "ws-link"));
});

afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

const workspaceWrite = (roots: string[], networkAccess = false): SandboxPolicy => ({
  mode: "workspace-write",
  writableRoots: roots,
  networkAccess,
});
const readOnly: SandboxPolicy = { mode: "read-only", writableRoots: [], networkAccess: false };

/** The flag pairs `--flag VALUE` (and `--bind A B` triples as "A") in order. */
function values(argv: string[], flag: string): string[] {
  return argv.flatMap((arg, i) => (arg === flag ? [argv[i + 1] ?? ""] : []));
}

describe("prepareSandboxedCommand", () => {
  it("only contains danger-full-access commands (the helper's keeper, no sandbox flag)", async () => {
    const argv = ["echo", "hi"];
    const prepared = await prepareSandboxedCommand(argv, "/", {
      mode: "danger-full-access",
      writableRoots: [],
      networkAccess: false,
    });
    const containment = await containmentStatus();
    const expected = containment.available ? [containment.path, "--contain-only", "--", ...argv] : argv;
    expect(prepared).toEqual({ argv: expected, backend: "none" });
    expect(prepared.argv).not.toBe(argv);
  });

  it("picks bwrap when it works, else the helper, and caches the answer", async () => {
    const first = detectSandboxBackend();
    expect(detectSandboxBackend()).toBe(first);
    const expected = bwrap.available ? "bwrap" : landlock.available ? "landlock" : "none";
    expect(await first).toBe(expected);
  });

  describe.skipIf(missing(bwrap, "the bwrap argv checks"))("bwrap", () => {
    it("mounts nothing writable in read-only mode", async () => {
      const { argv, backend } = await prepareSandboxedCommand(["ls", "-l"], ws, readOnly, {
        backend: "bwrap",
      });
      expect(backend).toBe("bwrap");
      expect(argv).not.toContain("--bind");
      for (const flag of ["--new-session", "--die-with-parent", "--unshare-pid", "--unshare-net"]) {
        expect(argv).toContain(flag);
      }
      expect(values(argv, "--cap-drop")).toEqual(["ALL"]);
      expect(values(argv, "--ro-bind")).toEqual(["/", "/proc/sys"]);
      expect(values(argv, "--dev")).toEqual(["/dev"]);
      expect(values(argv, "--proc")).toEqual(["/proc"]);
      expect(values(argv, "--chdir")).toEqual([ws]);
      expect(argv.slice(-3)).toEqual(["--", "ls", "-l"]);
    });

    it("binds real writable roots, folds nested ones, drops missing ones, re-binds control dirs read-only", async () => {
      const policy = workspaceWrite([
        join(base, "ws-link"),
        join(ws, "nested"),
        join(base, "missing"),
        "/tmp",
      ]);
      const { argv } = await prepareSandboxedCommand(["true"], ws, policy, { backend: "bwrap" });
      expect(values(argv, "--bind")).toEqual(["/tmp", ws]);
      expect(values(argv, "--ro-bind")).toEqual(["/", "/proc/sys"]);
      // Also any other .git below /tmp (other tests' repositories): every one is a .git.
      const protectedPaths = values(argv, "--ro-bind-try");
      expect(protectedPaths).toEqual(expect.arrayContaining([join(ws, ".git"), join(ws, ".codex")]));
      for (const path of protectedPaths) expect(path).toMatch(/\/\.(git|codex|tscodex)$/);
      // Read-only re-binds come after the writable binds they sit in.
      expect(argv.lastIndexOf("--bind")).toBeLessThan(argv.indexOf(join(ws, ".git")));
      expect(argv).toContain("--unshare-net");
    });

    it("keeps the network namespace when network access is on", async () => {
      const { argv } = await prepareSandboxedCommand(["true"], ws, workspaceWrite([ws], true), {
        backend: "bwrap",
      });
      expect(argv).not.toContain("--unshare-net");
    });
  });

  describe.skipIf(missing(landlock, "the Landlock argv checks"))("landlock", () => {
    it("passes writable roots, read-only control dirs and the network switch to the helper", async () => {
      const { argv, backend } = await prepareSandboxedCommand(
        ["true"],
        ws,
        workspaceWrite([ws, "/tmp"], true),
        {
          backend: "landlock",
        },
      );
      expect(backend).toBe("landlock");
      expect(argv).toContain("--allow-network");
      expect(values(argv, "--writable")).toEqual(["/tmp", ws, "/dev/shm"]);
      expect(values(argv, "--read-only")).toEqual(
        expect.arrayContaining([join(ws, ".git"), join(ws, ".codex")]),
      );
      expect(argv.slice(-2)).toEqual(["--", "true"]);
    });

    it("gives read-only mode no writable path and no network", async () => {
      const { argv } = await prepareSandboxedCommand(["true"], ws, readOnly, { backend: "landlock" });
      const pidNamespace = landlock.available && landlock.pidNamespace ? ["--pid-namespace"] : [];
      expect(argv.slice(1)).toEqual([...pidNamespace, "--", "true"]);
    });
  });
});

describe("isLikelySandboxDenial", () => {
  it.each([
    "touch: cannot touch '/etc/x': Permission denied",
    "bash: line 1: /etc/x: Read-only file system",
    "bash: socket: Operation not permitted",
    "curl: (6) Could not resolve host: example.com",
    "ping: example.com: Temporary failure in name resolution",
    "bash: connect: Network is unreachable",
    "bash: connect: Connection refused",
    "bash: kill: (1234) - No such process",
    "Error: EACCES: permission denied, open '/etc/x'",
    "Error: getaddrinfo EAI_AGAIN registry.npmjs.org",
  ])("recognises %j", (output) => {
    expect(isLikelySandboxDenial(1, output)).toBe(true);
  });

  it("ignores successes and ordinary failures", () => {
    expect(isLikelySandboxDenial(0, "Permission denied")).toBe(false);
    expect(isLikelySandboxDenial(1, "FAIL src/a.test.ts: expected 1 to be 2")).toBe(false);
    expect(isLikelySandboxDenial(127, "bash: foo: command not found")).toBe(false);
  });
});

/** Live `sleep MARKER` processes (a zombie counts until reaping is up to init: see processes.ts). */
async function livingWith(marker: string): Promise<number[]> {
  const pids: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, "utf8");
      if (cmdline === `sleep\0${marker}\0` && (await alive(Number(entry)))) pids.push(Number(entry));
    } catch {
      // Gone meanwhile.
    }
  }
  return pids;
}

const available = [
  { name: "bwrap" as const, ok: !missing(bwrap, "runCommand under bwrap") },
  { name: "landlock" as const, ok: !missing(landlock, "runCommand under the Landlock helper") },
];

describe.each(available)("runCommand under $name", ({ name, ok }) => {
  const run = async (script: string, options: { timeoutMs?: number; signal?: AbortSignal } = {}) => {
    const prepared = await prepareSandboxedCommand(["bash", "-c", script], ws, workspaceWrite([ws, "/tmp"]), {
      backend: name,
    });
    return runCommand({
      argv: prepared.argv,
      cwd: ws,
      env,
      timeoutMs: options.timeoutMs ?? 10_000,
      ...options,
    });
  };

  it.skipIf(!ok)("passes the exit code and output through", async () => {
    const result = await run("echo out; echo err >&2; exit 7");
    expect(result.exitCode).toBe(7);
    expect(renderCaptured(result.stdout)).toBe("out\n");
    expect(renderCaptured(result.stderr)).toBe("err\n");
  });

  it.skipIf(!ok)("keeps /dev/null, stderr and /tmp usable", async () => {
    const result = await run("echo a > /dev/null && echo b >&2 && mktemp -p /tmp | xargs rm");
    expect(result.exitCode, renderCaptured(result.aggregated)).toBe(0);
    expect(renderCaptured(result.stderr)).toBe("b\n");
  });

  it.skipIf(!ok)("kills the whole sandboxed tree on timeout", async () => {
    const marker = `${900 + Math.floor(Math.random() * 99)}.${process.pid}`;
    const result = await run(`sleep ${marker} & sleep ${marker}; wait`, { timeoutMs: 300 });
    expect(result.timedOut).toBe(true);
    expect(result.durationMs).toBeLessThan(3000);
    await expect.poll(() => livingWith(marker), { timeout: 3000 }).toEqual([]);
  });

  it.skipIf(!ok)("kills the whole sandboxed tree on abort", async () => {
    const marker = `${800 + Math.floor(Math.random() * 99)}.${process.pid}`;
    const controller = new AbortController();
    const pending = run(`sleep ${marker} & sleep ${marker}; wait`, { signal: controller.signal });
    await expect.poll(async () => (await livingWith(marker)).length, { timeout: 3000 }).toBe(2);
    controller.abort();
    const result = await pending;
    expect(result.aborted).toBe(true);
    await expect.poll(() => livingWith(marker), { timeout: 3000 }).toEqual([]);
  });
});

describe.skipIf(missing(landlock, "the Landlock helper's own checks"))("the Landlock helper", () => {
  const helper = landlock.available ? landlock.path : "";

  it("reports a missing command as 127 and a usage error as 125", async () => {
    const missing = await runCommand({
      argv: [helper, "--", "no-such-cmd-xyz"],
      cwd: ws,
      env,
      timeoutMs: 5000,
    });
    expect(missing.exitCode).toBe(127);
    expect(renderCaptured(missing.stderr)).toContain("no-such-cmd-xyz: No such file or directory");
    const usage = await runCommand({ argv: [helper, "--bogus"], cwd: ws, env, timeoutMs: 5000 });
    expect(usage.exitCode).toBe(125);
    expect(renderCaptured(usage.stderr)).toContain("usage: tscodex-sandbox");
  });

  it("without --allow-network denies unix sockets too, unless --allow-unix-sockets; socketpair works", async () => {
    requireProgram("python3");
    const unix =
      "import socket\nsocket.socketpair()\ntry:\n  socket.socket(socket.AF_UNIX).close()\n  print('unix ok')\n" +
      "except PermissionError as e:\n  print('unix', e.errno)\n";
    const run = (flags: string[]) =>
      runCommand({ argv: [helper, ...flags, "--", "python3", "-c", unix], cwd: ws, env, timeoutMs: 5000 });
    expect(renderCaptured((await run([])).aggregated)).toBe("unix 1\n");
    expect(renderCaptured((await run(["--allow-unix-sockets"])).aggregated)).toBe("unix ok\n");
    expect(renderCaptured((await run(["--allow-network"])).aggregated)).toBe("unix ok\n");
  });

  it("denies non-unix sockets without --allow-network", async () => {
    requireProgram("python3");
    const script =
      "import socket\n" +
      "try:\n  socket.socket(socket.AF_INET6)\nexcept PermissionError as e:\n  print('inet6', e.errno)\n" +
      "try:\n  socket.socket(socket.AF_NETLINK, socket.SOCK_RAW)\nexcept PermissionError as e:\n  print('netlink', e.errno)\n";
    const result = await runCommand({
      argv: [helper, "--allow-unix-sockets", "--", "python3", "-c", script],
      cwd: ws,
      env,
      timeoutMs: 5000,
    });
    expect(renderCaptured(result.aggregated)).toBe("inet6 1\nnetlink 1\n");
  });

  it("refuses typing into the terminal (TIOCSTI) even with network allowed", async () => {
    requireProgram("python3");
    const script =
      "import fcntl, termios\ntry:\n  fcntl.ioctl(0, termios.TIOCSTI, b'x')\nexcept OSError as e:\n  print(e.errno)\n";
    const result = await runCommand({
      argv: [helper, "--allow-network", "--", "python3", "-c", script],
      cwd: ws,
      env,
      timeoutMs: 5000,
    });
    expect(renderCaptured(result.aggregated)).toBe("1\n");
  });
});

describe("tscodex sandbox", () => {
  const cli = (args: string[], extraEnv: Record<string, string> = {}) =>
    runCli(["sandbox", ...args], { cwd: ws, home, env: extraEnv, timeoutMs: 15_000 });

  it.skipIf(unsandboxed)("runs the command under the policy and exits with its code", async () => {
    requireProgram("python3");
    const wrote = await cli(["--full-auto", "--", "bash", "-c", "echo hi > cli-out && echo done; exit 3"]);
    expect(wrote.code).toBe(3);
    expect(wrote.stdout).toBe("done\n");
    const denied = await cli(["--", "bash", "-c", "echo hi > cli-ro"]);
    expect(denied.code).toBe(1);
    expect(isLikelySandboxDenial(1, denied.stderr)).toBe(true);
  });

  it.skipIf(missing(landlock, "tscodex sandbox --backend landlock"))(
    "honours --backend and -c sandbox_workspace_write.network_access",
    async () => {
      const script = "python3 -c 'import socket; socket.socket(socket.AF_INET)' && echo net-ok";
      const off = await cli(["--full-auto", "--backend", "landlock", "--", "bash", "-c", script]);
      expect(off.code).toBe(1);
      expect(off.stderr).toContain("Operation not permitted");
      const on = await cli([
        "--full-auto",
        "--backend",
        "landlock",
        "-c",
        "sandbox_workspace_write.network_access=true",
        "--",
        "bash",
        "-c",
        script,
      ]);
      expect(on.stdout).toBe("net-ok\n");
    },
  );

  it("refuses with the fix when no backend works, and still runs danger-full-access", async () => {
    const none = {
      TSCODEX_SANDBOX_BWRAP: "/nonexistent/bwrap",
      TSCODEX_SANDBOX_HELPER: "/nonexistent/helper",
    };
    const refused = await cli(["--full-auto", "--", "true"], none);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("bubblewrap (bwrap) is not installed");
    expect(refused.stderr).toContain("install bubblewrap");
    expect(refused.stderr).toContain("danger-full-access");
    const forced = await cli(["--backend", "landlock", "--", "true"], none);
    expect(forced.stderr).toContain("the Landlock helper is not built");
    const full = await cli(["-s", "danger-full-access", "--", "bash", "-c", "exit 4"], none);
    expect(full.code).toBe(4);
  });
});
