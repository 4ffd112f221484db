/**
 * Shared by the benchmarks (bench/support/ is not itself run by `npm run bench`): run counts,
 * medians, whole-CLI runs measured from outside by bench/measure.py (wall time and peak RSS
 * from wait4), the agents compared (tscodex and, when found, Codex 0.89) with their homes, the
 * temp dir and fake model server a bench runs in, and the results file.
 */
import { execFile } from "node:child_process";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import {
  type FakeModelServer,
  type ScriptEntry,
  startFakeModelServer,
} from "../../test/support/fake-model-server.js";
import { findCodex } from "./codex.js";

/**
 * What a real Codex user's home has and a bench home would lack: an API-key login. Without it
 * Codex spends seconds at every start trying to refresh its model list from chatgpt.com.
 */
export const CODEX_AUTH_JSON = `${JSON.stringify({ OPENAI_API_KEY: "x" })}\n`;

/**
 * Codex 0.169's model catalog (`model_catalog_json`): with it Codex knows the model's tools
 * (apply_patch among them) without a network refresh, as with a real login.
 */
const CODEX_169_CATALOG = join(process.cwd(), "test/fixtures/reference/models/model-catalog-for-0.169.json");

/** How the benches set Codex up, for their output: what its home has that ours does not need. */
export const CODEX_SETUP_NOTE =
  'Codex homes hold an API-key auth.json ({"OPENAI_API_KEY": "x"}) as a user\'s does; ' +
  "Codex 0.169 is also given a model catalog (model_catalog_json), so neither refreshes models over the network";

const run = promisify(execFile);
const MEASURE = join(process.cwd(), "bench/measure.py");

/** The built CLI's entry point. */
export const TSCODEX_BIN = join(process.cwd(), "bin/tscodex.js");

/** $BENCH_RUNS, else `fallback`. */
export function benchRuns(fallback: number): number {
  return Number(process.env.BENCH_RUNS ?? fallback);
}

/** The median (the mean of the middle two for an even count; 0 for none). */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? (sorted[mid] ?? 0) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
}

/** One whole-process run: wall time and peak RSS. */
export interface Sample {
  wallMs: number;
  rssMb: number;
}

/** Wall time and RSS, each the median of its own. */
export function medianSample(samples: readonly Sample[]): Sample {
  return { wallMs: median(samples.map((s) => s.wallMs)), rssMb: median(samples.map((s) => s.rssMb)) };
}

/** Runs `once` one time to warm the page cache, then `runs` times; returns those samples. */
export async function repeat<T>(runs: number, once: () => Promise<T>): Promise<T[]> {
  await once();
  const samples: T[] = [];
  for (let i = 0; i < runs; i++) samples.push(await once());
  return samples;
}

