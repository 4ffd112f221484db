/**
 * `npm run bench -- proxy-follow-ups`: what one conversation step costs through `tscodex proxy`
 * (JSONL store): a chain of non-streamed POST /v1/responses, each naming the previous response
 * (`previous_response_id`), first without and then with an `Idempotency-Key`. A step's store
 * work (reading the thread, recording which request answered which response, the key's record)
 * is what this measures; the fake model answers at once. With BENCH_BASELINE (another build's
 * bin/tscodex.js) the two builds run alternately, chain by chain, and each ratio is printed
 * with its spread.
 */
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { message, turn } from "../test/support/fake-model-server.js";
import { spawnListening } from "../test/support/listening-server.js";
import {
  benchRuns,
  fakeProviderToml,
  median,
  TSCODEX_BIN,
  withTempDirAndServer,
  writeResults,
} from "./support/bench.js";

const STEPS = Number(process.env.BENCH_STEPS ?? 40);
const ROUNDS = benchRuns(3);

interface Build {
  name: string;
  bin: string;
}

/** The per-step medians (ms) of one unkeyed and one keyed chain on a fresh proxy of `build`. */
async function chains(build: Build, root: string, baseUrl: string, round: number) {
  const home = join(root, `${build.name}-${round}`);
  await mkdir(home, { recursive: true });
  await writeFile(join(home, "config.toml"), fakeProviderToml(baseUrl));
  const proxy = await spawnListening(
    ["proxy", "--port", "0"],
    { home, cwd: home },
    { what: "proxy", cli: build.bin },
  );
  try {
    const chain = async (keyed: boolean): Promise<number> => {
      let previous: string | undefined;
      const times: number[] = [];
      for (let step = 0; step <= STEPS; step++) {
        const started = performance.now();
        const response = await fetch(`${proxy.url}/responses`, {
          method: "POST",
          headers: {
            "content-type": "application/json",
            ...(keyed ? { "idempotency-key": `bench-${round}-${step}` } : {}),
          },
          body: JSON.stringify({ model: "m", input: `step ${step}`, previous_response_id: previous }),
        });
        const body = (await response.json()) as { id?: string };
        if (response.status !== 200 || !body.id) throw new Error(`step ${step}: ${response.status}`);
        previous = body.id;
        // Step 0 opens the thread; the chain's cost is the follow-ups.
        if (step > 0) times.push(performance.now() - started);
      }
      return median(times);
    };
    return { unkeyed: await chain(false), keyed: await chain(true) };
  } finally {
    await proxy.stop();
  }
}

await withTempDirAndServer("tscodex-bench-follow-ups-", async (root, server) => {
  const builds: Build[] = [{ name: "tscodex", bin: TSCODEX_BIN }];
  if (process.env.BENCH_BASELINE) builds.push({ name: "tscodex-before", bin: process.env.BENCH_BASELINE });
  const results = new Map<string, { unkeyed: number[]; keyed: number[] }>(
    builds.map((b) => [b.name, { unkeyed: [], keyed: [] }]),
  );
  for (let round = 0; round < ROUNDS; round++) {
    for (const build of round % 2 === 0 ? builds : [...builds].reverse()) {
      server.reset();
      server.enqueue(...Array.from({ length: 2 * (STEPS + 1) }, (_, i) => turn(message(`answer ${i}`))));
      const step = await chains(build, root, server.url, round);
      const into = results.get(build.name);
      into?.unkeyed.push(step.unkeyed);
      into?.keyed.push(step.keyed);
    }
  }
  const f = (n: number) => n.toFixed(2);
  const summary: Record<string, { unkeyedMs: number; keyedMs: number }> = {};
  for (const [name, r] of results) {
    summary[name] = { unkeyedMs: median(r.unkeyed), keyedMs: median(r.keyed) };
    console.log(
      `${name}: follow-up step p50 ${f(median(r.unkeyed))} ms unkeyed, ${f(median(r.keyed))} ms with Idempotency-Key ` +
        `(${STEPS} steps x ${ROUNDS} chains; per-chain medians ${r.unkeyed.map(f).join(" ")} / ${r.keyed.map(f).join(" ")})`,
    );
  }
  const before = results.get("tscodex-before");
  const after = results.get("tscodex");
  if (before && after) {
    for (const kind of ["unkeyed", "keyed"] as const) {
      const ratios = after[kind].map((ms, i) => ms / (before[kind][i] ?? ms));
      console.log(
        `${kind}: ${f(median(ratios))}x the baseline (${f(Math.min(...ratios))}–${f(Math.max(...ratios))}, per alternating pair)`,
      );
    }
  }
  await writeResults("proxy-follow-ups", { steps: STEPS, rounds: ROUNDS, ...summary });
});
