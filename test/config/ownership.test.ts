/**
 * Which directory is the project root, and which project files count, by who controls them
 * (src/config/ownership.ts, layers.ts gitRootOf). "Another user" is uid 12345: chown needs root.
 */
import { chmod, chown, lchown, mkdir, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { gitRootOf, projectConfigFiles } from "../../src/config/layers.js";
import { notOursBecause, readIfOurs } from "../../src/config/ownership.js";
import { type TempDir, tmpdir } from "../support/tmpdir.js";

const OTHER_UID = 12345;
const isRoot = process.getuid?.() === 0;

let temp: TempDir;
beforeEach(async () => {
  temp = await tmpdir("tscodex-ownership-");
});
afterEach(() => temp.cleanup());

/** `dir/.git` plus `dir/a/b`, the deeper directory's path. */
async function repoWithSubdir(dir: string): Promise<string> {
  await mkdir(join(dir, ".git"), { recursive: true });
  const deeper = join(dir, "a", "b");
  await mkdir(deeper, { recursive: true });
  return deeper;
}

describe("gitRootOf", () => {
  it("finds the user's own repository from a subdirectory", async () => {
    const repo = join(temp.path, "repo");
    expect(await gitRootOf(await repoWithSubdir(repo))).toBe(repo);
  });

  it("accepts a group-writable ancestor (umask 002 makes every directory g+w)", async () => {
    const repo = join(temp.path, "repo");
    const deeper = await repoWithSubdir(repo);
    await chmod(join(repo, "a"), 0o775);
    expect(await gitRootOf(deeper)).toBe(repo);
  });

  for (const mode of [0o777, 0o1777])
    it(`stops below a world-writable ancestor (mode ${mode.toString(8)}), even one holding the user's .git`, async () => {
      const shared = join(temp.path, "shared");
      const deeper = await repoWithSubdir(shared);
      await chmod(shared, mode);
      expect(await gitRootOf(deeper)).toBeNull();
    });

  it("takes a world-writable cwd's own .git: the user chose that directory", async () => {
    const shared = join(temp.path, "shared");
    await mkdir(join(shared, ".git"), { recursive: true });
    await chmod(shared, 0o1777);
    expect(await gitRootOf(shared)).toBe(shared);
  });

  it.skipIf(!isRoot)("stops below an ancestor another user owns", async () => {
    const theirs = join(temp.path, "theirs");
    const deeper = await repoWithSubdir(theirs);
    await chown(theirs, OTHER_UID, OTHER_UID);
    expect(await gitRootOf(deeper)).toBeNull();
  });

  it.skipIf(!isRoot)("ignores a .git another user owns, even in the cwd", async () => {
    const repo = join(temp.path, "repo");
    await repoWithSubdir(repo);
    await chown(join(repo, ".git"), OTHER_UID, OTHER_UID);
    expect(await gitRootOf(repo)).toBeNull();
    expect(await gitRootOf(join(repo, "a"))).toBeNull();
  });
});

describe("project files", () => {
  it("a world-writable file is refused; the user's own file is read", async () => {
    const own = join(temp.path, "own.toml");
    const open = join(temp.path, "open.toml");
    await writeFile(own, "a = 1\n");
    await writeFile(open, "a = 2\n");
    await chmod(open, 0o666);
    expect(await notOursBecause(own)).toBeNull();
    expect(await readIfOurs(own)).toBe("a = 1\n");
    expect(await notOursBecause(open)).toBe("writable by other users");
    expect(await readIfOurs(open)).toBeNull();
    expect(await notOursBecause(join(temp.path, "missing"))).toBeNull();
  });

  it.skipIf(!isRoot)(
    "a file or a link another user owns is refused, even pointing at the user's file",
    async () => {
      const own = join(temp.path, "own.toml");
      await writeFile(own, "a = 1\n");
      const theirs = join(temp.path, "theirs.toml");
      await writeFile(theirs, "a = 2\n");
      await chown(theirs, OTHER_UID, OTHER_UID);
      const link = join(temp.path, "link.toml");
      await symlink(own, link);
      await lchown(link, OTHER_UID, OTHER_UID);
      expect(await notOursBecause(theirs)).toContain(`owned by uid ${OTHER_UID}`);
      expect(await readIfOurs(theirs)).toBeNull();
      expect(await notOursBecause(link)).toContain(`owned by uid ${OTHER_UID}`);
    },
  );

  it("projectConfigFiles loads the user's layers root to cwd and names a refused one", async () => {
    const repo = join(temp.path, "repo");
    const deeper = await repoWithSubdir(repo);
    for (const dir of [repo, deeper]) {
      await mkdir(join(dir, ".codex"));
      await writeFile(join(dir, ".codex", "config.toml"), "");
    }
    await chmod(join(deeper, ".codex", "config.toml"), 0o666);
    const files = await projectConfigFiles(deeper, join(temp.path, "home"));
    expect(files.paths).toEqual([join(repo, ".codex", "config.toml")]);
    expect(files.refused).toHaveLength(1);
    expect(files.refused[0]).toContain(
      `${join(deeper, ".codex", "config.toml")} not loaded: writable by other users`,
    );
  });
});
