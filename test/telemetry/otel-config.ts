/** `[otel]` tables for the end-to-end telemetry tests: every signal to its own URL on a test receiver. */
import { afterEach, beforeEach } from "vitest";
import { type OtlpReceiver, startOtlpReceiver } from "../support/otlp-receiver.js";

export function otelTable(
  receiver: OtlpReceiver,
  options: { protocol?: "binary" | "json"; extra?: string; headers?: string } = {},
): string {
  const exporter = (path: string) =>
    `{ otlp-http = { endpoint = "${receiver.httpUrl(path)}", protocol = "${options.protocol ?? "binary"}"${options.headers ?? ""} } }`;
  return [
    "[otel]",
    'environment = "ci"',
    `exporter = ${exporter("/coll/v1/logs")}`,
    `trace_exporter = ${exporter("/coll/v1/traces")}`,
    `metrics_exporter = ${exporter("/coll/v1/metrics")}`,
    options.extra ?? "",
  ].join("\n");
}

/** A caller's W3C context: its trace, its span (the parent of ours) and its tracestate. */
export const CALLER = {
  traceId: "4bf92f3577b34da6a3ce929d0e0e4736",
  spanId: "00f067aa0ba902b7",
  traceparent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
  tracestate: "caller=1",
};

/**
 * A fresh OTLP receiver for each test (closed after it); `configure` runs once it listens (e.g. to
 * write the config.toml that exports to it).
 */
export function useOtlpReceiver(configure?: (receiver: OtlpReceiver) => Promise<void>): {
  readonly receiver: OtlpReceiver;
} {
  let current: OtlpReceiver | undefined;
  beforeEach(async () => {
    current = await startOtlpReceiver();
    await configure?.(current);
  });
  afterEach(async () => {
    await current?.close();
    current = undefined;
  });
  return {
    get receiver() {
      if (!current) throw new Error("no OTLP receiver outside a test");
      return current;
    },
  };
}
