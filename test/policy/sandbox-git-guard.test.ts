/**
 * The .git guard (native/git-guard.c) makes every name-creating call of a sandboxed command
 * itself: ordinary creation must behave exactly as without it, under both backends. Modes
 * follow the caller's umask, O_EXCL and noclobber refuse an existing file, O_CLOEXEC is kept,
 * O_CREAT follows a final symlink to a new target, a FIFO opened for writing waits for its
 * reader without holding up other calls, *at calls start at the caller's directory fd,
 * /dev/stdout and /dev/fd/N are the command's (not the supervisor's), and cp -r, tar x, mv,
 * ln and a bare `git init` into a name that is not `.git` all work. The supervisor never
 * opens a file of /proc for the command (its own memory or listener would be an escape).
 */
import { existsSync, readFileSync, statSync } from "node:fs";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runCommand } from "../../src/exec/spawn.js";
import { prepareSandboxedCommand, type SandboxPolicy } from "../../src/policy/sandbox/index.js";
import { renderCaptured } from "../../src/tools/truncate.js";
import { sandboxBackends } from "../support/sandbox-probe.js";
import { missing, requireProgram } from "../support/skips.js";

const backends = await sandboxBackends();

let base: string;
let ws: string;

beforeEach(async () => {
  const parent = existsSync("/var/tmp") ? "/var/tmp" : process.cwd();
  base = await mkdtemp(join(parent, ".tscodex-test-guard-"));
  ws = join(base, "ws");
  await mkdir(ws);
});

afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

async function sandboxed(backend: "bwrap" | "landlock", script: string) {
  const policy: SandboxPolicy = { mode: "workspace-write", writableRoots: [ws], networkAccess: false };
  const prepared = await prepareSandboxedCommand(["bash", "-c", script], ws, policy, { backend });
  const result = await runCommand({
    argv: prepared.argv,
    cwd: ws,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: base, LANG: "C.UTF-8" },
    timeoutMs: 20_000,
  });
  return { exitCode: result.exitCode, output: renderCaptured(result.aggregated).trim() };
}

function mode(path: string): string {
  return (statSync(join(ws, path)).mode & 0o7777).toString(8);
}

const PY_FLAGS = [
  "import ctypes, fcntl, os",
  // libc's open itself: Python's os.open always adds O_CLOEXEC.
  "libc = ctypes.CDLL(None)",
  'a = libc.open(b"cloexec", os.O_CREAT | os.O_WRONLY | os.O_CLOEXEC, 0o600)',
  'b = libc.open(b"inherit", os.O_CREAT | os.O_WRONLY, 0o600)',
  "print(fcntl.fcntl(a, fcntl.F_GETFD) & fcntl.FD_CLOEXEC, fcntl.fcntl(b, fcntl.F_GETFD) & fcntl.FD_CLOEXEC)",
  "try:",
  '  os.open("cloexec", os.O_CREAT | os.O_EXCL | os.O_WRONLY)',
  "except FileExistsError:",
  '  print("EEXIST")',
  'd = os.open("dir", os.O_RDONLY | os.O_DIRECTORY)',
  'os.close(os.open("inside", os.O_CREAT | os.O_WRONLY, 0o644, dir_fd=d))',
  'os.mkdir("subdir", dir_fd=d)',
  'os.symlink("inside", "link", dir_fd=d)',
].join("\n");

const PY_DEV_FD =
  'import os; os.write(os.open("/dev/fd/1", os.O_CREAT | os.O_WRONLY | os.O_APPEND), b"c\\n")';
/** The supervisor opens files for the command: never its own /proc (memory, the listener). */
const PY_PROC = [
  "import os",
  "opened = []",
  'for pid in [p for p in os.listdir("/proc") if p.isdigit()]:',
  '  for name in ["mem", "environ"] + ["fd/%d" % n for n in range(16)]:',
  "    try:",
  '      fd = os.open("/proc/%s/%s" % (pid, name), os.O_CREAT | os.O_RDWR)',
  "    except OSError:",
  "      continue",
  '    target = os.readlink("/proc/self/fd/%d" % fd)',
  '    if name in ["mem", "environ"] or target.startswith("anon_inode"): opened.append(pid + "/" + name)',
  "print(opened)",
].join("\n");

/** btrfs's BTRFS_IOC_SUBVOL_CREATE (_IOW(0x94, 14, 4096 bytes)) on the workspace: ENOTTY on other
 * file systems, EPERM from the guard everywhere (a subvolume is a directory of any name). */
const PY_SUBVOL = [
  "import errno, fcntl, os",
  "SUBVOL_CREATE = 0x40000000 | (4096 << 16) | (0x94 << 8) | 14",
  'fd = os.open(".", os.O_RDONLY | os.O_DIRECTORY)',
  "try:",
  '  fcntl.ioctl(fd, SUBVOL_CREATE, bytearray(b".git".ljust(4096, b"\\0")))',
  "except OSError as e:",
  "  print(errno.errorcode[e.errno])",
].join("\n");

