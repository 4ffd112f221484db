/**
 * Property tests with a fixed seed (deterministic, fast): generated patches round-trip, and
 * damaged patches either apply or fail with a patch error, never writing anything on failure.
 */
import { mkdir, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { applyPatch as applyUnifiedDiff } from "diff";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  applyPatch,
  commitPatch,
  PatchError,
  parsePatch,
  planPatch,
  TurnDiffTracker,
} from "../../src/apply-patch/index.js";
import type { FileChange } from "../../src/protocol/events.js";
import { mutatePatch, prng, Random, randomPatchFor, randomScenario } from "./patch-gen.js";
import { makeTempDir, readTree } from "./support.js";

const SEED = 0x5eed;
const ROUND_TRIPS = 200;
const GARBAGE = 200;
const TURNS = 50;

let root = "";
let cleanup: () => Promise<void> = async () => undefined;
beforeAll(async () => {
  ({ dir: root, cleanup } = await makeTempDir());
});
afterAll(() => cleanup());

async function writeTree(dir: string, files: Record<string, string>): Promise<void> {
  await mkdir(dir, { recursive: true });
  for (const [path, text] of Object.entries(files)) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), text);
  }
}

function asText(tree: Record<string, Buffer>): Record<string, string> {
  return Object.fromEntries(Object.entries(tree).map(([k, v]) => [k, v.toString("utf8")]));
}

describe("apply_patch properties", () => {
  it(`round-trips ${ROUND_TRIPS} generated patches: apply(patch(a→b)) = b`, async () => {
    const r = new Random(prng(SEED));
    for (let i = 0; i < ROUND_TRIPS; i++) {
      const scenario = randomScenario(r);
      const cwd = join(root, `rt${i}`);
      await writeTree(cwd, scenario.before);
      let changes: Record<string, FileChange>;
      try {
        changes = (await commitPatch(await planPatch(parsePatch(scenario.patch), cwd))).changes;
      } catch (error) {
        throw new Error(`case ${i} failed: ${(error as Error).message}\n--- patch ---\n${scenario.patch}`);
      }
      // Each update's FileChange diff turns the old content into the new one.
      for (const [path, change] of Object.entries(changes)) {
        if (change.type !== "update") continue;
        const oldText = scenario.before[path.slice(cwd.length + 1)]!;
        const newText = scenario.after[(change.move_path ?? path).slice(cwd.length + 1)]!;
        const applied = change.unified_diff === "" ? oldText : applyUnifiedDiff(oldText, change.unified_diff);
        expect(applied, `case ${i} ${path}\n${scenario.patch}\n${change.unified_diff}`).toBe(newText);
      }
      expect(asText(await readTree(cwd)), `case ${i}\n${scenario.patch}`).toEqual(scenario.after);
    }
  });

  it(`never partially writes on ${GARBAGE} damaged patches`, async () => {
    const r = new Random(prng(SEED + 1));
    let failures = 0;
    for (let i = 0; i < GARBAGE; i++) {
      const scenario = randomScenario(r);
      const patch = mutatePatch(r, scenario.patch);
      // Nested two levels down, so even a stray `../` would stay inside the snapshot.
      const top = join(root, `g${i}`);
      const cwd = join(top, "a", "b");
      await writeTree(cwd, scenario.before);
      const before = await readTree(top);
      try {
        await applyPatch(patch, cwd);
      } catch (error) {
        failures++;
        if (!(error instanceof PatchError))
          throw new Error(`case ${i}: unexpected ${String(error)}\n${patch}`);
        expect(await readTree(top), `case ${i}: tree changed after "${error.message}"\n${patch}`).toEqual(
          before,
        );
        continue;
      }
      // Applied: no temp file may be left behind.
      const after = Object.keys(await readTree(top));
      expect(
        after.filter((path) => path.endsWith(".tmp")),
        `case ${i}`,
      ).toEqual([]);
    }
    // The damage must actually break most patches, or this test proves little.
    expect(failures).toBeGreaterThan(GARBAGE / 3);
  });

  it(`keeps a valid turn diff over ${TURNS} turns of several patches`, async () => {
    const r = new Random(prng(SEED + 2));
    for (let t = 0; t < TURNS; t++) {
      const cwd = join(root, `turn${t}`);
      const start = randomScenario(r).before;
      await writeTree(cwd, start);
      const tracker = new TurnDiffTracker();
      let tree = start;
      const patches: string[] = [];
      for (let round = r.int(4) + 1; round > 0; round--) {
        const next = randomPatchFor(r, tree, `r${round}_`);
        patches.push(next.patch);
        await tracker.record(await commitPatch(await planPatch(parsePatch(next.patch), cwd)));
        tree = next.after;
      }
      const context = `turn ${t}\n${patches.join("\n\n")}\n--- diff ---\n${tracker.unifiedDiff()}`;
      expect(asText(await readTree(cwd)), context).toEqual(tree);
      checkTurnDiff(tracker.unifiedDiff(), cwd, start, tree, context);
    }
  });
});

/** Every changed file has a section, and its hunks turn the start content into the final one. */
function checkTurnDiff(
  diff: string,
  cwd: string,
  start: Record<string, string>,
  end: Record<string, string>,
  context: string,
): void {
  const rel = (path: string): string => path.slice(cwd.length + 1);
  const mentioned = new Set<string>();
  for (const section of diff.split(/^(?=diff --git )/m).filter(Boolean)) {
    const header = /^diff --git a\/(\S+) b\/(\S+)\n/.exec(section);
    expect(header, context).not.toBeNull();
    const from = rel(header![1]!);
    const to = rel(header![2]!);
    mentioned.add(from).add(to);
    const isNew = section.includes("\nnew file mode ");
    const isDeleted = section.includes("\ndeleted file mode ");
    const oldText = isNew ? "" : start[from];
    const newText = isDeleted ? "" : end[to];
    expect(oldText, `${context}\nno start content for ${from}`).toBeDefined();
    expect(newText, `${context}\nno end content for ${to}`).toBeDefined();
    const body = section.indexOf("\n--- ");
    if (body < 0) {
      expect(oldText, context).toBe(newText);
      continue;
    }
    expect(applyUnifiedDiff(oldText!, section.slice(body + 1)), `${context}\nsection ${from} -> ${to}`).toBe(
      newText,
    );
  }
  for (const path of new Set([...Object.keys(start), ...Object.keys(end)])) {
    if (start[path] !== end[path]) expect(mentioned.has(path), `${context}\n${path} missing`).toBe(true);
  }
}
