/**
 * `[otel]`: Codex's 13 keys, checked, and what they mean once read. Each exporter posts to
 * exactly the URL written (nothing appended), a `protocol` is required for otlp-http (Codex
 * refuses to start without one), and nothing is exported without the table: the standard
 * `OTEL_*` variables turn nothing on (Codex ignores them too). `statsig`, Codex's own sink, is
 * never a destination here: it reads as `none`, with a warning.
 */
import { isAbsolute, resolve } from "node:path";
import type { OtelConfigFile, OtelExporterFile, OtelTlsFile } from "./otel-schema.js";

/** Client certificate files for an exporter (paths made absolute against the home). */
export interface OtelTls {
  caCertificate?: string;
  clientCertificate?: string;
  clientPrivateKey?: string;
}

export type OtelExporterSetting =
  | { kind: "none" }
  | {
      kind: "otlp-http";
      endpoint: string;
      headers: Record<string, string>;
      protocol: "binary" | "json";
      tls?: OtelTls;
    }
  | { kind: "otlp-grpc"; endpoint: string; headers: Record<string, string>; tls?: OtelTls };

/** `[otel]` as the telemetry layer uses it. */
export interface OtelSettings {
  environment: string;
  logs: OtelExporterSetting;
  traces: OtelExporterSetting;
  metrics: OtelExporterSetting;
  logUserPrompt: boolean;
  logAgentResponses: boolean;
  logSseDeltas: boolean;
  spanAttributes: Record<string, string>;
  /** tracestate members to upsert: member key → its `field:value` pairs. */
  tracestate: Record<string, Record<string, string>>;
  /** The headers helper command (run with `sh -c`); absent: none. */
  headersHelper?: string;
  /** How often the helper runs again; absent: once, at start-up. */
  headersHelperRefreshMs?: number;
  /** Largest tool output kept in `codex.tool_result` (bytes); absent: Codex's default. */
  toolResultMaxBytes?: number;
}

/** Codex's default for `tool_result.max_bytes`. */
export const DEFAULT_TOOL_RESULT_MAX_BYTES = 16 * 1024;

/** The settings of a checked `[otel]` table; `warn` hears what was read but will not be used. */
export function otelSettings(
  file: OtelConfigFile,
  home: string,
  warn: (message: string) => void,
): OtelSettings {
  const exporter = (key: "exporter" | "trace_exporter" | "metrics_exporter") =>
    exporterSetting(file[key], home, () =>
      warn(
        `[otel] ${key} = "statsig" sends to OpenAI's own sink; tscodex exports nothing there (use otlp-http)`,
      ),
    );
  const settings: OtelSettings = {
    environment: file.environment ?? "dev",
    logs: exporter("exporter"),
    traces: exporter("trace_exporter"),
    metrics: exporter("metrics_exporter"),
    logUserPrompt: file.log_user_prompt ?? false,
    logAgentResponses: file.log_agent_responses ?? false,
    logSseDeltas: file.log_sse_deltas ?? false,
    spanAttributes: file.span_attributes ?? {},
    tracestate: file.tracestate ?? {},
  };
  if (file.headers_helper) settings.headersHelper = file.headers_helper;
  if (file.headers_helper_refresh_interval_ms !== undefined)
    settings.headersHelperRefreshMs = file.headers_helper_refresh_interval_ms;
  if (file.tool_result) settings.toolResultMaxBytes = file.tool_result.max_bytes;
  return settings;
}

/** True when at least one signal goes somewhere. */
export function otelExports(settings: OtelSettings): boolean {
  return [settings.logs, settings.traces, settings.metrics].some((exporter) => exporter.kind !== "none");
}

function exporterSetting(
  value: OtelExporterFile | undefined,
  home: string,
  onStatsig: () => void,
): OtelExporterSetting {
  if (value === undefined || value === "none") return { kind: "none" };
  if (value === "statsig") {
    onStatsig();
    return { kind: "none" };
  }
  if ("otlp-http" in value) {
    const http = value["otlp-http"];
    const setting: OtelExporterSetting = {
      kind: "otlp-http",
      endpoint: http.endpoint,
      headers: http.headers ?? {},
      protocol: http.protocol,
    };
    const tls = tlsSetting(http.tls, home);
    if (tls) setting.tls = tls;
    return setting;
  }
  const grpc = value["otlp-grpc"];
  const setting: OtelExporterSetting = {
    kind: "otlp-grpc",
    endpoint: grpc.endpoint,
    headers: grpc.headers ?? {},
  };
  const tls = tlsSetting(grpc.tls, home);
  if (tls) setting.tls = tls;
  return setting;
}

function tlsSetting(tls: OtelTlsFile | null | undefined, home: string): OtelTls | undefined {
  if (!tls) return undefined;
  const path = (file: string | null | undefined) =>
    file ? (isAbsolute(file) ? file : resolve(home, file)) : undefined;
  const result: OtelTls = {};
  const ca = path(tls["ca-certificate"]);
  const cert = path(tls["client-certificate"]);
  const key = path(tls["client-private-key"]);
  if (ca) result.caCertificate = ca;
  if (cert) result.clientCertificate = cert;
  if (key) result.clientPrivateKey = key;
  return Object.keys(result).length > 0 ? result : undefined;
}