/** Runs `body` in a fresh temp dir named `prefix…`, removed after it whatever happens. */
export async function withTempDir<T>(prefix: string, body: (dir: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  try {
    return await body(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Runs `body` with a started fake model server, closed after it whatever happens. */
export async function withFakeModelServer<T>(body: (server: FakeModelServer) => Promise<T>): Promise<T> {
  const server = await startFakeModelServer();
  try {
    return await body(server);
  } finally {
    await server.close();
  }
}

/** withTempDir and withFakeModelServer together: the server is closed first, then the dir removed. */
export function withTempDirAndServer<T>(
  prefix: string,
  body: (dir: string, server: FakeModelServer) => Promise<T>,
): Promise<T> {
  return withTempDir(prefix, (dir) => withFakeModelServer((server) => body(dir, server)));
}

/** A config.toml routing gpt-5.2-codex to the fake model server (key FAKE_KEY), then `tables`. */
export function fakeProviderToml(baseUrl: string, tables = ""): string {
  return [
    'model = "gpt-5.2-codex"',
    'model_provider = "fake"',
    "[model_providers.fake]",
    'name = "fake"',
    `base_url = "${baseUrl}"`,
    'wire_api = "responses"',
    'env_key = "FAKE_KEY"',
    "",
    tables,
  ].join("\n");
}

/** A CLI under comparison, with its own home. */
export interface Agent {
  /** tscodex-before: the build at $BENCH_BASELINE (see makeAgents). */
  name: "tscodex" | "tscodex-before" | "codex-0.89" | "codex-0.169";
  /** The command line running it with `args` (e.g. `["exec", "--full-auto", "prompt"]`). */
  argv: (args: string[]) => string[];
  /** Its home (HOME too), holding config.toml. */
  home: string;
  env: Record<string, string>;
}

/**
 * tscodex (`options.tscodex`, default the built CLI), with `options.baseline` another build of it
 * as tscodex-before when $BENCH_BASELINE names its bin/tscodex.js (before/after numbers taken in
 * one run), and Codex 0.89 when found (bench/support/codex.ts), and with `options.codex169`
 * Codex 0.169 when found; each with a home under `dir` (named with `options.suffix`) whose
 * config.toml is `toml`. A Codex home also gets CODEX_AUTH_JSON, and 0.169's config names the
 * model catalog (see CODEX_SETUP_NOTE).
 */
export async function makeAgents(
  dir: string,
  toml: string,
  options: {
    tscodex?: string | undefined;
    suffix?: string | undefined;
    baseline?: boolean;
    codex169?: boolean;
  } = {},
): Promise<Agent[]> {
  const home = async (name: string, configToml = toml): Promise<string> => {
    const path = join(dir, `${name}${options.suffix ?? ""}`);
    await mkdir(path, { recursive: true });
    await writeFile(join(path, "config.toml"), configToml);
    if (name.startsWith("codex-")) await writeFile(join(path, "auth.json"), CODEX_AUTH_JSON, { mode: 0o600 });
    return path;
  };
  const tscodex = options.tscodex ?? TSCODEX_BIN;
  const tsHome = await home("tscodex-home");
  const agents: Agent[] = [
    {
      name: "tscodex",
      argv: (args) => [process.execPath, tscodex, ...args],
      home: tsHome,
      env: { HOME: tsHome, TSCODEX_HOME: tsHome },
    },
  ];
  const baseline = options.baseline ? process.env.BENCH_BASELINE : undefined;
  if (baseline) {
    const beforeHome = await home("tscodex-before-home");
    agents.push({
      name: "tscodex-before",
      argv: (args) => [process.execPath, baseline, ...args],
      home: beforeHome,
      env: { HOME: beforeHome, TSCODEX_HOME: beforeHome },
    });
  }
  const codex = findCodex();
  if (codex) {
    const codexHome = await home("codex-home");
    agents.push({
      name: "codex-0.89",
      argv: (args) => [codex, ...args],
      home: codexHome,
      env: { HOME: codexHome, CODEX_HOME: codexHome },
    });
  }
  const codex169 = options.codex169 ? findCodex("0.169") : null;
  if (codex169) {
    // A top-level key, so it goes before the tables.
    const codexHome = await home(
      "codex-169-home",
      `model_catalog_json = ${JSON.stringify(CODEX_169_CATALOG)}\n${toml}`,
    );
    agents.push({
      name: "codex-0.169",
      argv: (args) => [codex169, ...args],
      home: codexHome,
      env: { HOME: codexHome, CODEX_HOME: codexHome },
    });
  }
  return agents;
}

/** A measured run: its sample, exit code and stderr. */
export interface Measured extends Sample {
  exit: number;
  stderr: string;
}

/** Runs `argv` under bench/measure.py in `cwd`, with PATH, FAKE_KEY=bench and `env`. */
export async function measure(
  argv: string[],
  options: { cwd: string; env: Record<string, string> },
): Promise<Measured> {
  const { stdout } = await run("python3", [MEASURE, "--", ...argv], {
    cwd: options.cwd,
    env: { PATH: process.env.PATH ?? "", FAKE_KEY: "bench", ...options.env },
    maxBuffer: 1 << 20,
  });
  const result = JSON.parse(stdout) as { wall_ms: number; max_rss_kb: number; exit: number; stderr: string };
  return {
    wallMs: result.wall_ms,
    rssMb: result.max_rss_kb / 1024,
    exit: result.exit,
    stderr: result.stderr,
  };
}

/**
 * Resets the server, queues `script`, and runs `agent` with `args` in `cwd`; throws unless it
 * exited 0 having used every scripted turn.
 */
export async function measureScripted(
  agent: Agent,
  server: FakeModelServer,
  script: ScriptEntry[],
  args: string[],
  cwd: string,
): Promise<Measured> {
  server.reset();
  server.enqueue(...script);
  const result = await measure(agent.argv(args), { cwd, env: agent.env });
  if (result.exit !== 0 || server.pending !== 0) {
    throw new Error(
      `${agent.name} run failed (exit ${result.exit}, ${server.pending} turns unused):\n${result.stderr}`,
    );
  }
  return result;
}

/** Writes bench/results/<name>.json. */
export async function writeResults(name: string, data: unknown): Promise<void> {
  await mkdir(join(process.cwd(), "bench/results"), { recursive: true });
  await writeFile(join(process.cwd(), `bench/results/${name}.json`), `${JSON.stringify(data, null, 2)}\n`);
}
