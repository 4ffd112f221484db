/**
 * `npm run bench -- sub-agents`: (1) spawn to first request: from the moment the fake model
 * server answers the parent's spawn_agent call until the child's first model request arrives
 * (thread creation, prompt assembly, request), in process through the library; (2) a whole
 * `tscodex exec --enable collab` run whose parent starts 8 children at once (each runs a
 * command and answers), waits for them all and answers: wall time and peak RSS from outside.
 * Codex 0.89's collab tools need its own backend, so there is no Codex column here.
 */
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { Tscodex as TscodexClass } from "../src/index.js";
import { messageText, type ResponseItem } from "../src/protocol/items.js";
import { callOutputs } from "../test/support/exec-harness.js";
import { functionCall, message, turn } from "../test/support/fake-model-server.js";
import {
  benchRuns,
  fakeProviderToml,
  measure,
  median,
  medianSample,
  repeat,
  TSCODEX_BIN,
  withTempDirAndServer,
  writeResults,
} from "./support/bench.js";

const RUNS = benchRuns(5);
const CHILDREN = 8;

const childTask = (input: readonly ResponseItem[]) => {
  for (const item of input) {
    if (item.type === "message" && item.role === "user" && messageText(item).startsWith("child "))
      return messageText(item);
  }
  return null;
};

// The built library (dist/), as a user imports it: it finds its prompts beside itself.
const { Tscodex } = (await import(join(process.cwd(), "dist/index.js"))) as { Tscodex: typeof TscodexClass };

async function main(): Promise<void> {
  await withTempDirAndServer("tscodex-bench-agents-", async (dir, server) => {
    const home = join(dir, "home");
    await mkdir(home, { recursive: true });
    await writeFile(
      join(home, "config.toml"),
      fakeProviderToml(server.url, `[features]\ncollab = true\n[collab]\nmax_concurrent = ${CHILDREN}\n`),
    );
    const env = { PATH: process.env.PATH ?? "", HOME: home, TSCODEX_HOME: home, FAKE_KEY: "bench" };

    // (1) Spawn to the child's first request, in process.
    const latencies: number[] = [];
    for (let run = 0; run < RUNS + 1; run++) {
      server.reset();
      let answered = 0;
      let childAsked = 0;
      for (let i = 0; i < 6; i++) {
        server.enqueue((request) => {
          const task = childTask(request.input);
          if (task) {
            childAsked ||= performance.now();
            return turn(message("done"));
          }
          const outputs = callOutputs(request.input);
          if (!outputs.s) {
            answered = performance.now();
            return turn(functionCall("spawn_agent", { message: "child 1" }, "s"));
          }
          if (!outputs.w) {
            const id = (JSON.parse(String(outputs.s)) as { agent_id: string }).agent_id;
            return turn(functionCall("wait", { ids: [id], timeout_ms: 10000 }, "w"));
          }
          return turn(message("ok"));
        });
      }
      const agent = new Tscodex({ home, env, persist: false });
      await agent.startThread({ cwd: dir }).run("go");
      await agent.close();
      if (run > 0) latencies.push(childAsked - answered); // the first run warms the module cache
    }

    // (2) 8 children at once through the CLI.
    const script = () => {
      for (let i = 0; i < 4 * CHILDREN + 4; i++) {
        server.enqueue((request) => {
          const outputs = callOutputs(request.input);
          const task = childTask(request.input);
          if (task)
            return outputs.c
              ? turn(message(`${task} done`))
              : turn(functionCall("shell_command", { command: "true" }, "c"));
          if (!outputs.s0) {
            return turn(
              ...Array.from({ length: CHILDREN }, (_, n) =>
                functionCall("spawn_agent", { message: `child ${n}` }, `s${n}`),
              ),
            );
          }
          const ids = Array.from(
            { length: CHILDREN },
            (_, n) => (JSON.parse(String(outputs[`s${n}`])) as { agent_id: string }).agent_id,
          );
          const seen = new Set<string>();
          let waits = 0;
          for (const [callId, output] of Object.entries(outputs)) {
            if (!callId.startsWith("w")) continue;
            waits += 1;
            for (const id of Object.keys((JSON.parse(String(output)) as { status: object }).status))
              seen.add(id);
          }
          const missing = ids.filter((id) => !seen.has(id));
          if (missing.length > 0)
            return turn(functionCall("wait", { ids: missing, timeout_ms: 30000 }, `w${waits}`));
          return turn(message("all done"));
        });
      }
    };
    const samples = await repeat(RUNS, async () => {
      server.reset();
      script();
      const result = await measure(
        [process.execPath, TSCODEX_BIN, "exec", "--skip-git-repo-check", "-s", "danger-full-access", "go"],
        { cwd: dir, env },
      );
      if (result.exit !== 0) throw new Error(`exec failed:\n${result.stderr}`);
      return result;
    });
    const eight = medianSample(samples);
    const results = { runs: RUNS, spawnToFirstRequestMs: median(latencies), eightChildren: eight };
    console.log(`sub-agents benchmark, median of ${RUNS} runs`);
    console.table({
      "spawn_agent answered → child's first model request": {
        time: `${median(latencies).toFixed(1)} ms`,
        memory: "",
      },
      [`exec: parent + ${CHILDREN} children at once (each runs a command)`]: {
        time: `${eight.wallMs.toFixed(0)} ms`,
        memory: `${eight.rssMb.toFixed(0)} MB peak RSS`,
      },
    });
    await writeResults("sub-agents", results);
  });
}

await main();
