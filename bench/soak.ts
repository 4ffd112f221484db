/**
 * `npm run bench -- soak`: `tscodex proxy` as a service (issue 30). SOAK_PROXIES processes
 * (default 3) on one PostgreSQL store, SOAK_CLIENTS concurrent clients (default 20) running
 * client-tool conversations with Idempotency-Keys (bench/support/soak-client.ts), first for a
 * third of SOAK_SECONDS (default 60) without faults (the baseline), then for the rest with
 * faults: one process SIGKILLed and started again every SOAK_KILL_EVERY seconds (default 30; the
 * first one 5 s into the fault phase; process 0 is never killed, so its memory shows whether
 * anything leaks), and the database restarted once, halfway through.
 * Prints: steps and steps/s, p50/p99 per phase, failed steps, try outcomes by kind, items
 * duplicated or lost in the store (each question and each tool output must be in some thread,
 * and no thread may hold one twice), orphan processes, RSS and open fds per process.
 * Issue 30's shape: SOAK_PROXIES=4 SOAK_CLIENTS=100 SOAK_SECONDS=600 (SOAK_BASELINE_SECONDS sets
 * the fault-free part; default a third of the run).
 */
import { mkdir, readdir, readFile, readlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { functionCall, message, type RecordedRequest, turn } from "../test/support/fake-model-server.js";
import { type ListeningServer, spawnListening } from "../test/support/listening-server.js";
import { postgresBinDir, startPostgres } from "../test/support/postgres.js";
import { fakeProviderToml, TSCODEX_BIN, withTempDirAndServer, writeResults } from "./support/bench.js";
import { type ProxyPool, SoakClient, type SoakStats, type StepRecord } from "./support/soak-client.js";

/** Setting `name` from the environment: a number of at least `min`, else `fallback`; anything else stops the run. */
function setting(name: string, fallback: number, min: number): number {
  const text = process.env[name];
  if (text === undefined || text === "") return fallback;
  const value = Number(text);
  if (!Number.isFinite(value) || value < min) {
    console.error(`soak: ${name}=${text} is not a number of at least ${min}`);
    process.exit(2);
  }
  return value;
}

const SECONDS = setting("SOAK_SECONDS", 60, 15);
const PROXIES = setting("SOAK_PROXIES", 3, 2);
const CLIENTS = setting("SOAK_CLIENTS", 20, 1);
const KILL_EVERY_S = setting("SOAK_KILL_EVERY", 30, 1);
const BASELINE_S = setting("SOAK_BASELINE_SECONDS", SECONDS / 3, 5);
if (SECONDS - BASELINE_S < 10) {
  console.error(
    `soak: SOAK_BASELINE_SECONDS=${BASELINE_S} leaves under 10 s of faults in SOAK_SECONDS=${SECONDS}`,
  );
  process.exit(2);
}

/** The fake model: a question gets a get_weather call, a tool output gets the answer. */
function answer(request: RecordedRequest) {
  const last = request.input.at(-1) as { type?: string; call_id?: string } | undefined;
  const text = JSON.stringify(request.input);
  const city = /weather in (\w+)\?/.exec(text)?.[1] ?? "?";
  if (last?.type === "function_call_output") return turn(message(`${city} is 21C.`));
  const token = /\[(c\d+n\d+)\]/.exec(JSON.stringify(last ?? {}))?.[1];
  if (!token) return turn(message("ok"));
  return turn(functionCall("get_weather", { city }, `call_${token}`));
}

interface Slot {
  home: string;
  server: ListeningServer;
  restarts: number;
  rssStartMb: number;
  fdsStart: number;
}

async function rssMb(pid: number, field = "VmRSS"): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, "utf8").catch(() => "");
  return Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? 0) / 1024;
}

async function fds(pid: number): Promise<number> {
  return (await readdir(`/proc/${pid}/fd`).catch(() => [])).length;
}

