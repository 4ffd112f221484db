import { chmod, mkdir, readFile, readlink, stat, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  applyPatch,
  commitPatch,
  PatchVerifyError,
  PatchWriteError,
  parsePatch,
  planPatch,
  TurnDiffTracker,
  unifiedHunks,
} from "../../src/apply-patch/index.js";
import { makeTempDir, printable, readTree } from "./support.js";

let dir = "";
let cleanup: () => Promise<void> = async () => undefined;
beforeEach(async () => {
  ({ dir, cleanup } = await makeTempDir());
});
afterEach(() => cleanup());

const plan = (text: string) => planPatch(parsePatch(text), dir);

describe("planPatch", () => {
  it("reports changes, touched paths and summary without writing", async () => {
    await writeFile(join(dir, "a.txt"), "1\n2\n3\n4\n5\n");
    await writeFile(join(dir, "gone.txt"), "bye\n");
    const p = await plan(
      "*** Begin Patch\n*** Update File: a.txt\n*** Move to: sub/b.txt\n@@\n 2\n-3\n+three\n*** Delete File: gone.txt\n*** Add File: n.txt\n+n\n*** End Patch",
    );
    expect(p.changes).toEqual({
      [join(dir, "a.txt")]: {
        type: "update",
        unified_diff: "@@ -2,3 +2,3 @@\n 2\n-3\n+three\n 4\n",
        move_path: join(dir, "sub/b.txt"),
      },
      [join(dir, "gone.txt")]: { type: "delete", content: "bye\n" },
      [join(dir, "n.txt")]: { type: "add", content: "n\n" },
    });
    expect([...p.touchedPaths].sort()).toEqual(
      ["a.txt", "sub/b.txt", "gone.txt", "n.txt"].map((f) => join(dir, f)).sort(),
    );
    expect(p.summary).toBe("Success. Updated the following files:\nA n.txt\nM sub/b.txt\nD gone.txt\n");
    expect(printable(await readTree(dir))).toEqual({
      "a.txt": '"1\\n2\\n3\\n4\\n5\\n"',
      "gone.txt": '"bye\\n"',
    });
  });

  it("lists the real target of a symlinked file as touched, and writes through the link", async () => {
    await mkdir(join(dir, "real"));
    await writeFile(join(dir, "real/t.txt"), "x\n");
    await symlink(join(dir, "real/t.txt"), join(dir, "link.txt"));
    const p = await plan("*** Begin Patch\n*** Update File: link.txt\n@@\n-x\n+y\n*** End Patch");
    expect(p.touchedPaths).toContain(join(dir, "real/t.txt"));
    await commitPatch(p);
    expect(await readlink(join(dir, "link.txt"))).toBe(join(dir, "real/t.txt"));
    expect(await readFile(join(dir, "real/t.txt"), "utf8")).toBe("y\n");
  });
});

describe("commitPatch", () => {
  it("keeps the file mode on update and on move", async () => {
    await writeFile(join(dir, "run.sh"), "echo 1\n");
    await chmod(join(dir, "run.sh"), 0o750);
    await applyPatch("*** Begin Patch\n*** Update File: run.sh\n@@\n-echo 1\n+echo 2\n*** End Patch", dir);
    expect((await stat(join(dir, "run.sh"))).mode & 0o777).toBe(0o750);
    await applyPatch(
      "*** Begin Patch\n*** Update File: run.sh\n*** Move to: bin/run\n@@\n-echo 2\n+echo 3\n*** End Patch",
      dir,
    );
    expect((await stat(join(dir, "bin/run"))).mode & 0o777).toBe(0o750);
  });

  it("rolls back finished renames when a later one fails", async () => {
    await writeFile(join(dir, "a.txt"), "a\n");
    await writeFile(join(dir, "z.txt"), "z\n");
    await mkdir(join(dir, "d"));
    await writeFile(join(dir, "d/inner.txt"), "i\n");
    const before = printable(await readTree(dir));
    // a.txt and z.txt are renamed into place first; replacing directory d then fails.
    const error = await applyPatch(
      "*** Begin Patch\n*** Update File: a.txt\n@@\n-a\n+A\n*** Delete File: z.txt\n*** Add File: d\n+file now\n*** End Patch",
      dir,
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PatchWriteError);
    expect((error as Error).message).toBe(`Failed to write file ${join(dir, "d")}`);
    expect(printable(await readTree(dir))).toEqual(before);
  });

  it("re-plans when a file changed after planning", async () => {
    await writeFile(join(dir, "f.txt"), "a\nb\n");
    const p = await plan("*** Begin Patch\n*** Update File: f.txt\n@@\n-b\n+B\n*** End Patch");
    await writeFile(join(dir, "f.txt"), "a\nb\nc\n");
    const applied = await commitPatch(p);
    expect(applied).not.toBe(p);
    expect(await readFile(join(dir, "f.txt"), "utf8")).toBe("a\nB\nc\n");
  });

  it("fails cleanly when a changed file no longer fits", async () => {
    await writeFile(join(dir, "f.txt"), "a\nb\n");
    const p = await plan("*** Begin Patch\n*** Update File: f.txt\n@@\n-b\n+B\n*** End Patch");
    await writeFile(join(dir, "f.txt"), "a\nchanged\n");
    await expect(commitPatch(p)).rejects.toBeInstanceOf(PatchVerifyError);
    expect(await readFile(join(dir, "f.txt"), "utf8")).toBe("a\nchanged\n");
  });
});

