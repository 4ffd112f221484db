/**
 * Manual performance check (not part of the test run): a 20,000-line file and a 500-hunk patch.
 * Run: node scripts/run-ts.mjs test/apply-patch/big-patch-check.ts
 */

import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { commitPatch, parsePatch, planPatch, TurnDiffTracker } from "../../src/apply-patch/index.js";
import { applyPatchFreeformTool } from "../../src/tools/builtin/apply-patch.js";
import { runHandler } from "../support/turn-context.js";
import { fakeTurn, invocation } from "./fake-turn.js";
import { makeTempDir } from "./support.js";

const LINES = 20_000;
const HUNKS = 500;

function bigFile(): string[] {
  return Array.from(
    { length: LINES },
    (_, i) => `    const value${i % 1000} = compute(${i}, "${(i * 7919) % 10007}");`,
  );
}

function bigPatch(lines: readonly string[], round: number): string {
  const out = ["*** Begin Patch", "*** Update File: big.ts"];
  const step = Math.floor(LINES / HUNKS);
  for (let h = 0; h < HUNKS; h++) {
    const at = h * step + 5;
    out.push("@@");
    for (let k = at - 3; k < at; k++) out.push(` ${lines[k]}`);
    out.push(`-${lines[at]}`, `+    const changed${h} = ${round};`);
    for (let k = at + 1; k <= at + 3; k++) out.push(` ${lines[k]}`);
  }
  out.push("*** End Patch");
  return out.join("\n");
}

const ms = (t: number) => `${(performance.now() - t).toFixed(1)} ms`;

const { dir, cleanup } = await makeTempDir();
try {
  const lines = bigFile();
  for (let round = 0; round < 5; round++) {
    await writeFile(join(dir, "big.ts"), `${lines.join("\n")}\n`);
    const text = bigPatch(lines, round);
    let t = performance.now();
    const t0 = t;
    const parsed = parsePatch(text);
    const parse = ms(t);
    t = performance.now();
    const plan = await planPatch(parsed, dir);
    const planned = ms(t);
    t = performance.now();
    await commitPatch(plan);
    const committed = ms(t);
    const total = ms(t0);
    t = performance.now();
    const tracker = new TurnDiffTracker();
    await tracker.record(plan);
    const diff = tracker.unifiedDiff();
    const diffed = ms(t);
    console.log(
      `round ${round}: parse ${parse}, plan ${planned}, commit ${committed} → apply ${total}; turn diff ${diffed} (${diff.length} chars)`,
    );
  }
  // Whole tool round trip: handler, events, turn diff.
  const { handler } = applyPatchFreeformTool();
  for (let round = 0; round < 3; round++) {
    await writeFile(join(dir, "big.ts"), `${lines.join("\n")}\n`);
    const turn = fakeTurn(dir);
    const t = performance.now();
    await runHandler(handler, invocation(turn, { kind: "custom", input: bigPatch(lines, round) }));
    console.log(`tool round trip ${round}: ${ms(t)} (${turn.events.length} events)`);
  }
  const final = await readFile(join(dir, "big.ts"), "utf8");
  console.log(`check: ${final.split("\n").filter((l) => l.includes("changed")).length} lines changed`);
} finally {
  await cleanup();
}
