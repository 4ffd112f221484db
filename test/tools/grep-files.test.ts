/**
 * grep_files: the recorded Codex 0.89 calls replayed, newest-first order in both search
 * strategies (few matches: parallel rg + our sort; many: rg's sorted search stopped early),
 * and the errors.
 */
import { execFileSync } from "node:child_process";
import { mkdir, rm, utimes, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { grepFilesTool } from "../../src/tools/builtin/grep-files.js";
import { ripgrepPath, runRipgrep } from "../../src/tools/files/ripgrep.js";
import { type TempDir, tmpdir } from "../support/tmpdir.js";
import { buildExpTools, callTool, recordedCalls, relocate } from "./file-tools-support.js";

let dir: TempDir;
let root: string;
const tool = grepFilesTool();
const grep = (args: object, cwd = root) => callTool(tool, args, cwd);

beforeAll(async () => {
  dir = await tmpdir("tscodex-grep-files-");
  root = join(dir.path, "exp");
  await buildExpTools(root);
});
afterAll(() => dir.cleanup());

describe("grep_files", () => {
  it("uses the ripgrep bundled by @vscode/ripgrep", async () => {
    expect(await ripgrepPath()).toMatch(/@vscode\/ripgrep-[^/]+\/bin\/rg$/);
  });

  it("replays every recorded Codex call", async () => {
    const calls = await recordedCalls("grep_files");
    expect(calls.length).toBeGreaterThanOrEqual(5);
    for (const call of calls) {
      const args = JSON.parse(relocate(call.arguments, root)) as object;
      expect((await grep(args)).text, call.arguments).toBe(relocate(call.output, root));
    }
  });

  it("has the reference's parameters", () => {
    expect(tool.spec).toMatchObject({
      name: "grep_files",
      parameters: {
        required: ["pattern"],
        properties: {
          include: { type: "string" },
          limit: { type: "number" },
          path: { type: "string" },
          pattern: { type: "string" },
        },
      },
    });
  });

  it("resolves a relative path against the cwd; no matches is not a success", async () => {
    expect((await grep({ pattern: "needle", path: "src/nested/deeper" })).text).toBe(
      join(root, "src/nested/deeper/b.ts"),
    );
    const none = await grep({ pattern: "absent_word" });
    expect(none.text).toBe("No matches found.");
    expect(none.output?.success).toBe(false);
  });

  it("orders by modification time, newest first, past the parallel-sort threshold too", async () => {
    for (const count of [30, 1500]) {
      const tree = join(dir.path, `tree-${count}`);
      await mkdir(tree, { recursive: true });
      const names = Array.from({ length: count }, (_, i) => `f${String(i).padStart(5, "0")}.txt`);
      await Promise.all(names.map((name) => writeFile(join(tree, name), "hit\n")));
      // Older index = older file; the newest is the last one written.
      await Promise.all(
        names.map((name, i) => utimes(join(tree, name), 1_600_000_000 + i, 1_600_000_000 + i)),
      );
      const { text } = await grep({ pattern: "hit", limit: 3 }, tree);
      expect(text.split("\n")).toEqual(
        names
          .slice(-3)
          .reverse()
          .map((name) => join(tree, name)),
      );
    }
  });

  it("caps the limit at 2000; a long list is cut head and tail like any output", async () => {
    const tree = join(dir.path, "tree-1500");
    const roomy = { truncation: { mode: "bytes" as const, limit: 1_000_000 } };
    const { text } = await callTool(tool, { pattern: "hit", limit: 5000 }, tree, roomy);
    expect(text.split("\n")).toHaveLength(1500);
    const cut = await grep({ pattern: "hit", limit: 5000 }, tree);
    expect(cut.text).toMatch(/…\d+ tokens truncated…/);
    expect(cut.text.startsWith(join(tree, "f01499.txt"))).toBe(true);
  });

  it("answers errors the model can act on", async () => {
    expect((await grep({ pattern: "  " })).text).toBe("pattern must not be empty");
    expect((await grep({ pattern: "x", limit: 0 })).text).toBe("limit must be greater than zero");
    expect((await grep({ pattern: "x", path: "nope" })).text).toBe(
      `unable to access \`${join(root, "nope")}\`: No such file or directory (os error 2)`,
    );
    expect((await grep({ pattern: "(" })).text).toMatch(
      /^rg failed: rg: regex parse error:[\s\S]*unclosed group$/,
    );
  });
});

describe("runRipgrep", () => {
  it("stops rg as soon as the caller has enough lines", async () => {
    const lines: string[] = [];
    const result = await runRipgrep(["--files", "--", root], {
      cwd: root,
      timeoutMs: 10_000,
      onLine: (line) => {
        lines.push(line);
        return false;
      },
    });
    expect(result).toMatchObject({ stopped: true, code: null });
    expect(lines).toHaveLength(1);
  });

  it("reports an interrupt and a timeout as errors", async () => {
    const controller = new AbortController();
    controller.abort();
    const options = { cwd: root, timeoutMs: 10_000, onLine: () => true, signal: controller.signal };
    await expect(runRipgrep(["--files", root], options)).rejects.toThrow("grep_files was interrupted");
    // rg blocks opening a FIFO nobody writes to: the deadline always comes first.
    const fifo = join(root, "never-written.fifo");
    execFileSync("mkfifo", [fifo]);
    try {
      await expect(
        runRipgrep(["needle", fifo], { cwd: root, timeoutMs: 50, onLine: () => true }),
      ).rejects.toThrow(/^rg timed out after 0.05 seconds$/);
    } finally {
      await rm(fifo, { force: true });
    }
  });
});
