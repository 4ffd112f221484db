/**
 * The sandbox leaves nothing behind on the host (issue 37 cause 15): a workspace-write command
 * in a directory that is not a repository, on either backend, finished or killed by its
 * timeout, leaves no `.git` (nor any other entry it did not make) there, so git, tscodex and
 * Codex still see no repository in that directory or below it. Missing control directories are
 * protected by the helper's guard (no new name), not by placeholders made on the host.
 *
 * The directory lives outside /tmp, because /tmp is itself a writable root elsewhere.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runCommand } from "../../src/exec/spawn.js";
import { prepareSandboxedCommand, type SandboxPolicy } from "../../src/policy/sandbox/index.js";
import { renderCaptured } from "../../src/tools/truncate.js";
import { sandboxBackends } from "../support/sandbox-probe.js";
import { missing } from "../support/skips.js";

const backends = await sandboxBackends();

let base: string;
let dir: string;

beforeEach(async () => {
  const parent = existsSync("/var/tmp") ? "/var/tmp" : process.cwd();
  base = await mkdtemp(join(parent, ".tscodex-test-leftovers-"));
  dir = join(base, "plain");
  await mkdir(join(dir, "sub"), { recursive: true });
});

afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

async function sandboxed(backend: "bwrap" | "landlock", script: string, timeoutMs: number) {
  const policy: SandboxPolicy = { mode: "workspace-write", writableRoots: [dir], networkAccess: false };
  const prepared = await prepareSandboxedCommand(["bash", "-c", script], dir, policy, { backend });
  const result = await runCommand({
    argv: prepared.argv,
    cwd: dir,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: base, LANG: "C.UTF-8" },
    timeoutMs,
  });
  return { ...result, output: renderCaptured(result.aggregated) };
}

/** What git, run by the user in `path` outside every sandbox, says about it. */
function gitSeesRepositoryIn(path: string): boolean {
  try {
    execFileSync("git", ["rev-parse", "--git-dir"], {
      cwd: path,
      stdio: "pipe",
      env: { PATH: process.env.PATH ?? "", GIT_CEILING_DIRECTORIES: base },
    });
    return true;
  } catch {
    return false;
  }
}

describe.each(backends)("what a workspace-write command leaves under $name", ({ name, status }) => {
  describe.skipIf(missing(status, `the leftover checks under ${name}`))(
    "in a directory that is not a repository",
    () => {
      it("a finished command leaves only what it wrote", async () => {
        const run = await sandboxed(name, "echo hi > made.txt", 30_000);
        expect(run.exitCode, run.output).toBe(0);
        expect(readdirSync(dir).sort()).toEqual(["made.txt", "sub"]);
        expect(gitSeesRepositoryIn(dir)).toBe(false);
        expect(gitSeesRepositoryIn(join(dir, "sub"))).toBe(false);
      });

      it("a command killed by its timeout leaves nothing", async () => {
        // The command says it started, then waits forever: only the timeout ends it.
        const run = await sandboxed(name, "echo started; exec sleep 600", 3_000);
        expect(run.timedOut, run.output).toBe(true);
        expect(run.output).toContain("started");
        expect(readdirSync(dir)).toEqual(["sub"]);
        expect(gitSeesRepositoryIn(dir)).toBe(false);
      });
    },
  );
});
