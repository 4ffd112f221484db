/**
 * `npm run bench -- startup`: what a user or an MCP host waits for before anything happens, each
 * figure beside the program it is measured against (issues 16 and 26):
 * - `tscodex --version` vs a bare `node -e 0` (the floor of any Node CLI here): <= 1.2x;
 * - one-turn `exec` (fake model answering "ok"), wall vs Codex 0.89: <= 0.8x; its peak RSS vs a
 *   bare `node` loading the builtins an agent needs and making one streamed HTTP request: <= +3 MB;
 * - `mcp-server` spawn → `initialize` answered vs Codex 0.89's: <= 1.0x; then, as a host does,
 *   `tools/list` and the first `codex` tool call of that fresh server (one turn): <= 1.0x, sent at
 *   once and, on other fresh servers, after a second of idle (with the idle server's RSS);
 * - `app-server` spawn → `initialize` answered vs Codex 0.169's: <= 1.0x; then the first
 *   `thread/start` + one-turn `turn/start` of that fresh server (no target: where a deferred load shows).
 * Codex is set up as a user has it (bench/support/bench.ts, CODEX_SETUP_NOTE). Each figure runs
 * its programs alternately, run by run (A B A B ...), so a busy machine moves both alike; a ratio
 * is taken per pair and printed as its median with the spread (min–median–max). Run 0 of each
 * figure warms the page cache and is dropped. With $BENCH_BASELINE (another build's
 * bin/tscodex.js) that build runs in the same rotation as tscodex-before.
 */
import { readFile } from "node:fs/promises";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { StdioAppClient } from "../test/support/app-server-client.js";
import { type FakeModelServer, message, turn } from "../test/support/fake-model-server.js";
import {
  type Agent,
  benchRuns,
  CODEX_SETUP_NOTE,
  fakeProviderToml,
  makeAgents,
  measure,
  measureScripted,
  median,
  withTempDirAndServer,
  writeResults,
} from "./support/bench.js";
import { codexNotFound } from "./support/codex.js";
import { connectMcpServer } from "./support/mcp-client.js";

const RUNS = benchRuns(9);
/** How long the MCP server sits idle after tools/list before its first call, in the second variant. */
const MCP_PAUSE_MS = 1000;

/** One run of one program: named figures (ms or MB). */
type Figures = Record<string, number>;

/** A program in a figure's rotation. */
interface Contestant {
  name: string;
  run: () => Promise<Figures>;
}

/**
 * Runs `contestants` one after another, RUNS + 1 times (run 0 dropped), and returns each one's
 * figures per run, in run order.
 */
async function alternate(contestants: Contestant[]): Promise<Map<string, Figures[]>> {
  const results = new Map<string, Figures[]>(contestants.map((c) => [c.name, []]));
  for (let run = 0; run <= RUNS; run++) {
    for (const contestant of contestants) {
      const figures = await contestant.run();
      if (run > 0) results.get(contestant.name)?.push(figures);
    }
  }
  process.stderr.write(`measured ${contestants.map((c) => c.name).join(", ")}\n`);
  return results;
}

/** A row of the targets table. */
interface Row {
  figure: string;
  target: string;
  /** The figure's key in each contestant's Figures. */
  key: string;
  unit: "ms" | "MB";
  /** Who tscodex is compared with (a contestant's name) and the key of its figure. */
  versus: string;
  versusKey?: string;
  /** Met when the median ratio (or, with `additive`, the median difference) is at most this. */
  limit: number;
  additive?: boolean;
}

const fmt = (value: number, unit: string) => `${value.toFixed(unit === "MB" ? 1 : 0)} ${unit}`;

