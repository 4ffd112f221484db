/**
 * Scenario folders test/fixtures/apply-patch/NNN_name/: input/ is copied to a temp dir,
 * patch.txt applied (through the library, then through the CLI command), and the whole tree
 * compared byte for byte with expected/. Optional files: expected_error.txt (the exact error;
 * expected/ then equals input/), expected_output.txt (the success summary), cwd.txt (the cwd
 * relative to the tree). `{cwd}` in these files stands for the absolute cwd.
 */
import { cp, mkdir, readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { Readable, Writable } from "node:stream";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { applyPatch, PatchError } from "../../src/apply-patch/index.js";
import { runApplyPatchCommand } from "../../src/frontends/cli/apply-patch-command.js";
import { makeTempDir, printable, readTree } from "./support.js";

const FIXTURES = fileURLToPath(new URL("../fixtures/apply-patch/", import.meta.url));
const scenarios = (await readdir(FIXTURES)).filter((name) => /^\d{3}_/.test(name)).sort();

async function optional(path: string): Promise<string | null> {
  return readFile(path, "utf8").catch(() => null);
}

interface Prepared {
  root: string;
  cwd: string;
  patch: string;
  expectedError: string | null;
  expectedOutput: string | null;
  expectedTree: Record<string, string>;
}

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

async function prepare(name: string): Promise<Prepared> {
  const dir = join(FIXTURES, name);
  const temp = await makeTempDir();
  cleanups.push(temp.cleanup);
  const root = join(temp.dir, "tree");
  await mkdir(root);
  // input/ may be absent: git keeps no empty directories.
  await cp(join(dir, "input"), root, { recursive: true }).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== "ENOENT") throw error;
  });
  const cwdRel = (await optional(join(dir, "cwd.txt")))?.trim();
  const cwd = cwdRel ? join(root, cwdRel) : root;
  const fill = (text: string | null): string | null => text?.replaceAll("{cwd}", cwd) ?? null;
  return {
    root,
    cwd,
    patch: fill(await readFile(join(dir, "patch.txt"), "utf8"))!,
    expectedError: fill(await optional(join(dir, "expected_error.txt"))),
    expectedOutput: fill(await optional(join(dir, "expected_output.txt"))),
    expectedTree: printable(await readTree(join(dir, "expected"))),
  };
}

function sink(): { stream: Writable; text: () => string } {
  let text = "";
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      text += chunk.toString("utf8");
      done();
    },
  });
  return { stream, text: () => text };
}

describe("apply_patch scenarios", () => {
  it("has at least 40 scenarios", () => {
    expect(scenarios.length).toBeGreaterThanOrEqual(40);
  });

  describe.each(scenarios)("%s", (name) => {
    it("library", async () => {
      const s = await prepare(name);
      let error: unknown = null;
      try {
        const result = await applyPatch(s.patch, s.cwd);
        if (s.expectedOutput !== null) expect(result.summary).toBe(s.expectedOutput);
      } catch (caught) {
        error = caught;
      }
      if (s.expectedError !== null) {
        expect(error).toBeInstanceOf(PatchError);
        expect((error as Error).message).toBe(s.expectedError);
      } else {
        expect(error).toBeNull();
      }
      expect(printable(await readTree(s.root))).toEqual(s.expectedTree);
    });

    it("cli", async () => {
      const s = await prepare(name);
      const stdout = sink();
      const stderr = sink();
      const code = await runApplyPatchCommand({
        cwd: s.cwd,
        stdin: Readable.from([Buffer.from(s.patch)]),
        stdout: stdout.stream,
        stderr: stderr.stream,
      });
      if (s.expectedError !== null) {
        expect({ code, stdout: stdout.text(), stderr: stderr.text() }).toEqual({
          code: 1,
          stdout: "",
          stderr: `${s.expectedError}\n`,
        });
      } else {
        expect(code).toBe(0);
        expect(stderr.text()).toBe("");
        if (s.expectedOutput !== null) expect(stdout.text()).toBe(s.expectedOutput);
      }
      expect(printable(await readTree(s.root))).toEqual(s.expectedTree);
    });
  });
});
