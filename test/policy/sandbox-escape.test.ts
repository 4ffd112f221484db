/**
 * The sandbox escape suite (issue 4): every escape attempt is a test, run under bubblewrap
 * and under the Landlock helper, in each sandbox mode. Blocked in read-only and
 * workspace-write (writing inside cwd allowed in workspace-write), allowed in
 * danger-full-access; a blocked attempt's output must read as a sandbox denial.
 *
 * The workspace lives outside /tmp, because /tmp is itself a writable root.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCommand } from "../../src/exec/spawn.js";
import {
  bwrapBackendStatus,
  isLikelySandboxDenial,
  landlockBackendStatus,
  prepareSandboxedCommand,
  type SandboxPolicy,
} from "../../src/policy/sandbox/index.js";
import { renderCaptured } from "../../src/tools/truncate.js";
import { requireProgram } from "../support/skips.js";

type Mode = SandboxPolicy["mode"];
const MODES: Mode[] = ["read-only", "workspace-write", "danger-full-access"];
const isRoot = process.getuid?.() === 0;

const backends = [
  { name: "bwrap" as const, status: await bwrapBackendStatus() },
  { name: "landlock" as const, status: await landlockBackendStatus() },
];
for (const { name, status } of backends) {
  if (!status.available) console.warn(`sandbox-escape: skipping the ${name} backend: ${status.reason}`);
}
if (!isRoot) console.warn("sandbox-escape: not root: the /etc write and /proc/sys checks need uid 0");

let base: string;
let ws: string;
let home: string;
let sibling: string;
let outside: string;
/** A $TSCODEX_HOME inside a writable root (/tmp). */
let tscodexHome: string;
let server: Server;
let port: number;
let accepted = 0;
/** A unix socket server on the host (docker.sock, ssh-agent, dbus stand-in). */
let unixServer: Server;
let unixPath: string;
let unixAccepted = 0;
const etcFiles: string[] = [];

beforeAll(async () => {
  const parent = existsSync("/var/tmp") ? "/var/tmp" : process.cwd();
  base = await mkdtemp(join(parent, ".tscodex-test-sandbox-"));
  ws = join(base, "ws");
  home = join(base, "home");
  sibling = join(base, "sibling");
  outside = join(base, "outside");
  for (const dir of [join(ws, ".git"), home, sibling, outside]) await mkdir(dir, { recursive: true });
  await writeFile(join(ws, ".git", "config"), "[core]\n");
  await symlink(outside, join(ws, "link-out"));
  // A nested repository and a submodule's gitfile.
  await mkdir(join(ws, "sub", "inner", ".git"), { recursive: true });
  await writeFile(join(ws, "sub", "inner", ".git", "config"), "[core]\n");
  await mkdir(join(ws, "sub", "mod"), { recursive: true });
  await writeFile(join(ws, "sub", "mod", ".git"), "gitdir: ../../.git/modules/mod\n");
  tscodexHome = await mkdtemp("/tmp/tscodex-test-home-");
  await writeFile(join(tscodexHome, "config.toml"), 'sandbox_mode = "read-only"\n');
  server = createServer((socket) => {
    accepted++;
    socket.end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as { port: number }).port;
  unixPath = join(outside, "agent.sock");
  unixServer = createServer((socket) => {
    unixAccepted++;
    socket.end();
  });
  await new Promise<void>((resolve) => unixServer.listen(unixPath, resolve));
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  await new Promise((resolve) => unixServer.close(resolve));
  await rm(base, { recursive: true, force: true });
  await rm(tscodexHome, { recursive: true, force: true });
  for (const file of etcFiles) await rm(file, { force: true });
});

function policy(mode: Mode): SandboxPolicy {
  return { mode, writableRoots: [ws, "/tmp"], networkAccess: false, readOnlyPaths: [tscodexHome] };
}

interface Run {
  exitCode: number;
  output: string;
  durationMs: number;
}

async function sandboxed(backend: "bwrap" | "landlock", mode: Mode, script: string): Promise<Run> {
  const prepared = await prepareSandboxedCommand(["bash", "-c", script], ws, policy(mode), { backend });
  const result = await runCommand({
    argv: prepared.argv,
    cwd: ws,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home, LANG: "C.UTF-8" },
    timeoutMs: 10_000,
  });
  return {
    exitCode: result.exitCode,
    output: renderCaptured(result.aggregated),
    durationMs: result.durationMs,
  };
}

function expectBlocked(run: Run): void {
  expect(run.exitCode, run.output).not.toBe(0);
  expect(isLikelySandboxDenial(run.exitCode, run.output), run.output).toBe(true);
}

function expectAllowed(run: Run): void {
  expect(run.exitCode, run.output).toBe(0);
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
}

function exited(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once("exit", () => resolve());
  });
}

/** A fresh token per test: a write into an existing file is seen by its token. */
let runToken = "";

/** A write attempt: blocked unless full access (or, for cwd, workspace-write). */
function writeCase(
  title: string,
  target: () => string,
  script: (target: string) => string,
  allowedIn: Mode[] = ["danger-full-access"],
  landed: (target: string) => boolean = existsSync,
) {
  return { title, target, script, allowedIn, landed };
}