/** The targets table: each tscodex figure beside the other program's, ratio per pair with spread. */
function table(rows: Row[], results: Map<string, Figures[]>): Record<string, Record<string, string>> {
  const out: Record<string, Record<string, string>> = {};
  for (const row of rows) {
    const versus = results.get(row.versus);
    const pairs = (name: string) => {
      const ours = results.get(name) ?? [];
      return ours.flatMap((figures, index) => {
        const a = figures[row.key];
        const b = versus?.[index]?.[row.versusKey ?? row.key];
        return a === undefined || b === undefined ? [] : [row.additive ? a - b : a / b];
      });
    };
    const values = (name: string) => (results.get(name) ?? []).flatMap((f) => f[row.key] ?? []);
    const ours = pairs("tscodex");
    const cells: Record<string, string> = { target: row.target };
    if (results.has("tscodex-before"))
      cells["tscodex-before"] = fmt(median(values("tscodex-before")), row.unit);
    cells.tscodex = fmt(median(values("tscodex")), row.unit);
    if (!versus || ours.length === 0) {
      cells[row.versus] = "n/a";
      out[row.figure] = cells;
      continue;
    }
    cells.versus = `${row.versus}: ${fmt(median(versus.flatMap((f) => f[row.versusKey ?? row.key] ?? [])), row.unit)}`;
    const sorted = [...ours].sort((a, b) => a - b);
    const show = (value: number) =>
      row.additive ? `${value >= 0 ? "+" : ""}${value.toFixed(1)}` : value.toFixed(2);
    const mid = median(ours);
    cells["ratio (MB: +diff)"] = show(mid);
    cells["spread (min-med-max)"] = `${show(sorted[0] ?? 0)} - ${show(mid)} - ${show(sorted.at(-1) ?? 0)}`;
    if (results.has("tscodex-before")) cells["before: ratio"] = show(median(pairs("tscodex-before")));
    cells.met = row.limit === Number.POSITIVE_INFINITY ? "-" : mid <= row.limit ? "yes" : "NO";
    out[row.figure] = cells;
  }
  return out;
}

/** A bare node loading what an agent loads from Node itself and making one streamed POST. */
const NODE_FLOOR_SCRIPT = [
  "const http = require('node:http');",
  "for (const m of ['child_process', 'fs', 'fs/promises', 'os', 'path', 'crypto', 'stream', 'events', 'url', 'util']) require('node:' + m);",
  "const req = http.request(process.argv[1] + '/responses', { method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer bench' } }, (res) => { res.setEncoding('utf8'); res.on('data', () => {}); res.on('end', () => process.exit(0)); });",
  "req.end(JSON.stringify({ model: 'gpt-5.2-codex', stream: true, input: [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'bench task' }] }] }));",
].join("\n");

const EXEC_ARGS = ["exec", "--skip-git-repo-check", "--full-auto", "bench task"];

function execContestant(agent: Agent, server: FakeModelServer, cwd: string): Contestant {
  return {
    name: agent.name,
    run: async () => {
      const result = await measureScripted(agent, server, [turn(message("ok"))], EXEC_ARGS, cwd);
      return { wall: result.wallMs, rss: result.rssMb };
    },
  };
}

function nodeFloorContestant(server: FakeModelServer, cwd: string): Contestant {
  return {
    name: "node + one HTTP request",
    run: async () => {
      server.reset();
      server.enqueue(turn(message("ok")));
      const result = await measure([process.execPath, "-e", NODE_FLOOR_SCRIPT, server.url], { cwd, env: {} });
      if (result.exit !== 0 || server.pending !== 0) throw new Error(`node floor failed: ${result.stderr}`);
      return { rss: result.rssMb };
    },
  };
}

function versionContestant(
  name: string,
  argv: string[],
  env: Record<string, string>,
  cwd: string,
): Contestant {
  return {
    name,
    run: async () => {
      const result = await measure(argv, { cwd, env });
      if (result.exit !== 0) throw new Error(`${name} failed (exit ${result.exit}): ${result.stderr}`);
      return { wall: result.wallMs };
    },
  };
}

const anyToolList = z.looseObject({ tools: z.array(z.unknown()).optional() });

/** VmRSS of `pid` in MB, from /proc. */
async function rssMb(pid: number | null | undefined): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, "utf8");
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
}

/**
 * Spawn → initialize, then tools/list and the first `codex` call, as an MCP host does: at once
 * (`pauseMs` 0), or after the server sat idle for `pauseMs` (a host calls when its model decides
 * to, seconds later), with the server's resident memory just before the call.
 */
