/**
 * Creating a repository where there is none (issue 15 item 3), part of the sandbox escape
 * suite: in a workspace root without `.git`, a sandboxed command can neither `git init` it,
 * nor make `.git` by hand (directory, gitfile, or a bare repository renamed to it), under
 * bubblewrap and the Landlock helper; danger-full-access can. The user's next git command there
 * would otherwise run the planted repository's hooks and fsmonitor. No placeholder is made on
 * the host for this (issue 37 cause 15: see sandbox-leftovers.test.ts).
 *
 * At the top, below it, and at the top of $TMPDIR, the helper's .git guard
 * (native/git-guard.c) refuses every new name `.git`, however it is made: mkdir, git init, a
 * gitfile, a symlink, a hard link, a rename, O_CREAT|O_EXCL and renameat2 from a script, or
 * O_CREAT through a dangling symlink.
 *
 * The workspace lives outside /tmp, because /tmp is itself a writable root elsewhere; $TMPDIR
 * points into the test's own directory (the layout reads it per command).
 */
import { execFileSync } from "node:child_process";
import { existsSync, lstatSync, readdirSync, statSync } from "node:fs";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runCommand } from "../../src/exec/spawn.js";
import { prepareSandboxedCommand, type SandboxPolicy } from "../../src/policy/sandbox/index.js";
import { renderCaptured } from "../../src/tools/truncate.js";
import { sandboxBackends } from "../support/sandbox-probe.js";
import { missing, requireProgram } from "../support/skips.js";

type Mode = SandboxPolicy["mode"];
const MODES: Mode[] = ["read-only", "workspace-write", "danger-full-access"];
const backends = await sandboxBackends();

let base: string;
let ws: string;
/** The command's $TMPDIR: a writable root treated as a temp directory (not scanned). */
let tmp: string;
const savedTmpdir = process.env.TMPDIR;

beforeEach(async () => {
  const parent = existsSync("/var/tmp") ? "/var/tmp" : process.cwd();
  base = await mkdtemp(join(parent, ".tscodex-test-git-"));
  ws = join(base, "ws");
  tmp = join(base, "tmp");
  await mkdir(join(ws, "src"), { recursive: true });
  await mkdir(join(ws, "sub"), { recursive: true });
  await mkdir(tmp);
  process.env.TMPDIR = tmp;
});

afterEach(async () => {
  if (savedTmpdir === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = savedTmpdir;
  await rm(base, { recursive: true, force: true });
});

async function sandboxed(backend: "bwrap" | "landlock", mode: Mode, script: string) {
  const policy: SandboxPolicy = { mode, writableRoots: [ws, tmp], networkAccess: false };
  const prepared = await prepareSandboxedCommand(["bash", "-c", script], ws, policy, { backend });
  const result = await runCommand({
    argv: prepared.argv,
    cwd: ws,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: base, LANG: "C.UTF-8", TMPDIR: tmp },
    timeoutMs: 30_000,
  });
  return { exitCode: result.exitCode, output: renderCaptured(result.aggregated) };
}

/** Whether `.git` at the workspace's top is a repository (or a gitfile pointing at one). */
function isRepository(): boolean {
  const git = join(ws, ".git");
  if (!existsSync(git)) return false;
  if (!statSync(git).isDirectory()) return true;
  return readdirSync(git).length > 0;
}

/** What git itself says from the workspace (outside every sandbox, as the user would run it). */
function gitSeesRepository(): boolean {
  try {
    execFileSync("git", ["rev-parse", "--git-dir"], {
      cwd: ws,
      stdio: "pipe",
      env: { PATH: process.env.PATH ?? "", GIT_CEILING_DIRECTORIES: base },
    });
    return true;
  } catch {
    return false;
  }
}

const attempts = [
  { title: "git init at the workspace's top", script: "git init -q ." },
  { title: "mkdir .git with a config in it", script: "mkdir -p .git && echo '[core]' > .git/config" },
  { title: "writes a gitfile named .git", script: "echo 'gitdir: /var/tmp/planted' > .git" },
  { title: "renames a bare repository to .git", script: "git init -q --bare r && mv r .git" },
  { title: "git init through a path with ..", script: "git init -q src/../" },
];

describe.each(backends)("creating .git under $name", ({ name, status }) => {
  describe.skipIf(missing(status, `the .git checks under ${name}`)).each(MODES)("%s", (mode) => {
    const allowed = mode === "danger-full-access";
    for (const attempt of attempts) {
      it(`${attempt.title}: ${allowed ? "allowed" : "blocked"}`, async () => {
        if (attempt.script.includes("python3")) requireProgram("python3");
        const run = await sandboxed(name, mode, attempt.script);
        if (allowed) {
          expect(run.exitCode, run.output).toBe(0);
          expect(isRepository()).toBe(true);
        } else {
          expect(run.exitCode, run.output).not.toBe(0);
          expect(isRepository(), run.output).toBe(false);
          expect(gitSeesRepository()).toBe(false);
        }
      });
    }
  });
});

/** Every entry named `.git` in any case below `dir` (links not followed), but `except`. */
function gitNamesBelow(dir: string, except: string): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.name.toLowerCase() === ".git" && path !== except) found.push(path);
    else if (entry.isDirectory() && !lstatSync(path).isSymbolicLink())
      found.push(...gitNamesBelow(path, except));
  }
  return found;
}

/** Whether git, run by the user in `dir` outside every sandbox, finds a repository there. */
function gitSeesRepositoryIn(dir: string): boolean {
  try {
    execFileSync("git", ["rev-parse", "--git-dir"], {
      cwd: dir,
      stdio: "pipe",
      env: { PATH: process.env.PATH ?? "", GIT_CEILING_DIRECTORIES: base },
    });
    return true;
  } catch {
    return false;
  }
}

