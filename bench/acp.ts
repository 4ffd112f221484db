/**
 * `npm run bench -- acp`: what an editor waits for and what it keeps resident (issue 42), the
 * native `tscodex acp` against codex-acp 2.6 over `tscodex app-server` (its `CODEX_PATH`), and
 * over Codex 0.171 when `CODEX_171_BIN` names its binary; alternately, run by run:
 * - spawn → `initialize` → `session/new` → `session/prompt` → the first `agent_message_chunk`
 *   (the fake model answers at once), and the prompt's answer;
 * - the peak RSS of the processes serving the editor (one for the native agent; codex-acp and
 *   the app-server it spawns for the bridge), read from /proc before the agent is closed.
 * Target: the native agent's first chunk <= 0.8x the bridge's, in one process of <= 0.6x the
 * bridge's memory.
 */
import { spawn } from "node:child_process";
import { chmod, mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { acpClientOf } from "../test/support/acp-client.js";
import { writeFakeConfig } from "../test/support/cli.js";
import { CODEX_ACP_BIN } from "../test/support/codex-acp.js";
import { type FakeModelServer, message, turn } from "../test/support/fake-model-server.js";
import { benchRuns, median, TSCODEX_BIN, withTempDirAndServer, writeResults } from "./support/bench.js";

const RUNS = benchRuns(9);

interface Contestant {
  name: string;
  argv: string[];
  env: Record<string, string>;
}

interface Sample {
  firstChunkMs: number;
  answerMs: number;
  rssMb: number;
}

/** Peak RSS (VmHWM) of `pid` and every process below it, in MB. */
async function treeRssMb(pid: number): Promise<number> {
  let total = 0;
  const pending = [pid];
  while (pending.length > 0) {
    const current = pending.pop() as number;
    const status = await readFile(`/proc/${current}/status`, "utf8").catch(() => "");
    total += Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
    const tasks = await readFile(`/proc/${current}/task/${current}/children`, "utf8").catch(() => "");
    pending.push(...tasks.split(/\s+/).filter(Boolean).map(Number));
  }
  return total;
}

async function once(contestant: Contestant, server: FakeModelServer, cwd: string): Promise<Sample> {
  server.reset();
  server.enqueue(...Array.from({ length: 5 }, () => turn(message("ready when you are"))));
  const started = performance.now();
  const child = spawn(contestant.argv[0] as string, contestant.argv.slice(1), {
    cwd,
    env: { PATH: process.env.PATH ?? "", FAKE_KEY: "bench", ...contestant.env },
    stdio: ["pipe", "pipe", "pipe"],
  });
  const acp = acpClientOf(child);
  try {
    await acp.agent.request("initialize", {
      protocolVersion: 1,
      clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
    });
    const { sessionId } = await acp.agent.request("session/new", { cwd, mcpServers: [] });
    const answer = acp.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "hi" }] });
    await acp.waitForUpdate((note) => note.update.sessionUpdate === "agent_message_chunk", 30_000);
    const firstChunkMs = performance.now() - started;
    await answer;
    const answerMs = performance.now() - started;
    const rssMb = await treeRssMb(child.pid as number);
    return { firstChunkMs, answerMs, rssMb };
  } catch (error) {
    throw new Error(`${contestant.name}: ${(error as Error).message}\n${acp.stderr()}`);
  } finally {
    await acp.close();
  }
}

await withTempDirAndServer("tscodex-bench-acp-", async (dir, server) => {
  const home = join(dir, "home");
  const work = join(dir, "work");
  await mkdir(work, { recursive: true });
  await writeFakeConfig(home, { baseUrl: server.url });
  const homeEnv = { HOME: home, TSCODEX_HOME: home };
  const wrapper = join(dir, "tscodex-wrapper.sh");
  await writeFile(
    wrapper,
    `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(TSCODEX_BIN)} "$@"\n`,
  );
  await chmod(wrapper, 0o755);
  const contestants: Contestant[] = [
    { name: "tscodex acp", argv: [process.execPath, TSCODEX_BIN, "acp"], env: homeEnv },
    {
      name: "codex-acp + tscodex app-server",
      argv: [process.execPath, CODEX_ACP_BIN],
      env: { ...homeEnv, CODEX_PATH: wrapper, NO_BROWSER: "1" },
    },
  ];
  const codex171 = process.env.CODEX_171_BIN;
  if (codex171)
    contestants.push({
      name: "codex-acp + Codex 0.171",
      argv: [process.execPath, CODEX_ACP_BIN],
      env: { HOME: home, CODEX_HOME: home, CODEX_PATH: codex171, NO_BROWSER: "1" },
    });
  const samples = new Map<string, Sample[]>(contestants.map((c) => [c.name, []]));
  for (let run = 0; run <= RUNS; run++)
    for (const contestant of contestants) {
      const sample = await once(contestant, server, work);
      if (run > 0) samples.get(contestant.name)?.push(sample);
    }
  const results: Record<string, { firstChunkMs: number; answerMs: number; rssMb: number }> = {};
  for (const [name, list] of samples) {
    results[name] = {
      firstChunkMs: median(list.map((s) => s.firstChunkMs)),
      answerMs: median(list.map((s) => s.answerMs)),
      rssMb: median(list.map((s) => s.rssMb)),
    };
    const r = results[name];
    console.log(
      `${name.padEnd(32)} first chunk ${r.firstChunkMs.toFixed(0)} ms, answer ${r.answerMs.toFixed(0)} ms, peak RSS ${r.rssMb.toFixed(1)} MB`,
    );
  }
  const native = results["tscodex acp"];
  const bridge = results["codex-acp + tscodex app-server"];
  if (native && bridge)
    console.log(
      `native / bridge: first chunk ${(native.firstChunkMs / bridge.firstChunkMs).toFixed(2)}x (target <= 0.8x), memory ${(native.rssMb / bridge.rssMb).toFixed(2)}x (target <= 0.6x)`,
    );
  if (!codex171) console.log("codex-acp + Codex 0.171: skipped (set CODEX_171_BIN to its binary)");
  await writeResults("acp", { runs: RUNS, results });
});
