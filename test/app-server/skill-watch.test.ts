/**
 * The skill-root watcher on its own: bounded watchers, a missing root watched through its
 * parent, and nothing heard after close.
 */
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { MAX_WATCHERS, SkillRootWatcher } from "../../src/frontends/app-server/skill-watch.js";
import { tmpdir } from "../support/tmpdir.js";

async function setup() {
  const dir = await tmpdir();
  const home = join(dir.path, "home");
  const cwd = join(dir.path, "work");
  await mkdir(home, { recursive: true });
  await mkdir(cwd, { recursive: true });
  let heard: () => void = () => {};
  const watcher = new SkillRootWatcher({
    home: () => home,
    env: { HOME: join(dir.path, "user") },
    extraRoots: () => [],
    onChange: () => {
      heard();
    },
  });
  const next = () => new Promise<void>((resolve) => (heard = resolve));
  return { dir, home, cwd, watcher, next };
}

describe("SkillRootWatcher", () => {
  it("watches at most MAX_WATCHERS directories however many skills a root has", async () => {
    const { dir, home, cwd, watcher } = await setup();
    try {
      const root = join(home, "skills");
      await Promise.all(
        Array.from({ length: MAX_WATCHERS + 20 }, (_, i) => mkdir(join(root, `s${i}`), { recursive: true })),
      );
      await watcher.addCwd(cwd);
      expect(watcher.size).toBe(MAX_WATCHERS);
    } finally {
      watcher.close();
      await dir.cleanup();
    }
  });

  it("hears a missing root being created, then a change in it; watches nothing once closed", async () => {
    const { dir, home, cwd, watcher, next } = await setup();
    try {
      await watcher.addCwd(cwd);
      const root = join(home, "skills");
      let heard = next();
      await mkdir(root);
      await heard;
      heard = next();
      await writeFile(join(root, "README"), "not a skill dir, but a change of the root");
      await heard;
      // Closed: every watcher goes, and nothing is watched again.
      watcher.close();
      expect(watcher.size).toBe(0);
      await watcher.addCwd(join(cwd, "elsewhere"));
      expect(watcher.size).toBe(0);
    } finally {
      watcher.close();
      await dir.cleanup();
    }
  });
});
