/**
 * `npm run bench -- startup`: what a command costs before it does anything. `--version` of
 * tscodex (and of the $BENCH_BASELINE build and Codex 0.89 when present) against a bare
 * `node -e 0`, the floor of any Node CLI on this machine at this moment. Wall time and peak
 * RSS from wait4 (bench/measure.py), interleaved run by run so machine load hits all alike.
 * Target (issue 16): `tscodex --version` <= 1.2x `node -e 0`.
 */
import { benchRuns, makeAgents, measure, median, withTempDir, writeResults } from "./support/bench.js";
import { codexNotFound } from "./support/codex.js";

const RUNS = benchRuns(15);

async function main(): Promise<void> {
  await withTempDir("tscodex-bench-startup-", async (dir) => {
    const agents = await makeAgents(dir, 'model = "gpt-5.2-codex"\n', { baseline: true });
    const commands: [string, string[], Record<string, string>][] = [
      ["node -e 0", [process.execPath, "-e", "0"], {}],
      ...agents.map((agent): [string, string[], Record<string, string>] => [
        `${agent.name} --version`,
        agent.argv(["--version"]),
        agent.env,
      ]),
    ];
    const walls = commands.map((): number[] => []);
    const rss = commands.map((): number[] => []);
    for (let run = 0; run <= RUNS; run++) {
      for (const [index, [name, argv, env]] of commands.entries()) {
        const result = await measure(argv, { cwd: dir, env });
        if (result.exit !== 0) throw new Error(`${name} failed (exit ${result.exit}): ${result.stderr}`);
        // Run 0 warms the page cache.
        if (run === 0) continue;
        walls[index]?.push(result.wallMs);
        rss[index]?.push(result.rssMb);
      }
    }
    const floor = median(walls[0] ?? []);
    const rows: Record<string, Record<string, string>> = {};
    const raw: Record<string, { wallMs: number; rssMb: number }> = {};
    for (const [index, [name]] of commands.entries()) {
      const wallMs = median(walls[index] ?? []);
      const rssMb = median(rss[index] ?? []);
      raw[name] = { wallMs, rssMb };
      rows[name] = {
        wall: `${wallMs.toFixed(0)} ms`,
        "x node -e 0": (wallMs / floor).toFixed(2),
        "peak RSS": `${rssMb.toFixed(0)} MB`,
      };
    }
    console.log(`start-up (median of ${RUNS} interleaved runs); target: tscodex --version <= 1.2x node -e 0`);
    console.table(rows);
    if (!agents.some((agent) => agent.name === "codex-0.89")) console.log(codexNotFound());
    await writeResults("startup", { runs: RUNS, ...raw });
  });
}

await main();