/** The file holds this test's token (for targets that exist before the attempt). */
function holdsToken(target: string): boolean {
  return readFileSync(target, "utf8").includes(runToken);
}

/** A fresh file outside every root, mode 0644, mtime now. */
function outsideFile(): string {
  const path = join(outside, `meta-${Math.random().toString(36).slice(2)}`);
  writeFileSync(path, "x");
  return path;
}

const writeCases = [
  writeCase(
    "chmods a file outside the roots (setuid)",
    outsideFile,
    (t) => `chmod 4777 ${t}`,
    ["danger-full-access"],
    (t) => (statSync(t).mode & 0o4000) !== 0,
  ),
  writeCase(
    "sets the times of a file outside the roots",
    outsideFile,
    (t) => `touch -d 2001-01-01 ${t}`,
    ["danger-full-access"],
    (t) => statSync(t).mtime.getUTCFullYear() === 2001,
  ),
  writeCase(
    "writes inside cwd",
    () => join(ws, `inside-${Math.random().toString(36).slice(2)}`),
    (t) => `echo x > ${t}`,
    ["workspace-write", "danger-full-access"],
  ),
  // A relative path resolves through the process's cwd, which must sit on the writable mount.
  writeCase(
    "writes inside cwd by a relative path",
    () => join(ws, `relative-${Math.random().toString(36).slice(2)}`),
    (t) => `echo x > ${t.slice(ws.length + 1)}`,
    ["workspace-write", "danger-full-access"],
  ),
  writeCase(
    "writes to /etc",
    () => `/etc/tscodex-escape-${process.pid}-${Math.random().toString(36).slice(2)}`,
    (t) => `echo x > ${t}`,
  ),
  writeCase(
    "writes to $HOME (outside the workspace)",
    () => join(home, `escape-${Math.random().toString(36).slice(2)}`),
    (t) => `echo x > "$HOME/${t.slice(home.length + 1)}"`,
  ),
  writeCase(
    "writes to a sibling of cwd",
    () => join(sibling, `escape-${Math.random().toString(36).slice(2)}`),
    (t) => `echo x > ${t}`,
  ),
  writeCase(
    "writes through a symlink in cwd pointing out",
    () => join(outside, `via-link-${Math.random().toString(36).slice(2)}`),
    (t) => `echo x > link-out/${t.slice(outside.length + 1)}`,
  ),
  writeCase(
    "writes via ..",
    () => join(outside, `dotdot-${Math.random().toString(36).slice(2)}`),
    (t) => `echo x > ./.git/../../outside/${t.slice(outside.length + 1)}`,
  ),
  // Run as root, a sandbox that kept capabilities could simply remount / read-write.
  // Sandboxed modes only: under full access this would remount the host's root.
  writeCase(
    "remounts / read-write, then writes to a sibling of cwd",
    () => join(sibling, `remount-${Math.random().toString(36).slice(2)}`),
    (t) => `mount -o remount,rw,bind / 2>&1; echo x > ${t}`,
    [],
  ),
  writeCase(
    "writes into .git",
    () => join(ws, ".git", `hooks-${Math.random().toString(36).slice(2)}`),
    (t) => `echo x > .git/${t.slice(join(ws, ".git").length + 1)}`,
  ),
  writeCase(
    "writes into a nested repository's .git",
    () => join(ws, "sub", "inner", ".git", `hooks-${Math.random().toString(36).slice(2)}`),
    (t) => `echo x > ${t}`,
  ),
  writeCase(
    "redirects a submodule's gitfile",
    () => join(ws, "sub", "mod", ".git"),
    (t) => `echo 'gitdir: /tmp/planted-${runToken}' > ${t}`,
    ["danger-full-access"],
    holdsToken,
  ),
  writeCase(
    "writes config.toml of a $TSCODEX_HOME under /tmp",
    () => join(tscodexHome, `config-${Math.random().toString(36).slice(2)}.toml`),
    (t) => `echo 'sandbox_mode = "danger-full-access"' > ${t}`,
  ),
  writeCase(
    "rewrites config.toml of a $TSCODEX_HOME under /tmp",
    () => join(tscodexHome, "config.toml"),
    (t) => `echo 'sandbox_mode = "danger-full-access" # ${runToken}' >> ${t}`,
    ["danger-full-access"],
    holdsToken,
  ),
];