function mcpContestant(agent: Agent, server: FakeModelServer, cwd: string, pauseMs: number): Contestant {
  return {
    name: agent.name,
    run: async () => {
      server.reset();
      server.enqueue(turn(message("done")));
      const { client, pid, initializeMs: initialize } = await connectMcpServer(agent, cwd);
      try {
        const listing = performance.now();
        await client.request({ method: "tools/list" }, anyToolList);
        const toolsList = performance.now() - listing;
        let idleRss: number | undefined;
        if (pauseMs > 0) {
          await new Promise((resolve) => setTimeout(resolve, pauseMs));
          idleRss = await rssMb(pid);
        }
        const calling = performance.now();
        const result = (await client.callTool({
          name: "codex",
          arguments: { prompt: "bench task", cwd, sandbox: "read-only", "approval-policy": "never" },
        })) as CallToolResult;
        const firstCall = performance.now() - calling;
        const text = result.content[0]?.type === "text" ? result.content[0].text : "";
        if (result.isError || !text.includes("done"))
          throw new Error(`${agent.name}: codex call failed: ${JSON.stringify(result)}`);
        return { initialize, toolsList, firstCall, ...(idleRss === undefined ? {} : { idleRss }) };
      } finally {
        await client.close();
      }
    },
  };
}

/** Spawn → initialize, then the first thread/start + one turn of that server. */
function appContestant(agent: Agent, server: FakeModelServer, cwd: string): Contestant {
  return {
    name: agent.name,
    run: async () => {
      server.reset();
      server.enqueue(turn(message("done")));
      const started = performance.now();
      const client = new StdioAppClient(
        { home: agent.home, cwd, env: { FAKE_KEY: "bench", ...agent.env } },
        [],
        agent.argv(["app-server"]),
      );
      try {
        const reply = await client.initialize({});
        if (reply.error) throw new Error(`${agent.name} initialize failed: ${reply.error.message}`);
        const initialize = performance.now() - started;
        const turnStarted = performance.now();
        const { thread } = await client.call("thread/start", {
          cwd,
          approvalPolicy: "never",
          sandbox: "read-only",
        });
        const from = client.received.length;
        const { turn: begun } = await client.call("turn/start", {
          threadId: thread.id,
          input: [{ type: "text", text: "bench task" }],
        });
        const done = await client.turnCompleted(begun.id, from, 30_000);
        if (done.params.turn.status !== "completed")
          throw new Error(`${agent.name}: turn ended ${JSON.stringify(done.params.turn)}`);
        return { initialize, firstTurn: performance.now() - turnStarted };
      } finally {
        await client.close();
      }
    },
  };
}

