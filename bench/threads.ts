/**
 * `npm run bench -- threads`: loading a long thread back. A generated 1,000-turn rollout (a user
 * prompt, a reasoning summary, a shell call with ~1 KB of output and an answer per turn) is
 * (1) read and replayed in process (time, heap, RSS), (2) shown by `tscodex sessions show --json`
 * and (3) continued by `tscodex exec resume ID "continue"` against the fake model server — whole
 * CLI runs measured from outside (wall time, peak RSS via bench/measure.py), next to a fresh
 * one-turn `exec` as the baseline.
 */

import { execFileSync } from "node:child_process";
import { mkdir, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { userMessage } from "../src/protocol/items.js";
import { readRollout } from "../src/store/rollout-reader.js";
import { RolloutRecorder } from "../src/store/rollout-recorder.js";
import { uuidv7 } from "../src/util/ids.js";
import { message, turn } from "../test/support/fake-model-server.js";
import {
  benchRuns,
  fakeProviderToml,
  measure as measureCommand,
  median,
  medianSample,
  repeat as repeatRuns,
  type Sample,
  TSCODEX_BIN,
  withTempDirAndServer,
  writeResults,
} from "./support/bench.js";
import { benchTurnEvents } from "./support/turn-events.js";

const RUNS = benchRuns(5);
const TURNS = 1000;

async function generate(home: string, cwd: string): Promise<{ id: string; path: string; writeMs: number }> {
  const id = uuidv7();
  const started = performance.now();
  const recorder = await RolloutRecorder.create(home, {
    id,
    created: new Date().toISOString(),
    cwd,
    model: "gpt-5.2-codex",
    provider: "fake",
    approval_policy: "never",
    sandbox_mode: "read-only",
    source: "bench",
  });
  recorder.recordEvent({
    type: "raw_response_item",
    item: userMessage("<environment_context>\n</environment_context>"),
  });
  for (let i = 0; i < TURNS; i++) {
    for (const event of benchTurnEvents(i)) recorder.recordEvent(event);
    // One flush per turn, as a live thread would write.
    await recorder.flush();
  }
  await recorder.close();
  return { id, path: recorder.path, writeMs: performance.now() - started };
}

async function inProcess(path: string) {
  const rssBefore = process.memoryUsage().rss;
  const times: number[] = [];
  let items = 0;
  let heapMb = 0;
  for (let i = 0; i < RUNS; i++) {
    const heapBefore = process.memoryUsage().heapUsed;
    const started = performance.now();
    const stored = await readRollout(path);
    times.push(performance.now() - started);
    heapMb = Math.max(heapMb, (process.memoryUsage().heapUsed - heapBefore) / 2 ** 20);
    items = stored.history.length;
  }
  return {
    loadMs: median(times),
    items,
    heapDeltaMb: heapMb,
    rssGrowthMb: (process.memoryUsage().rss - rssBefore) / 2 ** 20,
  };
}

async function measure(argv: string[], cwd: string, home: string): Promise<Sample> {
  const result = await measureCommand([process.execPath, TSCODEX_BIN, ...argv], {
    cwd,
    env: { HOME: home, TSCODEX_HOME: home },
  });
  if (result.exit !== 0)
    throw new Error(`tscodex ${argv.join(" ")} failed (exit ${result.exit}):\n${result.stderr}`);
  return { wallMs: result.wallMs, rssMb: result.rssMb };
}

async function repeat(once: () => Promise<Sample>): Promise<Sample> {
  return medianSample(await repeatRuns(RUNS, once)); // the first run warms the page cache
}

async function main(): Promise<void> {
  await withTempDirAndServer("tscodex-bench-threads-", async (root, server) => {
    const home = join(root, "home");
    const work = join(root, "work");
    await mkdir(work, { recursive: true });
    execFileSync("git", ["init", "-q", work]);
    await mkdir(home, { recursive: true });
    await writeFile(join(home, "config.toml"), fakeProviderToml(server.url));
    const generated = await generate(home, work);
    const sizeMb = (await stat(generated.path)).size / 2 ** 20;
    const loaded = await inProcess(generated.path);
    const show = await repeat(() => measure(["sessions", "show", generated.id, "--json"], work, home));
    const answer = async (argv: string[]) => {
      server.reset();
      server.enqueue(turn(message("ok")));
      return measure(argv, work, home);
    };
    // Each resume appends a turn; 1,000 vs 1,006 turns makes no measurable difference.
    const resume = await repeat(() => answer(["exec", "resume", generated.id, "continue"]));
    const requestMb = Buffer.byteLength(server.requests.at(-1)?.rawBody ?? "") / 2 ** 20;
    const fresh = await repeat(() => answer(["exec", "hello"]));
    const results = {
      turns: TURNS,
      rolloutMb: sizeMb,
      writeMsTotal: generated.writeMs,
      inProcess: loaded,
      sessionsShow: show,
      execResume: { ...resume, requestMb },
      freshExecBaseline: fresh,
    };
    console.log(
      `threads benchmark: a ${TURNS}-turn rollout (${sizeMb.toFixed(1)} MB), median of ${RUNS} runs`,
    );
    console.table({
      "write (1 flush per turn)": { time: `${generated.writeMs.toFixed(0)} ms total`, memory: "" },
      "load + replay in process": {
        time: `${loaded.loadMs.toFixed(1)} ms (${loaded.items} items)`,
        memory: `heap +${loaded.heapDeltaMb.toFixed(0)} MB, RSS +${loaded.rssGrowthMb.toFixed(0)} MB`,
      },
      "tscodex sessions show --json": {
        time: `${show.wallMs.toFixed(0)} ms`,
        memory: `${show.rssMb.toFixed(0)} MB peak RSS`,
      },
      "tscodex exec resume (1 turn)": {
        time: `${resume.wallMs.toFixed(0)} ms (request ${requestMb.toFixed(1)} MB)`,
        memory: `${resume.rssMb.toFixed(0)} MB peak RSS`,
      },
      "baseline: fresh exec (1 turn)": {
        time: `${fresh.wallMs.toFixed(0)} ms`,
        memory: `${fresh.rssMb.toFixed(0)} MB peak RSS`,
      },
    });
    await writeResults("threads", results);
  });
}

await main();