const PY_EXCL = `import os; os.open("sub/.git", os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)`;
const PY_RENAMEAT2 = [
  "import ctypes, os",
  "libc = ctypes.CDLL(None, use_errno=True)",
  'os.mkdir("made")',
  // renameat2(AT_FDCWD, "made", AT_FDCWD, "sub/.git", RENAME_NOREPLACE)
  'if libc.renameat2(-100, b"made", -100, b"sub/.git", 1) != 0: raise OSError(ctypes.get_errno(), "renameat2")',
].join("\n");
const NODE_CREATE = `require("fs").writeFileSync("sub/.git", "gitdir: /var/tmp/planted\\n", { flag: "wx" })`;

/** Ways to make a new `.git` below a root's top or at the top of $TMPDIR; `where` is checked. */
const nestedAttempts = [
  { title: "mkdir sub/.git", script: "mkdir sub/.git", where: "sub" },
  { title: "git init sub", script: "git init -q sub", where: "sub" },
  { title: "a gitfile sub/.git", script: "echo 'gitdir: /var/tmp/planted' > sub/.git", where: "sub" },
  { title: "touch sub/.git", script: "touch sub/.git", where: "sub" },
  { title: "ln -s src sub/.git", script: "ln -s ../src sub/.git", where: "sub" },
  { title: "ln (hard link) to sub/.git", script: "echo 'gitdir: /x' > f && ln f sub/.git", where: "sub" },
  {
    title: "mv a repository to sub/.git",
    script: "mkdir r && git -C r init -q --bare . && mv r sub/.git",
    where: "sub",
  },
  { title: "mkdir sub/.GIT (another case)", script: "mkdir sub/.GIT", where: "sub" },
  { title: "mkdir -p deep/a/b/.git", script: "mkdir -p deep/a/b/.git", where: "deep/a/b" },
  {
    title: "O_CREAT through a dangling symlink",
    script: "ln -s .git sub/link && echo x > sub/link",
    where: "sub",
  },
  { title: "python os.open O_CREAT|O_EXCL", script: `python3 -c '${PY_EXCL}'`, where: "sub" },
  { title: "python renameat2", script: `python3 -c '${PY_RENAMEAT2}'`, where: "sub" },
  { title: "node writeFileSync wx", script: `node -e '${NODE_CREATE}'`, where: "sub" },
  { title: "mkdir at the top of $TMPDIR", script: 'mkdir "$TMPDIR/.git"', where: "$TMPDIR" },
  { title: "git init $TMPDIR", script: 'git init -q "$TMPDIR"', where: "$TMPDIR" },
];

describe.each(backends)("creating .git below the top under $name", ({ name, status }) => {
  describe.skipIf(missing(status, `the nested .git checks under ${name}`)).each(MODES)("%s", (mode) => {
    const allowed = mode === "danger-full-access";
    for (const attempt of nestedAttempts) {
      it(`${attempt.title}: ${allowed ? "allowed" : "blocked"}`, async () => {
        if (attempt.script.includes("python3")) requireProgram("python3");
        const run = await sandboxed(name, mode, attempt.script);
        const where = attempt.where === "$TMPDIR" ? tmp : join(ws, attempt.where);
        const planted = [...gitNamesBelow(ws, join(ws, ".git")), ...gitNamesBelow(tmp, "")];
        if (allowed) {
          expect(run.exitCode, run.output).toBe(0);
          expect(planted.length, run.output).toBeGreaterThan(0);
        } else {
          expect(run.exitCode, run.output).not.toBe(0);
          expect(planted, run.output).toEqual([]);
          if (existsSync(where)) expect(gitSeesRepositoryIn(where)).toBe(false);
        }
      });
    }
  });
});

/**
 * The guard makes the call on its own copy of the path: a thread that flips the path in memory
 * between `sub/zgit` and `sub/.git` while mkdir waits for the guard never gets `sub/.git` made
 * (a guard that checks, then lets the call continue, lost it within 40 tries here).
 */
const PY_RACE = [
  "import ctypes, os, threading",
  "libc = ctypes.CDLL(None, use_errno=True)",
  'buf = ctypes.create_string_buffer(b"sub/zgit", 16)',
  'safe, bad = b"sub/zgit\\0", b"sub/.git\\0"',
  "stop = False",
  "def flip():",
  "  while not stop:",
  "    ctypes.memmove(buf, safe, len(safe))",
  "    ctypes.memmove(buf, bad, len(bad))",
  "t = threading.Thread(target=flip)",
  "t.start()",
  "made = 0",
  "for i in range(2000):",
  "  ctypes.memmove(buf, safe, len(safe))",
  "  if libc.mkdir(buf, 0o755) == 0:",
  "    made += 1",
  '    if os.path.isdir("sub/zgit"): os.rmdir("sub/zgit")',
  '  if os.path.lexists("sub/.git"): break',
  "stop = True",
  "t.join()",
  'print("made", made)',
].join("\n");

describe.each(backends)("a path flipped to .git while the call waits under $name", ({ name, status }) => {
  it.skipIf(missing(status, `the .git race under ${name}`))(
    "never makes .git",
    { timeout: 60_000 },
    async () => {
      requireProgram("python3");
      const run = await sandboxed(name, "workspace-write", `python3 -c '${PY_RACE}'`);
      expect(run.exitCode, run.output).toBe(0);
      // Some mkdirs read the flipped name and were refused, the others made sub/zgit.
      expect(run.output).toMatch(/^made \d+/);
      expect(gitNamesBelow(ws, join(ws, ".git")), run.output).toEqual([]);
    },
  );
});
