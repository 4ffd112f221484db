/**
 * `npm run bench -- sandbox-network`: a sandboxed curl loop through the managed proxy vs the
 * same loop with the host's network, under each sandbox backend (issue 39). Both run through
 * `tscodex sandbox -P`: profile `proxied` (domain rules: its own namespace, the bridge, the
 * proxy) and profile `direct` (network enabled without domain rules: the host's network). The
 * two alternate, round by round, so a busy machine slows both alike.
 * - per request: a loop of N sequential `curl` GETs (a new process and connection each, as a
 *   build script makes), wall time / N, median over rounds; the difference is the proxy's cost;
 * - throughput: one `curl` of a large body, MB/s, median over rounds.
 */
import { spawn } from "node:child_process";
import { writeFile } from "node:fs/promises";
import { createServer } from "node:http";
import { join } from "node:path";
import { bwrapBackendStatus, landlockBackendStatus } from "../src/policy/sandbox/index.js";
import { benchRuns, median, TSCODEX_BIN, withTempDir, writeResults } from "./support/bench.js";

const REQUESTS = benchRuns(100);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const BIG_BYTES = Number(process.env.BENCH_BIG_MB ?? 128) * 1024 * 1024;

const CONFIG = `
default_permissions = ":read-only"
[permissions.proxied]
extends = ":workspace"
[permissions.proxied.network]
enabled = true
allow_local_binding = true
[permissions.proxied.network.domains]
"bench.test" = "allow"

[permissions.direct]
extends = ":workspace"
[permissions.direct.network]
enabled = true
`;

const chunk = Buffer.alloc(256 * 1024, 97);
const target = createServer((request, response) => {
  if (request.url !== "/big") return void response.end("ok\n");
  response.writeHead(200, { "content-length": BIG_BYTES });
  let sent = 0;
  const pump = () => {
    while (sent < BIG_BYTES) {
      const piece = chunk.subarray(0, Math.min(chunk.length, BIG_BYTES - sent));
      sent += piece.length;
      if (!response.write(piece)) return void response.once("drain", pump);
    }
    response.end();
  };
  pump();
});
await new Promise<void>((resolve) => target.listen(0, "127.0.0.1", resolve));
const port = (target.address() as { port: number }).port;

/** Runs `script` under `tscodex sandbox -P profile`; resolves with its stdout. */
function sandboxed(home: string, backend: string, profile: string, script: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [TSCODEX_BIN, "sandbox", "-P", profile, "--backend", backend, "--", "sh", "-c", script],
      {
        cwd: home,
        env: {
          ...process.env,
          HOME: home,
          TSCODEX_HOME: home,
          TSCODEX_PROXY_HOSTS_FILE: join(home, "hosts"),
        },
        stdio: ["ignore", "pipe", "inherit"],
      },
    );
    let out = "";
    child.stdout.setEncoding("utf8").on("data", (text: string) => {
      out += text;
    });
    child.once("exit", (code) => (code === 0 ? resolve(out) : reject(new Error(`exit ${code}: ${out}`))));
  });
}

/** Mean ms per request of a sequential curl loop (the loop's own clock, inside the sandbox). */
const loop = (host: string) =>
  `s=$(date +%s%N); i=0; while [ $i -lt ${REQUESTS} ]; do curl -sf -o /dev/null http://${host}:${port}/ || exit 9; i=$((i+1)); done; echo $(( ($(date +%s%N) - s) / ${REQUESTS} ))`;
const download = (host: string) => `curl -sf -o /dev/null -w '%{speed_download}' http://${host}:${port}/big`;

interface Row {
  backend: string;
  directMsPerRequest: number;
  proxiedMsPerRequest: number;
  proxyMsPerRequest: number;
  directMBps: number;
  proxiedMBps: number;
}

await withTempDir("tscodex-bench-net-", async (home) => {
  await writeFile(join(home, "config.toml"), CONFIG);
  await writeFile(join(home, "hosts"), "127.0.0.1 bench.test\n");
  const rows: Row[] = [];
  const skipped: string[] = [];
  for (const [backend, status] of [
    ["bwrap", await bwrapBackendStatus()],
    ["landlock", await landlockBackendStatus()],
  ] as const) {
    if (!status.available) {
      skipped.push(`${backend}: ${status.reason}`);
      continue;
    }
    const perRequest = { direct: [] as number[], proxied: [] as number[] };
    const speed = { direct: [] as number[], proxied: [] as number[] };
    for (let round = 0; round < ROUNDS; round++) {
      // Alternate which goes first, so neither always runs on a warmer machine.
      const order = round % 2 === 0 ? (["direct", "proxied"] as const) : (["proxied", "direct"] as const);
      for (const profile of order) {
        const host = profile === "direct" ? "127.0.0.1" : "bench.test";
        perRequest[profile].push(Number(await sandboxed(home, backend, profile, loop(host))) / 1e6);
        speed[profile].push(Number(await sandboxed(home, backend, profile, download(host))) / 1e6);
      }
    }
    const row: Row = {
      backend,
      directMsPerRequest: median(perRequest.direct),
      proxiedMsPerRequest: median(perRequest.proxied),
      proxyMsPerRequest: median(perRequest.proxied) - median(perRequest.direct),
      directMBps: median(speed.direct),
      proxiedMBps: median(speed.proxied),
    };
    rows.push(row);
  }
  console.log(`sandboxed curl loop, ${REQUESTS} sequential GETs per run, ${ROUNDS} rounds (median):`);
  console.log("backend   direct ms/req  proxied ms/req  proxy +ms/req  direct MB/s  proxied MB/s");
  for (const row of rows)
    console.log(
      `${row.backend.padEnd(9)} ${row.directMsPerRequest.toFixed(2).padStart(13)} ${row.proxiedMsPerRequest.toFixed(2).padStart(15)} ${row.proxyMsPerRequest.toFixed(2).padStart(14)} ${row.directMBps.toFixed(0).padStart(12)} ${row.proxiedMBps.toFixed(0).padStart(13)}`,
    );
  for (const line of skipped) console.log(`skipped ${line}`);
  await writeResults("sandbox-network", {
    requests: REQUESTS,
    rounds: ROUNDS,
    bigBytes: BIG_BYTES,
    rows,
    skipped,
  });
});
target.close();