describe.each(backends)("sandbox escapes under $name", ({ name, status }) => {
  describe.skipIf(!status.available).each(MODES)("%s", (mode) => {
    const full = mode === "danger-full-access";

    for (const c of writeCases) {
      const allowed = c.allowedIn.includes(mode);
      const needsRoot = c.title === "writes to /etc" && allowed && !isRoot;
      // Not run in danger-full-access: "allowed" there would remount this machine's own root.
      if (c.title.startsWith("remounts") && full) continue;
      it.skipIf(needsRoot)(`${c.title}: ${allowed ? "allowed" : "blocked"}`, async () => {
        runToken = Math.random().toString(36).slice(2);
        const target = c.target();
        if (target.startsWith("/etc/")) etcFiles.push(target);
        const run = await sandboxed(name, mode, c.script(target));
        if (allowed) {
          expectAllowed(run);
          expect(c.landed(target)).toBe(true);
        } else {
          expectBlocked(run);
          expect(c.landed(target)).toBe(false);
        }
      });
    }

    // uid 0 without capabilities may still write most sysctls; a non-root user never can.
    it.skipIf(!isRoot)(
      `writes a kernel setting under /proc/sys: ${full ? "allowed" : "blocked"}`,
      async () => {
        // Writes back the current value: harmless when allowed.
        const run = await sandboxed(
          name,
          mode,
          'v=$(cat /proc/sys/kernel/hostname) && echo "$v" > /proc/sys/kernel/hostname',
        );
        if (full) expectAllowed(run);
        else expectBlocked(run);
      },
    );

    it(`connects to a server on the host's 127.0.0.1: ${full ? "allowed" : "blocked"}`, async () => {
      const before = accepted;
      const run = await sandboxed(name, mode, `exec 3<>/dev/tcp/127.0.0.1/${port} && echo connected`);
      if (full) {
        expectAllowed(run);
        await expect.poll(() => accepted).toBeGreaterThan(before);
      } else {
        expectBlocked(run);
        expect(accepted).toBe(before);
      }
    });

    // Only this machine's addresses are ever a target (no traffic leaves it): a refused
    // connection must fail at once inside the sandbox, not hang until a timeout.
    if (!full)
      it("fails a connection at once when the network is off", async () => {
        const run = await sandboxed(
          name,
          mode,
          `timeout 3 bash -c 'exec 3<>/dev/tcp/127.0.0.1/${port}' && echo connected`,
        );
        expectBlocked(run);
        expect(run.durationMs).toBeLessThan(2000);
      });

    it(`connects to a unix socket on the host: ${full ? "allowed" : "blocked"}`, async () => {
      requireProgram("python3");
      const before = unixAccepted;
      const script = `import socket\ns = socket.socket(socket.AF_UNIX)\ns.connect(${JSON.stringify(unixPath)})\nprint("connected")`;
      const run = await sandboxed(name, mode, `python3 -c '${script}'`);
      if (full) {
        expectAllowed(run);
        await expect.poll(() => unixAccepted).toBeGreaterThan(before);
      } else {
        expectBlocked(run);
        expect(unixAccepted).toBe(before);
      }
    });

    it(`writes the host's /dev/shm: ${full ? "allowed" : "not the host's"}`, async () => {
      const target = `/dev/shm/tscodex-escape-${process.pid}-${Math.random().toString(36).slice(2)}`;
      try {
        const run = await sandboxed(name, mode, `echo x > ${target}`);
        if (full) expectAllowed(run);
        expect(existsSync(target)).toBe(full);
      } finally {
        await rm(target, { force: true });
      }
    });

    it(`writes to the user's terminal: ${full ? "allowed" : "blocked"}`, async () => {
      requireProgram("python3");
      const terminal = spawn(
        "python3",
        [
          "-c",
          "import os, pty, select, sys\nm, s = pty.openpty()\nprint(os.ttyname(s), flush=True)\nsys.stdin.readline()\n" +
            "r = select.select([m], [], [], 0.5)[0]\nprint('got' if r and b'INJECT' in os.read(m, 4096) else 'none', flush=True)\n",
        ],
        { stdio: ["pipe", "pipe", "inherit"] },
      );
      const lines: string[] = [];
      let waiting: (() => void) | null = null;
      terminal.stdout.setEncoding("utf8").on("data", (chunk: string) => {
        lines.push(...chunk.split("\n").filter(Boolean));
        waiting?.();
      });
      const line = async (n: number): Promise<string> => {
        while (lines.length <= n) await new Promise<void>((resolve) => (waiting = resolve));
        return lines[n] as string;
      };
      try {
        const tty = await line(0);
        const run = await sandboxed(name, mode, `echo INJECT > ${tty}`);
        terminal.stdin.write("\n");
        if (full) expectAllowed(run);
        else expect(run.exitCode, run.output).not.toBe(0);
        expect(await line(1)).toBe(full ? "got" : "none");
      } finally {
        terminal.kill("SIGKILL");
        await exited(terminal);
      }
    });

    it(`signals a process outside the sandbox: ${full ? "allowed" : "blocked"}`, async () => {
      const sleeper = spawn("sleep", ["30"], { stdio: "ignore" });
      try {
        const run = await sandboxed(name, mode, `kill -TERM ${sleeper.pid}`);
        if (full) {
          expectAllowed(run);
          await exited(sleeper);
        } else {
          expectBlocked(run);
          expect(alive(sleeper.pid ?? 0)).toBe(true);
        }
      } finally {
        sleeper.kill("SIGKILL");
        await exited(sleeper);
      }
    });
  });
});
