/**
 * One OTLP exporter per configured signal, from the official packages: otlp-http `binary` uses
 * the `-proto` exporters, `json` the `-http` ones, otlp-grpc the `-grpc` ones (imported only when
 * configured: grpc-js is heavy). The endpoint is the full URL, used as written; an exporter sends
 * its own headers plus the headers helper's. Every export is bounded by `timeoutMillis`.
 */
import { readFileSync } from "node:fs";
import type { LogRecordExporter } from "@opentelemetry/sdk-logs";
import type { PushMetricExporter } from "@opentelemetry/sdk-metrics";
import type { SpanExporter } from "@opentelemetry/sdk-trace";
import type { OtelExporterSetting, OtelTls } from "../config/otel.js";

type Setting<K extends OtelExporterSetting["kind"]> = Extract<OtelExporterSetting, { kind: K }>;

export interface ExporterContext {
  /** Headers from `headers_helper`, read at each export. */
  helperHeaders: () => Record<string, string>;
  timeoutMillis: number;
}

export async function spanExporter(
  setting: OtelExporterSetting,
  context: ExporterContext,
): Promise<SpanExporter | undefined> {
  if (setting.kind === "none") return undefined;
  if (setting.kind === "otlp-grpc") {
    const { OTLPTraceExporter } = await import("@opentelemetry/exporter-trace-otlp-grpc");
    return new OTLPTraceExporter(await grpcOptions(setting, context));
  }
  const { OTLPTraceExporter } =
    setting.protocol === "binary"
      ? await import("@opentelemetry/exporter-trace-otlp-proto")
      : await import("@opentelemetry/exporter-trace-otlp-http");
  return new OTLPTraceExporter(httpOptions(setting, context));
}

export async function logExporter(
  setting: OtelExporterSetting,
  context: ExporterContext,
): Promise<LogRecordExporter | undefined> {
  if (setting.kind === "none") return undefined;
  if (setting.kind === "otlp-grpc") {
    const { OTLPLogExporter } = await import("@opentelemetry/exporter-logs-otlp-grpc");
    return new OTLPLogExporter(await grpcOptions(setting, context));
  }
  const { OTLPLogExporter } =
    setting.protocol === "binary"
      ? await import("@opentelemetry/exporter-logs-otlp-proto")
      : await import("@opentelemetry/exporter-logs-otlp-http");
  return new OTLPLogExporter(httpOptions(setting, context));
}

/** Metrics go out with DELTA temporality (what Codex sends, and what DX-style connectors need). */
export async function metricExporter(
  setting: OtelExporterSetting,
  context: ExporterContext,
): Promise<PushMetricExporter | undefined> {
  if (setting.kind === "none") return undefined;
  const { AggregationTemporality } = await import("@opentelemetry/sdk-metrics");
  const temporality = { temporalityPreference: AggregationTemporality.DELTA };
  if (setting.kind === "otlp-grpc") {
    const { OTLPMetricExporter } = await import("@opentelemetry/exporter-metrics-otlp-grpc");
    return new OTLPMetricExporter({ ...(await grpcOptions(setting, context)), ...temporality });
  }
  const { OTLPMetricExporter } =
    setting.protocol === "binary"
      ? await import("@opentelemetry/exporter-metrics-otlp-proto")
      : await import("@opentelemetry/exporter-metrics-otlp-http");
  return new OTLPMetricExporter({ ...httpOptions(setting, context), ...temporality });
}

function httpOptions(setting: Setting<"otlp-http">, context: ExporterContext) {
  const tls = tlsFiles(setting.tls);
  return {
    url: setting.endpoint,
    // Read at every export, so a refreshed helper's headers apply to the next request.
    headers: async () => ({ ...setting.headers, ...context.helperHeaders() }),
    timeoutMillis: context.timeoutMillis,
    // Explicit, so OTEL_EXPORTER_OTLP_COMPRESSION in the environment changes nothing.
    compression: "none" as never,
    ...(tls ? { httpAgentOptions: { ca: tls.ca, cert: tls.cert, key: tls.key } } : {}),
  };
}

/**
 * gRPC metadata is read once, when the channel is first used: the helper's headers as of start-up
 * apply; a later refresh reaches the HTTP exporters only.
 */
async function grpcOptions(setting: Setting<"otlp-grpc">, context: ExporterContext) {
  const { createEmptyMetadata, createSslCredentials } = await import(
    "@opentelemetry/otlp-grpc-exporter-base"
  );
  const metadata = createEmptyMetadata();
  for (const [name, value] of Object.entries({ ...setting.headers, ...context.helperHeaders() }))
    metadata.set(name, value);
  const tls = tlsFiles(setting.tls);
  return {
    url: setting.endpoint,
    metadata,
    timeoutMillis: context.timeoutMillis,
    compression: "none" as never,
    ...(tls ? { credentials: createSslCredentials(tls.ca, tls.key, tls.cert) } : {}),
  };
}

function tlsFiles(tls: OtelTls | undefined): { ca?: Buffer; cert?: Buffer; key?: Buffer } | undefined {
  if (!tls) return undefined;
  const read = (path: string | undefined) => (path ? readFileSync(path) : undefined);
  const files: { ca?: Buffer; cert?: Buffer; key?: Buffer } = {};
  const ca = read(tls.caCertificate);
  const cert = read(tls.clientCertificate);
  const key = read(tls.clientPrivateKey);
  if (ca) files.ca = ca;
  if (cert) files.cert = cert;
  if (key) files.key = key;
  return files;
}