describe("unifiedHunks", () => {
  it("formats ranges the GNU way", () => {
    expect(unifiedHunks("", "x\n", 3)).toBe("@@ -0,0 +1 @@\n+x\n");
    expect(unifiedHunks("x\n", "", 3)).toBe("@@ -1 +0,0 @@\n-x\n");
    expect(unifiedHunks("a\nb\nc\n", "a\nc\n", 1)).toBe("@@ -1,3 +1,2 @@\n a\n-b\n c\n");
    expect(unifiedHunks("same\n", "same\n", 3)).toBe("");
  });

  it("marks a missing final newline", () => {
    expect(unifiedHunks("a\nb", "a\nb\n", 3)).toBe(
      "@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+b\n",
    );
  });

  it("splits distant changes into separate hunks", () => {
    const old = `${Array.from({ length: 20 }, (_, i) => `l${i}`).join("\n")}\n`;
    const updated = old.replace("l2\n", "L2\n").replace("l17\n", "L17\n");
    const text = unifiedHunks(old, updated, 1);
    expect(text).toBe("@@ -2,3 +2,3 @@\n l1\n-l2\n+L2\n l3\n@@ -17,3 +17,3 @@\n l16\n-l17\n+L17\n l18\n");
  });
});

describe("TurnDiffTracker", () => {
  it("shows a move as a rename from the turn-start path", async () => {
    await writeFile(join(dir, "old.txt"), "same\nline\n");
    const tracker = new TurnDiffTracker();
    const p = await commitPatch(
      await plan(
        "*** Begin Patch\n*** Update File: old.txt\n*** Move to: new.txt\n@@\n-line\n+LINE\n*** End Patch",
      ),
    );
    await tracker.record(p);
    const a = join(dir, "old.txt");
    const b = join(dir, "new.txt");
    const diff = tracker.unifiedDiff();
    expect(diff).toMatch(new RegExp(`^diff --git a/${a} b/${b}\\nindex [0-9a-f]{40}\\.\\.[0-9a-f]{40}\\n`));
    expect(diff).toContain(`--- a/${a}\n+++ b/${b}\n@@ -1,2 +1,2 @@\n same\n-line\n+LINE\n`);
  });

  it("uses paths relative to the git root", async () => {
    await mkdir(join(dir, ".git"));
    await mkdir(join(dir, "src"));
    const tracker = new TurnDiffTracker();
    await tracker.record(
      await commitPatch(await plan("*** Begin Patch\n*** Add File: src/x.ts\n+x\n*** End Patch")),
    );
    expect(tracker.unifiedDiff()).toMatch(/^diff --git a\/src\/x\.ts b\/src\/x\.ts\nnew file mode 100644\n/);
  });

  it("shows deletions and binary files", async () => {
    await writeFile(join(dir, "bin"), Buffer.from([0, 255, 1]));
    await writeFile(join(dir, "t.txt"), "t\n");
    const tracker = new TurnDiffTracker();
    await tracker.record(
      await commitPatch(
        await plan("*** Begin Patch\n*** Delete File: bin\n*** Delete File: t.txt\n*** End Patch"),
      ),
    );
    const diff = tracker.unifiedDiff();
    expect(diff).toContain(`deleted file mode 100644\nindex `);
    expect(diff).toContain(`Binary files a/${join(dir, "bin")} and /dev/null differ\n`);
    expect(diff).toContain(`--- a/${join(dir, "t.txt")}\n+++ /dev/null\n@@ -1 +0,0 @@\n-t\n`);
  });
});
