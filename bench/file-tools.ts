/**
 * `npm run bench -- file-tools`: grep_files on a generated 100k-file tree (temp dir, removed
 * at the end), three queries: a rare pattern (100 files match), a common one (a third of
 * the files) and one that matches nothing. Measured three ways:
 *
 * 1. in process: our grep_files handler, called directly (median of RUNS);
 * 2. `rg --files-with-matches --sortr=modified …`: the exact command Codex 0.89 runs, with the
 *    same bundled rg (what the tool costs Codex, without its process around it);
 * 3. end to end, when Codex 0.89 is installed: `exec` with one scripted grep_files call, minus
 *    the same run without it, for tscodex and for Codex. Codex only offers grep_files when the
 *    model metadata lists it: we give it a models_cache.json (its own embedded model list with
 *    `experimental_supported_tools` set for gpt-5.2-codex), and put the bundled rg on its PATH.
 */

import { spawn } from "node:child_process";
import { cp, mkdir, readFile, symlink, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { grepFilesTool } from "../src/tools/builtin/grep-files.js";
import { ripgrepPath } from "../src/tools/files/ripgrep.js";
import type { ToolInvocation } from "../src/tools/types.js";
import {
  type FakeModelServer,
  functionCall,
  message,
  type ScriptEntry,
  turn,
} from "../test/support/fake-model-server.js";
import { runHandler } from "../test/support/turn-context.js";
import { turnContext } from "../test/tools/file-tools-support.js";
import {
  type Agent,
  benchRuns,
  fakeProviderToml,
  makeAgents as makeBenchAgents,
  measureScripted,
  median,
  repeat,
  withTempDirAndServer,
  writeResults,
} from "./support/bench.js";
import { findCodex } from "./support/codex.js";

const RUNS = benchRuns(5);
const QUERIES = { rare: "NEEDLE_RARE", common: "common_token", none: "zzz_no_such_text" } as const;
type Query = keyof typeof QUERIES;

async function timed<T>(runs: number, fn: () => Promise<T>): Promise<number> {
  return median(
    await repeat(runs, async () => {
      const start = performance.now();
      await fn();
      return performance.now() - start;
    }),
  );
}

/** 100 × 10 directories of 100 small files; every 1000th has the rare word, every 3rd the common one. */
async function generateTree(root: string): Promise<void> {
  const files: { path: string; text: string }[] = [];
  let n = 0;
  for (let a = 0; a < 100; a++) {
    for (let b = 0; b < 10; b++) {
      const dir = join(root, `pkg${a}`, `mod${b}`);
      await mkdir(dir, { recursive: true });
      for (let c = 0; c < 100; c++, n++) {
        const lines = [`// file ${n}`, "export function f() {", `  return ${n};`, "}"];
        if (n % 1000 === 7) lines.push("// NEEDLE_RARE");
        if (n % 3 === 0) lines.push("const common_token = 1;");
        files.push({ path: join(dir, `f${c}.ts`), text: `${lines.join("\n")}\n` });
      }
    }
  }
  let next = 0;
  const worker = async () => {
    for (let file = files[next++]; file; file = files[next++]) await writeFile(file.path, file.text);
  };
  await Promise.all(Array.from({ length: 64 }, worker));
}

async function inProcess(tree: string, pattern: string): Promise<number> {
  const tool = grepFilesTool();
  const invocation = (): ToolInvocation => ({
    callId: "bench",
    toolName: "grep_files",
    payload: { kind: "function", arguments: JSON.stringify({ pattern }) },
    turn: turnContext(tree),
  });
  return timed(RUNS, () => runHandler(tool.handler, invocation()));
}

async function codexCommand(tree: string, pattern: string): Promise<number> {
  const rg = await ripgrepPath();
  const args = ["--files-with-matches", "--sortr=modified", "--regexp", pattern, "--no-messages", "--", tree];
  return timed(
    RUNS,
    () =>
      new Promise<void>((resolve, reject) => {
        const child = spawn(rg, args, { stdio: ["ignore", "ignore", "ignore"] });
        child.on("error", reject);
        child.on("close", () => resolve());
      }),
  );
}

/** Every exec run of this bench (tscodex adds `--enable file_tools`). */
const EXEC_ARGS = ["exec", "--skip-git-repo-check", "--full-auto"];

/**
 * A private copy of the built CLI: other work in this tree may rebuild dist/ (which deletes it
 * first) while the benchmark runs. Returns the copy's bin/tscodex.js.
 */
async function snapshotCli(work: string): Promise<string> {
  const copy = join(work, "tscodex");
  for (const part of ["bin", "dist", "prompts", "package.json"]) {
    await cp(join(process.cwd(), part), join(copy, part), { recursive: true });
  }
  await symlink(join(process.cwd(), "node_modules"), join(copy, "node_modules"));
  return join(copy, "bin/tscodex.js");
}

async function makeAgents(server: FakeModelServer, work: string): Promise<Agent[]> {
  const agents = await makeBenchAgents(work, fakeProviderToml(server.url), {
    tscodex: await snapshotCli(work),
  });
  const codex = agents.find((agent) => agent.name === "codex-0.89");
  const codexBin = findCodex();
  if (codex && codexBin) {
    await writeFile(join(codex.home, "models_cache.json"), await modelsCacheWithFileTools(codexBin));
    const rgDir = dirname(await ripgrepPath());
    codex.env.PATH = `${rgDir}:${process.env.PATH ?? ""}`;
  }
  return agents;
}

/** The exec arguments of one run of `agent`. */
const execArgs = (agent: Agent): string[] =>
  agent.name === "tscodex" ? [...EXEC_ARGS, "--enable", "file_tools", "bench"] : [...EXEC_ARGS, "bench"];

/** Codex's embedded model list (read from its binary), gpt-5.2-codex listing the file tools. */
async function modelsCacheWithFileTools(codex: string): Promise<string> {
  const binary = await readFile(codex);
  const at = binary.indexOf('"models": [');
  const start = binary.lastIndexOf("{", at);
  const text = binary.subarray(start, start + 2_000_000).toString("utf8");
  // The JSON object ends where its braces balance (strings hold no unbalanced braces here).
  let depth = 0;
  let inString = false;
  let end = 0;
  for (let i = 0; i < text.length && end === 0; i++) {
    const char = text[i];
    if (inString) {
      if (char === "\\") i++;
      else if (char === '"') inString = false;
    } else if (char === '"') inString = true;
    else if (char === "{") depth++;
    else if (char === "}" && --depth === 0) end = i + 1;
  }
  const embedded = JSON.parse(text.slice(0, end)) as {
    models: { slug: string; experimental_supported_tools: string[] }[];
  };
  for (const model of embedded.models) {
    if (model.slug === "gpt-5.2-codex")
      model.experimental_supported_tools = ["grep_files", "read_file", "list_dir"];
  }
  return JSON.stringify({
    fetched_at: "2099-01-01T00:00:00Z",
    etag: null,
    client_version: "0.89.0",
    models: embedded.models,
  });
}

async function execRun(
  agent: Agent,
  server: FakeModelServer,
  script: ScriptEntry[],
  cwd: string,
): Promise<number> {
  const result = await measureScripted(agent, server, script, execArgs(agent), cwd);
  const output = server.requests.at(-1)?.input.find((item) => item.type === "function_call_output");
  if (script.length > 1 && (!output || String(output.output).startsWith("failed"))) {
    throw new Error(`${agent.name}: grep_files did not run: ${JSON.stringify(output)}`);
  }
  return result.wallMs;
}

/** Median wall time of `exec` runs of one script (after a warm-up run). */
async function execMedian(agent: Agent, server: FakeModelServer, script: () => ScriptEntry[], cwd: string) {
  return median(await repeat(RUNS, () => execRun(agent, server, script(), cwd)));
}

const baselineScript = () => [turn(message("ok"))];
const grepScript = (pattern: string, tree: string) => () => [
  turn(functionCall("grep_files", { pattern, path: tree }, "call_grep")),
  turn(message("ok")),
];

async function main(): Promise<void> {
  const raw: Record<string, unknown> = {};
  const rows: Record<string, Record<string, string>> = {};
  await withTempDirAndServer("tscodex-bench-files-", async (work, server) => {
    const tree = join(work, "tree");
    const generated = performance.now();
    await generateTree(tree);
    process.stderr.write(
      `generated 100000 files in ${((performance.now() - generated) / 1000).toFixed(1)} s\n`,
    );
    const agents = await makeAgents(server, work);
    const baselines = new Map<string, number>();
    for (const agent of agents)
      baselines.set(agent.name, await execMedian(agent, server, baselineScript, work));
    raw.execWithoutToolCallMs = Object.fromEntries(baselines);
    for (const query of Object.keys(QUERIES) as Query[]) {
      const pattern = QUERIES[query];
      const handler = await inProcess(tree, pattern);
      const rg = await codexCommand(tree, pattern);
      const row: Record<string, string> = {
        "grep_files handler (in process)": `${handler.toFixed(0)} ms`,
        "Codex's rg command": `${rg.toFixed(0)} ms`,
      };
      const entry: Record<string, unknown> = { handlerMs: handler, codexRgCommandMs: rg };
      for (const agent of agents) {
        const withGrep = await execMedian(agent, server, grepScript(pattern, tree), work);
        const cost = withGrep - (baselines.get(agent.name) ?? 0);
        entry[agent.name] = { execMs: withGrep, grepCallCostMs: cost };
        row[`${agent.name} exec: grep call cost`] = `${cost.toFixed(0)} ms`;
      }
      raw[query] = entry;
      rows[`${query} (${pattern})`] = row;
      process.stderr.write(`measured ${query}\n`);
    }
    if (agents.length === 1) {
      console.log(
        "codex 0.89 not found (set CODEX_BIN): end-to-end comparison skipped; rg command shown instead",
      );
    }
  });
  console.log(`grep_files on 100k files (median of ${RUNS}; default limit 100)`);
  console.table(rows);
  await writeResults("file-tools", raw);
}

await main();
