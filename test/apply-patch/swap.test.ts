/**
 * A directory swapped for a symlink after apply_patch was checked (and approved) must not
 * carry the write outside: the real paths are checked again right before writing, after any
 * re-plan (issue 15 item 1, the check-then-swap case).
 */
import { existsSync } from "node:fs";
import { mkdir, readFile, rename, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { preparePatch } from "../../src/tools/builtin/apply-patch.js";
import { fakeTurn, invocation } from "./fake-turn.js";
import { makeTempDir } from "./support.js";

let base = "";
let cleanup: () => Promise<void> = async () => undefined;
beforeEach(async () => {
  ({ dir: base, cleanup } = await makeTempDir());
  await mkdir(join(base, "ws", "dir"), { recursive: true });
  await mkdir(join(base, "outside"));
  await writeFile(join(base, "ws", "dir", "a.txt"), "one\n");
  await writeFile(join(base, "outside", "a.txt"), "one\n");
});
afterEach(() => cleanup());

const ws = () => join(base, "ws");

/** Replace ws/dir with a symlink to ../outside (what a sandboxed background process can do). */
async function swapDirForLink(): Promise<void> {
  await rename(join(ws(), "dir"), join(ws(), "dir-old"));
  await symlink(join(base, "outside"), join(ws(), "dir"));
}

describe("apply_patch after the checked paths changed", () => {
  it.each([
    ["an added file", "*** Begin Patch\n*** Add File: dir/new.txt\n+planted\n*** End Patch\n", "new.txt"],
    [
      "an updated file (re-planned: its contents look changed)",
      "*** Begin Patch\n*** Update File: dir/a.txt\n@@\n-one\n+planted\n*** End Patch\n",
      "a.txt",
    ],
  ])("%s is not written through the swapped-in link", async (_title, patch, name) => {
    const turn = fakeTurn(ws());
    const prepared = await preparePatch(patch, ws(), invocation(turn, { kind: "function", arguments: "{}" }));
    expect(prepared.approval.kind === "patch" && prepared.approval.paths).toEqual([join(ws(), "dir", name)]);
    await swapDirForLink();
    const result = await prepared.apply({ asked: false });
    expect(result.exitCode).toBe(1);
    expect(result.output).toMatch(/where it writes changed since it was checked/);
    const outsideFile = join(base, "outside", name);
    if (existsSync(outsideFile)) expect(await readFile(outsideFile, "utf8")).not.toContain("planted");
  });

  it("an unchanged tree still applies", async () => {
    const turn = fakeTurn(ws());
    const prepared = await preparePatch(
      "*** Begin Patch\n*** Add File: dir/new.txt\n+fine\n*** End Patch\n",
      ws(),
      invocation(turn, { kind: "function", arguments: "{}" }),
    );
    expect((await prepared.apply({ asked: false })).exitCode).toBe(0);
    expect(await readFile(join(ws(), "dir", "new.txt"), "utf8")).toBe("fine\n");
  });
});
