/**
 * Creating a repository where there is none (issue 15 item 3), part of the sandbox escape
 * suite: in a workspace root without `.git`, a sandboxed command can neither `git init` it,
 * nor make `.git` by hand (directory or gitfile), nor move the placeholder tscodex puts there
 * out of the way, under bubblewrap and the Landlock helper; danger-full-access can. The user's
 * next git command there would otherwise run the planted repository's hooks and fsmonitor.
 *
 * The workspace lives outside /tmp, because /tmp is itself a writable root elsewhere.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runCommand } from "../../src/exec/spawn.js";
import { prepareSandboxedCommand, type SandboxPolicy } from "../../src/policy/sandbox/index.js";
import { renderCaptured } from "../../src/tools/truncate.js";
import { sandboxBackends } from "../support/sandbox-probe.js";
import { missing } from "../support/skips.js";

type Mode = SandboxPolicy["mode"];
const MODES: Mode[] = ["read-only", "workspace-write", "danger-full-access"];
const backends = await sandboxBackends();

let base: string;
let ws: string;

beforeEach(async () => {
  const parent = existsSync("/var/tmp") ? "/var/tmp" : process.cwd();
  base = await mkdtemp(join(parent, ".tscodex-test-git-"));
  ws = join(base, "ws");
  await mkdir(join(ws, "src"), { recursive: true });
});

afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

async function sandboxed(backend: "bwrap" | "landlock", mode: Mode, script: string) {
  const policy: SandboxPolicy = { mode, writableRoots: [ws], networkAccess: false };
  const prepared = await prepareSandboxedCommand(["bash", "-c", script], ws, policy, { backend });
  const result = await runCommand({
    argv: prepared.argv,
    cwd: ws,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: base, LANG: "C.UTF-8" },
    timeoutMs: 10_000,
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
  {
    title: "moves the placeholder away, then git init",
    script: "{ mv .git moved || rm -rf .git || rmdir .git; } 2>&1; git init -q .",
  },
  { title: "git init through a path with ..", script: "git init -q src/../" },
];

describe.each(backends)("creating .git under $name", ({ name, status }) => {
  describe.skipIf(missing(status, `the .git checks under ${name}`)).each(MODES)("%s", (mode) => {
    const allowed = mode === "danger-full-access";
    for (const attempt of attempts) {
      it(`${attempt.title}: ${allowed ? "allowed" : "blocked"}`, async () => {
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
