// Throwaway profiling driver (not committed): spawn mcp-server, initialize, tools/list, first codex call at once.
import { spawn } from "node:child_process";
import { mkdir, mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve as resolvePath } from "node:path";
import { message, startFakeModelServer, turn } from "../test/support/fake-model-server.js";
import { fakeProviderToml } from "./support/bench.js";

const bin = resolvePath(process.argv[2] ?? "bin/tscodex.js");
const runs = Number(process.argv[3] ?? 5);
const prof = process.env.PROF_DIR;
const server = await startFakeModelServer();
const dir = await mkdtemp(join(tmpdir(), "mcpcall-prof-"));
const home = join(dir, "home");
await mkdir(home);
await writeFile(join(home, "config.toml"), fakeProviderToml(server.url));
const results: number[][] = [];
for (let i = 0; i < runs; i++) {
  server.reset();
  server.enqueue(turn(message("done")));
  const nodeArgs = prof ? ["--cpu-prof", `--cpu-prof-dir=${prof}`, "--cpu-prof-interval=200"] : [];
  const t0 = performance.now();
  const child = spawn(process.execPath, [...nodeArgs, bin, "mcp-server"], {
    cwd: dir,
    env: { PATH: process.env.PATH, HOME: home, TSCODEX_HOME: home, FAKE_KEY: "bench", ...(process.env.MODLOG ? { NODE_OPTIONS: "--import=file:///work/wt/mcpcall/test/fixtures/module-log/register.mjs", TSCODEX_MODULE_LOG: process.env.MODLOG } : {}), ...(process.env.TSCODEX_PRELOAD ? { TSCODEX_PRELOAD: process.env.TSCODEX_PRELOAD } : {}) },
    stdio: ["pipe", "pipe", "inherit"],
  });
  let buf = "";
  const waiters = new Map<number, (v: unknown) => void>();
  child.stdout.on("data", (chunk: Buffer) => {
    buf += chunk.toString();
    let nl: number;
    while ((nl = buf.indexOf("\n")) >= 0) {
      const line = buf.slice(0, nl);
      buf = buf.slice(nl + 1);
      const msg = JSON.parse(line);
      if (msg.id !== undefined && waiters.has(msg.id)) waiters.get(msg.id)?.(msg);
    }
  });
  const send = (m: object) => child.stdin.write(`${JSON.stringify(m)}\n`);
  const req = (id: number, method: string, params: object) =>
    new Promise<any>((resolve) => {
      waiters.set(id, resolve);
      send({ jsonrpc: "2.0", id, method, params });
    });
  await req(0, "initialize", { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "b", version: "1" } });
  const tInit = performance.now() - t0;
  send({ jsonrpc: "2.0", method: "notifications/initialized" });
  const t1 = performance.now();
  await req(1, "tools/list", {});
  const tList = performance.now() - t1;
  if (process.env.NOCALL) { child.stdin.end(); await new Promise((r) => child.once("exit", r)); continue; }
  if (process.env.PAUSE) await new Promise((r) => setTimeout(r, Number(process.env.PAUSE)));
  const t2 = performance.now();
  const r = await req(2, "tools/call", {
    name: "codex",
    arguments: { prompt: "bench task", cwd: dir, sandbox: "read-only", "approval-policy": "never" },
  });
  const tCall = performance.now() - t2;
  if (!JSON.stringify(r).includes("done")) throw new Error(JSON.stringify(r));
  child.stdin.end();
  await new Promise((resolve) => child.once("exit", resolve));
  results.push([tInit, tList, tCall]);
  console.log(`init ${tInit.toFixed(0)} list ${tList.toFixed(1)} call ${tCall.toFixed(0)}`);
}
const med = (k: number) => results.map((r) => r[k] ?? 0).sort((a, b) => a - b)[Math.floor(results.length / 2)];
console.log(`median init ${med(0)?.toFixed(0)} list ${med(1)?.toFixed(1)} call ${med(2)?.toFixed(0)}`);
await server.close();
