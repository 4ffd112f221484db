/**
 * `tscodex proxy`: an OpenAI-compatible HTTP endpoint with the agent behind it.
 * Flow: load config → thread manager (threads persist under TSCODEX_HOME, where any proxy
 * process finds them) → listen → on SIGINT/SIGTERM stop accepting, let open turns and streams
 * finish (bounded), shut threads down. Returns the exit code.
 */

import { createServer } from "node:http";
import { resolve } from "node:path";
import { getRequestListener } from "@hono/node-server";
import { loadConfig } from "../../config/load.js";
import { parseOverride } from "../../config/overrides.js";
import { ThreadManager } from "../../session/thread-manager.js";
import { openThreadStore, type ThreadStore } from "../../store/index.js";
import { errorMessage } from "../../util/errors.js";
import { configViolation } from "../common/ceiling.js";
import { LateConnections } from "../common/health.js";
import { checkBind, UnsafeBindError } from "../common/http-guard.js";
import { guardProcess, listenOn, stopSignal } from "../common/serve.js";
import { describeServing } from "../common/serving-log.js";
import { createApp } from "./app.js";
import { ConcurrencyLimit } from "./guards.js";

export interface ProxyCliOptions {
  host: string;
  port: string;
  apiKeyEnv?: string;
  cd?: string;
  disableInternalTools?: boolean;
  quietAgentWork?: boolean;
  config: string[];
  maxConcurrent: string;
  parkedTtl: string;
  idempotencyTtl: string;
  maxBody: string;
}

/** How long shutdown waits for open turns before closing their connections. */
const DRAIN_BOUND_MS = 30_000;

export async function runProxy(options: ProxyCliOptions): Promise<number> {
  const port = Number(options.port);
  if (!(Number.isInteger(port) && port >= 0 && port < 65536))
    return fail(`--port: '${options.port}' is not a port number`);
  const maxConcurrent = Number(options.maxConcurrent);
  if (!(Number.isInteger(maxConcurrent) && maxConcurrent > 0))
    return fail(`--max-concurrent: '${options.maxConcurrent}' is not a positive integer`);
  const parkedTtlSec = Number(options.parkedTtl);
  if (!(parkedTtlSec > 0))
    return fail(`--parked-ttl: '${options.parkedTtl}' is not a positive number of seconds`);
  const idempotencyTtlSec = Number(options.idempotencyTtl);
  if (!(idempotencyTtlSec > 0))
    return fail(`--idempotency-ttl: '${options.idempotencyTtl}' is not a positive number of seconds`);
  const maxBodyBytes = Number(options.maxBody);
  if (!(Number.isInteger(maxBodyBytes) && maxBodyBytes > 0))
    return fail(`--max-body: '${options.maxBody}' is not a positive number of bytes`);
  const apiKey = options.apiKeyEnv ? process.env[options.apiKeyEnv] : undefined;
  if (options.apiKeyEnv && !apiKey)
    return fail(`--api-key-env: the variable ${options.apiKeyEnv} is not set`);

  try {
    checkBind(options.host, apiKey);
  } catch (error) {
    if (error instanceof UnsafeBindError) return fail(error.message);
    throw error;
  }

  const config = await loadConfig({ overrides: options.config.map(parseOverride) });
  const aboveCeiling = configViolation(config);
  if (aboveCeiling) return fail(aboveCeiling);
  if (config.providerProblem) process.stderr.write(`tscodex proxy: warning: ${config.providerProblem}\n`);
  // Loaded only with `[otel]`: without it no telemetry code is read at all.
  const telemetry = config.otel
    ? await (await import("../common/telemetry.js")).startTelemetry(config, "proxy")
    : null;
  let store: ThreadStore;
  try {
    store = await openThreadStore(config);
  } catch (error) {
    return fail(errorMessage(error));
  }
  const threads = new ThreadManager({ config, store, source: "proxy", originator: "tscodex_proxy" });
  const limit = new ConcurrencyLimit(maxConcurrent);
  const readiness = { draining: false };
  const lateConnections = new LateConnections(readiness);
  const app = createApp({
    config,
    turns: {
      threads,
      cwd: resolve(options.cd ?? process.cwd()),
      noInternalTools: options.disableInternalTools ?? false,
      parkedTtlMs: parkedTtlSec * 1000,
    },
    limit,
    host: options.host,
    apiKey,
    maxBodyBytes,
    idempotencyTtlMs: idempotencyTtlSec * 1000,
    quietAgentWork: options.quietAgentWork ?? false,
    readiness,
    lateConnections,
  });
  // Past both windows a parked call can be neither continued nor re-answered.
  const pruning = prunePeriodically(store, Math.max(parkedTtlSec, idempotencyTtlSec) * 1000);
  const server = createServer(getRequestListener(app.fetch));
  lateConnections.watch(server);
  guardProcess("proxy");
  const authority = await listenOn(server, port, options.host);
  process.stderr.write(
    `tscodex proxy: listening on http://${authority}/v1 (GET /healthz, /readyz); ${await describeServing(config)}\n`,
  );

  await stopSignal();
  process.stderr.write("tscodex proxy: shutting down\n");
  readiness.draining = true;
  // A turn that cannot be stored now ends now: the drain must not wait out a store outage.
  store.stopRidingOut?.();
  // Open turns and their streams finish (bounded), then threads shut down. Until they have, the
  // port stays open for probes (/readyz 503); a new connection gets no work (LateConnections).
  server.closeIdleConnections();
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise((done) => {
    timer = setTimeout(done, DRAIN_BOUND_MS);
  });
  await Promise.race([limit.drained(), bound]);
  const closed = new Promise<void>((done) => server.close(() => done()));
  // Responses are written by now; keep-alive sockets go idle as their last bytes leave.
  const idle = setInterval(() => server.closeIdleConnections(), 20);
  await Promise.race([closed, bound]);
  clearInterval(idle);
  clearTimeout(timer);
  server.closeAllConnections();
  await closed;
  clearInterval(pruning);
  await threads.close();
  await telemetry?.shutdown();
  process.stderr.write("tscodex proxy: stopped\n");
  return 0;
}

/**
 * Expired idempotency keys and parked-call entries older than `parkedWindowMs` go now and every
 * hour after (the store keeps them otherwise: one row per client tool call, forever).
 */
function prunePeriodically(store: ThreadStore, parkedWindowMs: number): NodeJS.Timeout {
  const report = (what: string) => (error: unknown) => {
    process.stderr.write(`tscodex proxy: pruning ${what}: ${errorMessage(error)}\n`);
  };
  const prune = () => {
    void store.pruneIdempotencyKeys(Date.now()).catch(report("idempotency keys"));
    void store.pruneParkedCalls(Date.now() - parkedWindowMs).catch(report("parked calls"));
  };
  prune();
  const timer = setInterval(prune, 60 * 60 * 1000);
  timer.unref();
  return timer;
}

function fail(message: string): number {
  process.stderr.write(`tscodex proxy: ${message}\n`);
  return 2;
}
