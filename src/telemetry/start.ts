/**
 * `startOtelTelemetry`: the OpenTelemetry side of the core's telemetry contract. The providers
 * are built directly and never registered as OpenTelemetry globals, so nothing else in the
 * process changes, and no diagnostics are printed (exec's `--json` stdout stays byte-clean).
 * Every OpenTelemetry module loads here by dynamic import: a run without `[otel]` loads none.
 */
import type { OtelSettings } from "../config/otel.js";
import type { Telemetry } from "../protocol/telemetry.js";
import { logExporter, metricExporter, spanExporter } from "./exporters.js";
import { startHeadersHelper } from "./headers-helper.js";
import { createInstruments } from "./instruments.js";
import { otelTelemetry } from "./otel-telemetry.js";
import { eventSink } from "./records.js";
import { whenRefused } from "./refusal.js";
import { telemetryResource } from "./resource.js";
import { tracestateSampler } from "./sampler.js";
import { tracestateMembers } from "./trace-context.js";

export interface TelemetryOptions {
  /** `service.name`: `codex_exec`, `codex-app-server`, ... */
  serviceName: string;
  /** Who runs: "exec" | "app-server" | "mcp-server" | "proxy" | "tui" | "acp" (metric tag `session_source`). */
  sessionSource: string;
  /** Servers: export metrics periodically. Absent (exec): metrics go out on flush/shutdown only. */
  exportIntervalMs?: number;
  /** The most `shutdown()` (and `flush()`) may take, whatever the collector does; default 3000. */
  shutdownTimeoutMs?: number;
  /** `auth_mode`: `ApiKey` when the provider has a key, else `None`; default `ApiKey`. */
  authMode?: "ApiKey" | "None";
  /** The environment (TERM_PROGRAM/TERM, the headers helper's); default process.env. */
  env?: NodeJS.ProcessEnv;
  /** Where the one headers-helper warning goes; default stderr. */
  warn?: (message: string) => void;
}

const DEFAULT_SHUTDOWN_TIMEOUT_MS = 3_000;
/** setInterval's largest delay: "never" for exec's metric reader, which exports on flush only. */
const NEVER_MS = 2_147_483_647;

export async function startOtelTelemetry(
  settings: OtelSettings,
  options: TelemetryOptions,
): Promise<Telemetry> {
  const env = options.env ?? process.env;
  const boundMs = options.shutdownTimeoutMs ?? DEFAULT_SHUTDOWN_TIMEOUT_MS;
  const warn = options.warn ?? ((message: string) => process.stderr.write(`${message}\n`));
  const helper = settings.headersHelper
    ? await startHeadersHelper(settings.headersHelper, settings.headersHelperRefreshMs, warn, env)
    : undefined;
  // Each export gets most of the bound, so a stalled collector is cut off by the exporter itself.
  const exporterContext = {
    helperHeaders: () => helper?.current() ?? {},
    timeoutMillis: Math.max(100, Math.floor(boundMs * 0.8)),
  };
  const [api, { TracerProvider, BatchSpanProcessor, ParentBasedSampler, AlwaysOnSampler }, logs, sdkMetrics] =
    await Promise.all([
      import("@opentelemetry/api"),
      import("@opentelemetry/sdk-trace"),
      import("@opentelemetry/sdk-logs"),
      import("@opentelemetry/sdk-metrics"),
    ]);
  const [resource, spans, logRecords, metrics] = await Promise.all([
    telemetryResource(options.serviceName, settings.environment),
    spanExporter(settings.traces, exporterContext),
    logExporter(settings.logs, exporterContext),
    metricExporter(settings.metrics, exporterContext),
  ]);
  const batch = { exportTimeoutMillis: exporterContext.timeoutMillis };

  const tracerProvider = new TracerProvider({
    resource,
    sampler: tracestateSampler(
      api,
      new ParentBasedSampler({ root: new AlwaysOnSampler() }),
      tracestateMembers(settings.tracestate),
    ),
    spanProcessors: spans ? [new BatchSpanProcessor({ exporter: spans, ...batch })] : [],
  });
  const loggerProvider = logRecords
    ? new logs.LoggerProvider({
        resource,
        processors: [new logs.BatchLogRecordProcessor({ exporter: logRecords, ...batch })],
      })
    : undefined;
  const meterProvider = metrics
    ? new sdkMetrics.MeterProvider({
        resource,
        readers: [
          new sdkMetrics.PeriodicExportingMetricReader({
            exporter: metrics,
            exportIntervalMillis: options.exportIntervalMs ?? NEVER_MS,
            exportTimeoutMillis: Math.min(
              exporterContext.timeoutMillis,
              options.exportIntervalMs ?? NEVER_MS,
            ),
          }),
        ],
      })
    : undefined;

  const providers = [
    { provider: tracerProvider, setting: settings.traces },
    { provider: loggerProvider, setting: settings.logs },
    { provider: meterProvider, setting: settings.metrics },
  ].flatMap(({ provider, setting }) => (provider ? [{ provider, setting }] : []));
  let stopped = false;
  /** `step` on every provider, each given up when its collector refuses, all within the bound. */
  const bounded = (step: "forceFlush" | "shutdown") => async () => {
    if (stopped) return;
    const work = providers.map(({ provider, setting }) =>
      Promise.race([provider[step](), whenRefused(setting, boundMs)]),
    );
    await settleWithin(work, boundMs);
  };
  const scope = options.serviceName;
  return otelTelemetry({
    api,
    tracer: tracerProvider.getTracer(scope),
    events: eventSink(api, loggerProvider?.getLogger(scope)),
    instruments: createInstruments(meterProvider ? meterProvider.getMeter("codex") : api.createNoopMeter()),
    settings,
    serviceName: options.serviceName,
    sessionSource: options.sessionSource,
    authMode: options.authMode ?? "ApiKey",
    terminalType: env.TERM_PROGRAM || env.TERM || "unknown",
    flush: bounded("forceFlush"),
    shutdown: async () => {
      if (stopped) return;
      helper?.stop();
      await bounded("shutdown")();
      stopped = true;
    },
  });
}

/** Waits for `work` to settle, at most `ms`; rejections are swallowed (a collector's trouble is not ours). */
async function settleWithin(work: Promise<unknown>[], ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms);
  });
  try {
    await Promise.race([Promise.allSettled(work), deadline]);
  } finally {
    clearTimeout(timer);
  }
}