async function main(): Promise<void> {
  await withTempDirAndServer("tscodex-bench-startup-", async (dir, server) => {
    const agents = await makeAgents(dir, fakeProviderToml(server.url), { baseline: true, codex169: true });
    const ours = agents.filter((agent) => agent.name.startsWith("tscodex"));
    const codex89 = agents.find((agent) => agent.name === "codex-0.89");
    const codex169 = agents.find((agent) => agent.name === "codex-0.169");
    const results = new Map<string, Map<string, Figures[]>>();

    // STARTUP_ONLY=exec,mcp-server,... measures only those groups (all by default).
    const only = process.env.STARTUP_ONLY?.split(",");
    const wanted = (group: string) => !only || only.includes(group);
    if (wanted("version"))
      results.set(
        "version",
        await alternate([
          ...ours.map((agent) => versionContestant(agent.name, agent.argv(["--version"]), agent.env, dir)),
          versionContestant("node -e 0", [process.execPath, "-e", "0"], {}, dir),
        ]),
      );
    if (wanted("exec"))
      results.set(
        "exec",
        await alternate([
          ...ours.map((agent) => execContestant(agent, server, dir)),
          ...(codex89 ? [execContestant(codex89, server, dir)] : []),
          nodeFloorContestant(server, dir),
        ]),
      );
    const mcpAgents = [...ours, ...(codex89 ? [codex89] : [])];
    if (wanted("mcp-server")) {
      results.set(
        "mcp-server",
        await alternate(mcpAgents.map((agent) => mcpContestant(agent, server, dir, 0))),
      );
      results.set(
        "mcp-server idle",
        await alternate(mcpAgents.map((agent) => mcpContestant(agent, server, dir, MCP_PAUSE_MS))),
      );
    }
    if (wanted("app-server"))
      results.set(
        "app-server",
        await alternate(
          [...ours, ...(codex169 ? [codex169] : [])].map((agent) => appContestant(agent, server, dir)),
        ),
      );

    console.log(
      `start-up: ${RUNS} alternating runs per figure (A B A B ...); ratio = tscodex / the other, per pair`,
    );
    const rows = (group: string, list: Row[]) => {
      const measured = results.get(group);
      return measured ? table(list, measured) : {};
    };
    console.table({
      ...rows("version", [
        {
          figure: "--version",
          target: "<= 1.2x node -e 0",
          key: "wall",
          unit: "ms",
          versus: "node -e 0",
          limit: 1.2,
        },
      ]),
      ...rows("exec", [
        {
          figure: "one-turn exec: wall",
          target: "<= 0.8x Codex 0.89",
          key: "wall",
          unit: "ms",
          versus: "codex-0.89",
          limit: 0.8,
        },
        {
          figure: "one-turn exec: peak RSS",
          target: "<= node + one HTTP request + 3 MB",
          key: "rss",
          unit: "MB",
          versus: "node + one HTTP request",
          limit: 3,
          additive: true,
        },
        {
          figure: "one-turn exec: peak RSS vs Codex",
          target: "(information)",
          key: "rss",
          unit: "MB",
          versus: "codex-0.89",
          limit: Number.POSITIVE_INFINITY,
        },
      ]),
      ...rows("mcp-server", [
        {
          figure: "mcp-server: spawn -> initialize",
          target: "<= 1.0x Codex 0.89",
          key: "initialize",
          unit: "ms",
          versus: "codex-0.89",
          limit: 1,
        },
        {
          figure: "mcp-server: tools/list",
          target: "(information)",
          key: "toolsList",
          unit: "ms",
          versus: "codex-0.89",
          limit: Number.POSITIVE_INFINITY,
        },
        {
          figure: "mcp-server: first codex call, at once",
          target: "<= 1.0x Codex 0.89",
          key: "firstCall",
          unit: "ms",
          versus: "codex-0.89",
          limit: 1,
        },
      ]),
      ...rows("mcp-server idle", [
        {
          figure: `mcp-server: first codex call, after ${MCP_PAUSE_MS} ms idle`,
          target: "<= 1.0x Codex 0.89",
          key: "firstCall",
          unit: "ms",
          versus: "codex-0.89",
          limit: 1,
        },
        {
          figure: "mcp-server: idle RSS before that call",
          target: "(information)",
          key: "idleRss",
          unit: "MB",
          versus: "codex-0.89",
          limit: Number.POSITIVE_INFINITY,
        },
      ]),
      ...rows("app-server", [
        {
          figure: "app-server: spawn -> initialize",
          target: "<= 1.0x Codex 0.169",
          key: "initialize",
          unit: "ms",
          versus: "codex-0.169",
          limit: 1,
        },
        {
          figure: "app-server: first thread + turn",
          target: "(information)",
          key: "firstTurn",
          unit: "ms",
          versus: "codex-0.169",
          limit: Number.POSITIVE_INFINITY,
        },
      ]),
    });
    console.log(CODEX_SETUP_NOTE);
    console.log(
      "tscodex and the floor start as plain `node` (no flags); exec then sets V8's --no-opt --no-sparkplug --semi-space-growth-factor=1 at run time and collects garbage once its code is loaded (src/frontends/cli/load-exec.ts)",
    );
    if (!codex89) console.log(codexNotFound("0.89"));
    if (!codex169) console.log(codexNotFound("0.169"));
    const raw = Object.fromEntries([...results].map(([group, map]) => [group, Object.fromEntries(map)]));
    await writeResults("startup", { runs: RUNS, codexSetup: CODEX_SETUP_NOTE, ...raw });
  });
}

await main();
