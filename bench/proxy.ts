/**
 * `npm run bench -- proxy`: `tscodex proxy` under load on loopback. Rounds of 50 concurrent
 * streamed POST /v1/responses (each a new thread answered by the fake model), against the
 * same 50 streamed requests sent straight to the fake model server. Reports, per request:
 * latency added by the proxy (p50/p99 of proxy minus p50/p99 of direct), time to first byte,
 * failures, and the proxy's peak RSS (VmHWM).
 * Targets (issue 13): added p50 <= 5 ms, p99 <= 25 ms, zero failures, <= 150 MB at 50 concurrent.
 */
import { spawn } from "node:child_process";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { message, turn } from "../test/support/fake-model-server.js";
import {
  benchRuns,
  fakeProviderToml,
  TSCODEX_BIN,
  withTempDirAndServer,
  writeResults,
} from "./support/bench.js";

const CONCURRENT = Number(process.env.BENCH_CONCURRENT ?? 50);
const ROUNDS = benchRuns(6);

interface Timing {
  ok: boolean;
  totalMs: number;
  ttfbMs: number;
}

/** One streamed POST read to the end; ok when the stream carried `marker`. */
async function streamed(url: string, body: unknown, marker: string): Promise<Timing> {
  const started = performance.now();
  try {
    const response = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: "Bearer bench" },
      body: JSON.stringify(body),
    });
    const reader = response.body?.getReader();
    if (!reader) return { ok: false, totalMs: performance.now() - started, ttfbMs: 0 };
    let ttfbMs = 0;
    let text = "";
    const decoder = new TextDecoder();
    while (true) {
      const { done, value } = await reader.read();
      if (done) break;
      if (ttfbMs === 0) ttfbMs = performance.now() - started;
      text += decoder.decode(value, { stream: true });
    }
    return {
      ok: response.status === 200 && text.includes(marker),
      totalMs: performance.now() - started,
      ttfbMs,
    };
  } catch {
    return { ok: false, totalMs: performance.now() - started, ttfbMs: 0 };
  }
}

function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;
}

async function main(): Promise<void> {
  await withTempDirAndServer("tscodex-bench-proxy-", async (root, server) => {
    await writeFile(join(root, "config.toml"), fakeProviderToml(server.url));
    const child = spawn(
      process.execPath,
      [
        ...(process.env.PROXY_CPU_PROF ? ["--cpu-prof", `--cpu-prof-dir=${process.env.PROXY_CPU_PROF}`] : []),
        TSCODEX_BIN,
        "proxy",
        "--port",
        "0",
      ],
      {
        cwd: root,
        env: { PATH: process.env.PATH ?? "", HOME: root, TSCODEX_HOME: root, FAKE_KEY: "bench" },
        stdio: ["ignore", "ignore", "pipe"],
      },
    );
    const base = await new Promise<string>((resolve, reject) => {
      let stderr = "";
      child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
        stderr += chunk;
        const url = /listening on (\S+)/.exec(stderr)?.[1];
        if (url) resolve(url);
      });
      child.once("exit", (code) => reject(new Error(`proxy exited (${code}): ${stderr}`)));
    });
    // The per-request log lines are the proxy's; keep the pipe drained.
    child.stderr.resume();
    try {
      const direct: Timing[] = [];
      const proxied: Timing[] = [];
      const modelRequest = { model: "gpt-5.2-codex", input: "bench", stream: true };
      for (let round = 0; round <= ROUNDS; round++) {
        server.reset();
        server.enqueue(...Array.from({ length: CONCURRENT }, () => turn(message("done"))));
        const d = await Promise.all(
          Array.from({ length: CONCURRENT }, () => streamed(`${server.url}/responses`, modelRequest, "done")),
        );
        server.reset();
        server.enqueue(...Array.from({ length: CONCURRENT }, () => turn(message("done"))));
        const p = await Promise.all(
          Array.from({ length: CONCURRENT }, () =>
            streamed(`${base}/responses`, { model: "m", input: "bench", stream: true }, "response.completed"),
          ),
        );
        // Round 0 warms both servers (lazy imports, first connections).
        if (round === 0) continue;
        direct.push(...d);
        proxied.push(...p);
      }
      const status = await readFile(`/proc/${child.pid}/status`, "utf8");
      const peakRssMb = Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
      const stat = (timings: Timing[], key: "totalMs" | "ttfbMs") => {
        const values = timings.filter((t) => t.ok).map((t) => t[key]);
        return { p50: percentile(values, 50), p99: percentile(values, 99) };
      };
      const result = {
        concurrent: CONCURRENT,
        requests: proxied.length,
        direct: { total: stat(direct, "totalMs"), ttfb: stat(direct, "ttfbMs") },
        proxy: { total: stat(proxied, "totalMs"), ttfb: stat(proxied, "ttfbMs") },
        addedP50Ms: stat(proxied, "totalMs").p50 - stat(direct, "totalMs").p50,
        addedP99Ms: stat(proxied, "totalMs").p99 - stat(direct, "totalMs").p99,
        failures: proxied.filter((t) => !t.ok).length,
        directFailures: direct.filter((t) => !t.ok).length,
        peakRssMb,
      };
      await writeResults("proxy", result);
      const f = (n: number) => n.toFixed(1);
      console.log(
        `${CONCURRENT} concurrent streamed /v1/responses x ${ROUNDS} rounds: ` +
          `direct p50 ${f(result.direct.total.p50)} / p99 ${f(result.direct.total.p99)} ms; ` +
          `proxy p50 ${f(result.proxy.total.p50)} / p99 ${f(result.proxy.total.p99)} ms ` +
          `(TTFB p50 ${f(result.proxy.ttfb.p50)} / p99 ${f(result.proxy.ttfb.p99)} ms); ` +
          `added p50 ${f(result.addedP50Ms)} ms, p99 ${f(result.addedP99Ms)} ms; ` +
          `failures ${result.failures}; peak RSS ${f(peakRssMb)} MB`,
      );
      console.log("targets: added p50 <= 5 ms, p99 <= 25 ms, 0 failures, <= 150 MB");
    } finally {
      child.kill("SIGTERM");
      await new Promise((resolve) => child.once("exit", resolve));
    }
  });
}

await main();