/** Processes whose working directory is under `root` (the proxies' homes): none may outlive the run. */
async function processesUnder(root: string): Promise<number[]> {
  const found: number[] = [];
  for (const entry of await readdir("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const cwd = await readlink(`/proc/${entry}/cwd`).catch(() => "");
    if (cwd.startsWith(root)) found.push(Number(entry));
  }
  return found;
}

function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;
}

function phaseRow(phase: string, steps: StepRecord[], seconds: number) {
  const ok = steps.filter((step) => step.phase === phase && step.ok);
  const ms = ok.map((step) => step.ms);
  return {
    phase,
    seconds: Math.round(seconds),
    "steps ok": ok.length,
    "steps/s": Number((ok.length / seconds).toFixed(1)),
    "p50 ms": Math.round(percentile(ms, 50)),
    "p99 ms": Math.round(percentile(ms, 99)),
    "failed steps": steps.filter((step) => step.phase === phase && !step.ok).length,
    "steps retried": ok.filter((step) => step.retries > 0).length,
  };
}

/** Items of answered steps in no thread (lost), and items some thread holds twice (duplicated). */
function storeCheck(psql: (sql: string, db?: string) => string, db: string, steps: StepRecord[]) {
  const rows = psql(
    `SELECT thread_id, coalesce(substring(payload::text from '\\[(c[0-9]+n[0-9]+)\\]'), payload->>'call_id')
       FROM tscodex_thread_lines
      WHERE type = 'response_item'
        AND ((payload->>'type' = 'message' AND payload->>'role' = 'user') OR payload->>'type' = 'function_call_output')`,
    db,
  )
    .split("\n")
    .filter((line) => line.includes("|"));
  const perThread = new Map<string, number>();
  const stored = new Set<string>();
  for (const row of rows) {
    const [thread, item] = row.split("|");
    if (!item) continue;
    stored.add(item);
    perThread.set(`${thread}|${item}`, (perThread.get(`${thread}|${item}`) ?? 0) + 1);
  }
  const duplicated = [...perThread.values()].filter((count) => count > 1).length;
  const lost = steps.filter((step) => step.ok && !stored.has(step.item)).map((step) => step.item);
  return { itemsChecked: stored.size, duplicated, lost };
}

