/**
 * Unit tests of where an fs/* write really lands (real-target.ts) and of the check made again on
 * the file actually opened (fs-safe-io.ts openForWrite), on real temporary directories.
 */
import { access, mkdir, readFile, realpath, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openForWrite, writeAll } from "../../src/frontends/app-server/fs-safe-io.js";
import { RpcError } from "../../src/frontends/app-server/protocol/jsonrpc.js";
import { realEntry, realTarget } from "../../src/frontends/app-server/real-target.js";
import { type TempDir, tmpdir } from "../support/tmpdir.js";

let dir: TempDir;
let root: string;
beforeEach(async () => {
  dir = await tmpdir("tscodex-real-target-");
  root = await realpath(dir.path);
});
afterEach(() => dir.cleanup());

describe("realTarget", () => {
  it("follows a link as the last component, and a dangling chain to its would-be target", async () => {
    await mkdir(join(root, "a"));
    await writeFile(join(root, "a", "file"), "x");
    await symlink(join(root, "a", "file"), join(root, "to-file"));
    expect(await realTarget(join(root, "to-file"))).toBe(join(root, "a", "file"));
    // Relative link text, resolved against the link's own directory; two dangling hops.
    await symlink("../later/new.txt", join(root, "a", "hop2"));
    await symlink("a/hop2", join(root, "hop1"));
    expect(await realTarget(join(root, "hop1"))).toBe(join(root, "later", "new.txt"));
    // Missing components under a linked directory.
    await symlink(join(root, "a"), join(root, "dir-link"));
    expect(await realTarget(join(root, "dir-link", "x", "y.txt"))).toBe(join(root, "a", "x", "y.txt"));
  });

  it("fails on a loop of links rather than spinning", async () => {
    await symlink(join(root, "loop2"), join(root, "loop1"));
    await symlink(join(root, "loop1"), join(root, "loop2"));
    await expect(realTarget(join(root, "loop1"))).rejects.toMatchObject({ code: "ELOOP" });
  });
});

describe("realEntry", () => {
  it("keeps a link as the last component and resolves the directories before it", async () => {
    await mkdir(join(root, "a"));
    await symlink(join(root, "a"), join(root, "dir-link"));
    await symlink("/etc/passwd", join(root, "a", "link"));
    expect(await realEntry(join(root, "dir-link", "link"))).toBe(join(root, "a", "link"));
  });
});

describe("openForWrite", () => {
  const refusal = (path: string) => RpcError.invalidRequest(`refused ${path}`);

  it("refuses the file it opened when the guard refuses that file's real path, removing a file it created", async () => {
    const path = join(root, "new.txt");
    await expect(openForWrite("test", path, () => false, refusal)).rejects.toThrow(`refused ${path}`);
    await expect(access(path)).rejects.toMatchObject({ code: "ENOENT" });
    await writeFile(join(root, "kept.txt"), "kept");
    await expect(openForWrite("test", join(root, "kept.txt"), () => false, refusal)).rejects.toThrow();
    expect(await readFile(join(root, "kept.txt"), "utf8")).toBe("kept");
  });

  it("never follows a link as the last component", async () => {
    await writeFile(join(root, "target.txt"), "before");
    await symlink(join(root, "target.txt"), join(root, "link"));
    await expect(openForWrite("test", join(root, "link"), () => true, refusal)).rejects.toMatchObject({
      code: "ELOOP",
    });
    await writeAll(
      await openForWrite("test", join(root, "target.txt"), () => true, refusal),
      Buffer.from("after"),
    );
    expect(await readFile(join(root, "target.txt"), "utf8")).toBe("after");
  });
});
