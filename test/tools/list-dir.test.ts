/**
 * list_dir: the recorded Codex 0.89 calls replayed on a rebuilt workspace, then paging,
 * entry kinds, tree order and errors.
 */
import { chmod, mkdir, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listDirTool } from "../../src/tools/builtin/list-dir.js";
import { type TempDir, tmpdir } from "../support/tmpdir.js";
import { buildExpTools, callTool, recordedCalls, relocate } from "./file-tools-support.js";

let dir: TempDir;
const tool = listDirTool();
const list = (args: object) => callTool(tool, args, dir.path).then((result) => result.text);

beforeAll(async () => {
  dir = await tmpdir("tscodex-list-dir-");
  await buildExpTools(join(dir.path, "exp"));
});
afterAll(() => dir.cleanup());

describe("list_dir", () => {
  it("replays every recorded Codex call", async () => {
    const calls = await recordedCalls("list_dir");
    expect(calls.length).toBeGreaterThanOrEqual(5);
    const root = join(dir.path, "exp");
    for (const call of calls) {
      const args = JSON.parse(relocate(call.arguments, root)) as object;
      expect(await list(args), call.arguments).toBe(relocate(call.output, root));
    }
  });

  it("has the reference's parameters", () => {
    expect(tool.spec).toMatchObject({
      name: "list_dir",
      parameters: {
        required: ["dir_path"],
        properties: {
          depth: { type: "number" },
          dir_path: { type: "string" },
          limit: { type: "number" },
          offset: { type: "number" },
        },
        additionalProperties: false,
      },
    });
  });

  it("marks symlinks and special files, and keeps children under their own directory", async () => {
    const root = join(dir.path, "kinds");
    await mkdir(join(root, "src"), { recursive: true });
    await writeFile(join(root, "src/main.ts"), "");
    await writeFile(join(root, "src.bak"), "");
    await symlink("src", join(root, "link"));
    // "src.bak" sorts before "src/main.ts" byte-wise; tree order keeps main.ts under src/.
    expect(await list({ dir_path: root })).toBe(`Absolute path: ${root}\nlink@\nsrc/\n  main.ts\nsrc.bak`);
  });

  it("pages through a large directory without reading past the page", async () => {
    const root = join(dir.path, "many");
    await mkdir(root);
    await Promise.all(
      Array.from({ length: 120 }, (_, i) => writeFile(join(root, `f${String(i).padStart(3, "0")}`), "")),
    );
    const page = await list({ dir_path: root, offset: 101, limit: 10 });
    expect(page).toBe(
      [
        `Absolute path: ${root}`,
        ...Array.from({ length: 10 }, (_, i) => `f${100 + i}`),
        "More than 10 entries found",
      ].join("\n"),
    );
    expect(await list({ dir_path: root, offset: 111, limit: 10 })).not.toContain("More than");
    expect(await list({ dir_path: root, offset: 121 })).toBe("offset exceeds directory entry count");
  });

  it("depth 1 lists only the directory itself; an empty directory is just the header", async () => {
    const root = join(dir.path, "exp");
    expect(await list({ dir_path: root, depth: 1 })).toBe(
      `Absolute path: ${root}\ndocs/\nfive.txt\nlongline.txt\nsrc/`,
    );
    await mkdir(join(dir.path, "empty"));
    expect(await list({ dir_path: join(dir.path, "empty"), offset: 3 })).toBe(
      `Absolute path: ${join(dir.path, "empty")}`,
    );
  });

  it("answers errors the model can act on", async () => {
    expect(await list({ dir_path: dir.path, offset: 0 })).toBe("offset must be a 1-indexed entry number");
    expect(await list({ dir_path: dir.path, limit: 0 })).toBe("limit must be greater than zero");
    expect(await list({ dir_path: dir.path, depth: 0 })).toBe("depth must be greater than zero");
    expect(await list({ dir_path: join(dir.path, "exp/five.txt") })).toBe(
      "failed to read directory: Not a directory (os error 20)",
    );
  });

  it("lists an unreadable subdirectory without its contents", async () => {
    const root = join(dir.path, "locked");
    await mkdir(join(root, "secret"), { recursive: true });
    await writeFile(join(root, "secret/x"), "");
    await chmod(join(root, "secret"), 0o000);
    try {
      expect(await asUnprivileged(() => list({ dir_path: root }))).toBe(`Absolute path: ${root}\nsecret/`);
    } finally {
      await chmod(join(root, "secret"), 0o755);
    }
  });
});

/**
 * Runs `fn` where permission bits apply. Root reads everything, so as root (CI runs as root)
 * the effective uid is nobody's for the call: tests in a file run one at a time, and the real
 * uid stays 0 to switch back.
 */
async function asUnprivileged<T>(fn: () => Promise<T>): Promise<T> {
  if (process.geteuid?.() !== 0 || !process.seteuid) return fn();
  await chmod(dir.path, 0o711); // mkdtemp's 0700 would stop nobody before the listed directory
  process.seteuid(65534);
  try {
    return await fn();
  } finally {
    process.seteuid(0);
    await chmod(dir.path, 0o700);
  }
}
