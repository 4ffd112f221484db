/**
 * Sandbox overhead per command (issue 4): `true` spawned through runCommand, spawn → exit,
 * unsandboxed and under each tscodex backend (workspace-write, network off, a .git to keep
 * read-only), and `codex sandbox linux --full-auto -- true` of Codex 0.89 when found (what
 * Codex pays per sandboxed command: its binary re-executed as the Landlock helper).
 * Runs are interleaved across variants so drift hits all alike; medians of BENCH_SANDBOX_RUNS
 * (default 200). Overhead = variant median − unsandboxed median. Target: under 15 ms.
 */
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { runCommand } from "../src/exec/spawn.js";
import {
  bwrapBackendStatus,
  landlockBackendStatus,
  prepareSandboxedCommand,
  type SandboxPolicy,
} from "../src/policy/sandbox/index.js";
import { median, writeResults } from "./support/bench.js";
import { findCodex } from "./support/codex.js";

const RUNS = Number(process.env.BENCH_SANDBOX_RUNS ?? 200);
const WARMUP = 10;
const TARGET_MS = 15;

interface Variant {
  name: string;
  argv: string[];
  env: Record<string, string>;
  samples: number[];
}

async function main(): Promise<void> {
  // Outside /tmp, which is itself a writable root.
  const work = await mkdtemp(
    join(existsSync("/var/tmp") ? "/var/tmp" : process.cwd(), ".tscodex-bench-sandbox-"),
  );
  const ws = join(work, "ws");
  await mkdir(join(ws, ".git"), { recursive: true });
  const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: work };
  const policy: SandboxPolicy = {
    mode: "workspace-write",
    writableRoots: [ws, "/tmp"],
    networkAccess: false,
  };
  const variants: Variant[] = [{ name: "unsandboxed", argv: ["true"], env, samples: [] }];
  const skipped: string[] = [];
  const prepareUs: Record<string, number> = {};

  for (const [backend, status] of [
    ["bwrap", await bwrapBackendStatus()],
    ["landlock", await landlockBackendStatus()],
  ] as const) {
    if (!status.available) {
      skipped.push(`${backend}: ${status.reason}`);
      continue;
    }
    const prepared = await prepareSandboxedCommand(["true"], ws, policy, { backend });
    variants.push({ name: `tscodex ${backend}`, argv: prepared.argv, env, samples: [] });
    // What the policy layer pays per command before spawning.
    const times: number[] = [];
    for (let i = 0; i < 200; i++) {
      const started = performance.now();
      await prepareSandboxedCommand(["true"], ws, policy, { backend });
      times.push(performance.now() - started);
    }
    prepareUs[backend] = median(times) * 1000;
  }
  const codex = findCodex();
  if (codex) {
    const codexHome = join(work, "codex-home");
    await mkdir(codexHome, { recursive: true });
    await writeFile(join(codexHome, "config.toml"), "");
    variants.push({
      name: "codex-0.89 sandbox linux",
      argv: [codex, "sandbox", "linux", "--full-auto", "--", "true"],
      env: { ...env, CODEX_HOME: codexHome },
      samples: [],
    });
  } else {
    skipped.push("codex-0.89: not found (set CODEX_BIN or `npm install --no-save @openai/codex@0.89.0`)");
  }

  try {
    for (let i = 0; i < WARMUP + RUNS; i++) {
      for (const variant of variants) {
        const result = await runCommand({ argv: variant.argv, cwd: ws, env: variant.env, timeoutMs: 10_000 });
        if (result.exitCode !== 0) {
          throw new Error(`${variant.name} failed (exit ${result.exitCode}): ${result.aggregated.head}`);
        }
        if (i >= WARMUP) variant.samples.push(result.durationMs);
      }
    }
  } finally {
    await rm(work, { recursive: true, force: true });
  }

  const base = median(variants[0]?.samples ?? []);
  const rows: Record<string, Record<string, string>> = {};
  const raw: Record<string, unknown> = { runs: RUNS, prepareUs, skipped };
  for (const variant of variants) {
    const med = median(variant.samples);
    const overhead = med - base;
    const sorted = [...variant.samples].sort((a, b) => a - b);
    const p90 = sorted[Math.floor(sorted.length * 0.9)] ?? 0;
    rows[variant.name] = {
      "median spawn→exit": `${med.toFixed(2)} ms`,
      p90: `${p90.toFixed(2)} ms`,
      overhead: variant === variants[0] ? "" : `${overhead.toFixed(2)} ms`,
      target:
        variant === variants[0] || variant.name.startsWith("codex")
          ? ""
          : overhead < TARGET_MS
            ? "ok"
            : "MISSED",
    };
    raw[variant.name] = { medianMs: med, p90Ms: p90, overheadMs: overhead };
  }
  console.log(`sandbox overhead per command (\`true\`, median of ${RUNS} runs; target < ${TARGET_MS} ms)`);
  console.table(rows);
  for (const [backend, us] of Object.entries(prepareUs)) {
    console.log(`prepareSandboxedCommand (${backend}): ${us.toFixed(0)} µs per call`);
  }
  for (const line of skipped) console.log(`skipped ${line}`);
  await writeResults("sandbox", raw);
}

await main();