describe.each(backends)("ordinary creation under $name with the .git guard", ({ name, status }) => {
  describe.skipIf(missing(status, `the .git guard under ${name}`))("workspace-write", () => {
    it("mkdir -p, echo >, touch, cp -r, mv, ln, ln -s follow the umask", async () => {
      const run = await sandboxed(
        name,
        [
          "set -e; umask 027",
          "mkdir -p a/b/c; echo x > a.txt; touch t",
          "cp -r a copy; mv a.txt moved.txt; ln moved.txt hard; ln -s moved.txt soft",
          "umask 022; mkdir open; echo y > open/f",
        ].join("\n"),
      );
      expect(run.exitCode, run.output).toBe(0);
      expect([mode("a"), mode("a/b/c"), mode("t"), mode("moved.txt"), mode("copy/b")]).toEqual([
        "750",
        "750",
        "640",
        "640",
        "750",
      ]);
      expect([mode("open"), mode("open/f")]).toEqual(["755", "644"]);
      expect(readFileSync(join(ws, "hard"), "utf8")).toBe("x\n");
      expect(readFileSync(join(ws, "soft"), "utf8")).toBe("x\n");
      expect(existsSync(join(ws, "a.txt"))).toBe(false);
    });

    it("O_EXCL and noclobber refuse an existing file; O_CLOEXEC is kept; *at calls use the dirfd", async () => {
      requireProgram("python3");
      const run = await sandboxed(
        name,
        `set -C; echo first > n; { echo second > n; } 2>/dev/null || echo refused; mkdir dir; python3 -c '${PY_FLAGS}'`,
      );
      expect(run.exitCode, run.output).toBe(0);
      expect(run.output.split("\n")).toEqual(["refused", "1 0", "EEXIST"]);
      expect(readFileSync(join(ws, "n"), "utf8")).toBe("first\n");
      expect(statSync(join(ws, "dir/inside")).isFile()).toBe(true);
      expect(statSync(join(ws, "dir/subdir")).isDirectory()).toBe(true);
      expect(readFileSync(join(ws, "dir/link"), "utf8")).toBe("");
    });

    it("O_CREAT through a dangling symlink creates its target; a FIFO reaches its reader", async () => {
      const run = await sandboxed(
        name,
        "set -e; ln -s target.txt link; echo via > link; mkfifo p; cat p > got & echo piped > p; wait; cat target.txt got",
      );
      expect(run.exitCode, run.output).toBe(0);
      expect(run.output).toBe("via\npiped");
    });

    it("tar x of many files, a bare git init into another name, rename over a file", async () => {
      const run = await sandboxed(
        name,
        [
          "set -e; mkdir src; for i in $(seq 200); do echo $i > src/f$i; done",
          "tar cf all.tar src; mkdir out; tar xf all.tar -C out; cat out/src/f200",
          "git init -q --bare store.git; test -f store.git/HEAD",
          "echo new > tmp; mv tmp out/src/f1; cat out/src/f1",
        ].join("\n"),
      );
      expect(run.exitCode, run.output).toBe(0);
      expect(run.output).toBe("200\nnew");
    });

    it("/dev/stdout, /dev/stderr and /dev/fd/N are the command's own", async () => {
      requireProgram("python3");
      // Into a file: runCommand's stdio are sockets, which cannot be opened again by path.
      const run = await sandboxed(
        name,
        `exec >> log 2>&1; echo a >> /dev/stdout; echo b >> /dev/stderr; python3 -c '${PY_DEV_FD}'`,
      );
      expect(run.exitCode, run.output).toBe(0);
      expect(readFileSync(join(ws, "log"), "utf8")).toBe("a\nb\nc\n");
    });

    it("never opens a process's memory or a seccomp listener for the command", async () => {
      requireProgram("python3");
      const run = await sandboxed(name, `python3 -c '${PY_PROC}'`);
      expect(run.exitCode, run.output).toBe(0);
      expect(run.output).toBe("[]");
    });

    it("refuses btrfs subvolume creation", async () => {
      requireProgram("python3");
      const run = await sandboxed(name, `python3 -c '${PY_SUBVOL}'`);
      expect(run.exitCode, run.output).toBe(0);
      expect(run.output).toBe("EPERM");
    });

    it("passes on the command's exit code and errors of the calls it makes", async () => {
      const run = await sandboxed(name, "mkdir d; mkdir d 2>&1; mkdir missing/x 2>&1; exit 3");
      expect(run.exitCode).toBe(3);
      expect(run.output).toContain("File exists");
      expect(run.output).toContain("No such file or directory");
    });
  });
});