async function main(): Promise<void> {
  if (!postgresBinDir()) {
    console.log("soak: skipped (no initdb/postgres found; apt-get install postgresql)");
    return;
  }
  await withTempDirAndServer("tscodex-bench-soak-", async (root, model) => {
    const topUp = () =>
      model.enqueue(...Array.from({ length: Math.max(0, 2000 - model.pending) }, () => answer));
    topUp();
    const cluster = await startPostgres();
    const stats: SoakStats = { steps: [], kinds: new Map() };
    const slots: Slot[] = [];
    try {
      const db = await cluster.createDatabase();
      const dbName = db.slice(db.lastIndexOf("/") + 1);
      const start = (home: string) =>
        spawnListening(
          ["proxy", "--port", "0"],
          { home, cwd: home, env: { TSCODEX_STORE_URL: db, FAKE_KEY: "bench" } },
          { what: "proxy", cli: TSCODEX_BIN },
        );
      for (let i = 0; i < PROXIES; i++) {
        const home = join(root, `proxy-${i}`);
        await mkdir(home, { recursive: true });
        await writeFile(join(home, "config.toml"), fakeProviderToml(model.url));
        slots.push({ home, server: await start(home), restarts: 0, rssStartMb: 0, fdsStart: 0 });
      }
      const pool: ProxyPool = { size: PROXIES, url: (slot) => slots[slot]?.server.url ?? "" };

      let phase = "warm-up";
      let running = true;
      const runId = Date.now().toString(36);
      const clients = Array.from(
        { length: CLIENTS },
        (_, i) => new SoakClient(i, pool, stats, () => phase, runId),
      );
      const done = Promise.all(clients.map((client) => client.run(() => running)));
      // The model server keeps every request: forget them as the run goes; keep answers queued.
      const trim = setInterval(() => {
        model.requests.splice(0);
        topUp();
      }, 250);
      const sleep = (s: number) => new Promise((resolve) => setTimeout(resolve, s * 1000));

      await sleep(Math.min(5, BASELINE_S / 2));
      for (const slot of slots) {
        const pid = slot.server.child.pid ?? 0;
        slot.rssStartMb = await rssMb(pid);
        slot.fdsStart = await fds(pid);
      }
      phase = "baseline";
      await sleep(BASELINE_S);

      phase = "faults";
      const faultSeconds = SECONDS - BASELINE_S;
      const faults: { at: number; what: string }[] = [];
      for (let at = Math.min(5, faultSeconds / 4); at < faultSeconds; at += KILL_EVERY_S)
        faults.push({ at, what: "kill" });
      faults.push({ at: faultSeconds / 2, what: "restart database" });
      faults.sort((a, b) => a.at - b.at);
      const faultStart = performance.now();
      const log: string[] = [];
      let victim = 0;
      for (const fault of faults) {
        await sleep(Math.max(0, fault.at - (performance.now() - faultStart) / 1000));
        if (fault.what === "kill") {
          victim = (victim % (PROXIES - 1)) + 1;
          const slot = slots[victim] as Slot;
          slot.server.child.kill("SIGKILL");
          await new Promise((resolve) => slot.server.child.once("exit", resolve));
          slot.server = await start(slot.home);
          slot.restarts += 1;
          log.push(`${fault.at.toFixed(0)} s: SIGKILL proxy ${victim}, started again`);
        } else {
          const started = performance.now();
          await cluster.stopServer();
          await cluster.startServer();
          log.push(
            `${fault.at.toFixed(0)} s: PostgreSQL restarted (down ${Math.round(performance.now() - started)} ms)`,
          );
        }
      }
      await sleep(Math.max(0, faultSeconds - (performance.now() - faultStart) / 1000));
      running = false;
      await done;
      clearInterval(trim);

      const processes = [];
      for (const [i, slot] of slots.entries()) {
        const pid = slot.server.child.pid ?? 0;
        processes.push({
          proxy: i,
          restarts: slot.restarts,
          "RSS start MB": slot.restarts ? "-" : slot.rssStartMb.toFixed(1),
          "RSS end MB": (await rssMb(pid)).toFixed(1),
          "peak MB": (await rssMb(pid, "VmHWM")).toFixed(1),
          "fds start": slot.restarts ? "-" : slot.fdsStart,
          "fds end": await fds(pid),
        });
      }
      const check = storeCheck(cluster.psql, dbName, stats.steps);
      await Promise.all(slots.map((slot) => slot.server.stop()));
      const orphans = await processesUnder(root);

      const phases = [
        phaseRow("baseline", stats.steps, BASELINE_S),
        phaseRow("faults", stats.steps, faultSeconds),
      ];
      const kinds = [...stats.kinds].sort((a, b) => b[1] - a[1]).map(([kind, count]) => ({ kind, count }));
      console.log(
        `\n${CLIENTS} clients, ${PROXIES} proxies on one PostgreSQL, ${SECONDS} s ` +
          `(a step is one POST /v1/responses answered, its retries included)`,
      );
      for (const line of log) console.log(`  ${line}`);
      console.table(phases);
      console.log("tries that did not answer their step, and replay checks, by kind:");
      console.table(kinds);
      console.table(processes);
      console.log(
        `store: ${check.itemsChecked} items; duplicated in a thread: ${check.duplicated}; ` +
          `answered but not stored: ${check.lost.length}${check.lost.length ? ` (${check.lost.slice(0, 5).join(", ")})` : ""}; ` +
          `orphan processes: ${orphans.length}`,
      );
      console.log(
        `model server problems: ${model.errors.length}${model.errors.length ? ` (${model.errors[0]})` : ""}`,
      );
      await writeResults("soak", {
        seconds: SECONDS,
        proxies: PROXIES,
        clients: CLIENTS,
        faults: log,
        phases,
        kinds,
        processes,
        store: { ...check, lost: check.lost.length },
        orphans: orphans.length,
      });
    } finally {
      await Promise.all(slots.map((slot) => slot.server.stop()));
      await cluster.stop();
    }
  });
}

await main();
