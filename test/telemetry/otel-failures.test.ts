/**
 * A collector's trouble never becomes ours: a stalled collector (accepts, never answers) holds
 * shutdown no longer than its bound, a refused or failing one changes nothing, and none of it
 * prints a byte. Without an exporter nothing is sent, whatever OTEL_* variables say.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { OtelExporterSetting } from "../../src/config/otel.js";
import { startOtelTelemetry } from "../../src/telemetry/start.js";
import { closedPort, type OtlpReceiver, startOtlpReceiver } from "../support/otlp-receiver.js";
import { driveTurn, otelSettings } from "./drive.js";

let receiver: OtlpReceiver;
let written: string[];
beforeEach(async () => {
  receiver = await startOtlpReceiver();
  written = [];
  const capture = (chunk: unknown) => {
    written.push(String(chunk));
    return true;
  };
  vi.spyOn(process.stdout, "write").mockImplementation(capture);
  vi.spyOn(process.stderr, "write").mockImplementation(capture);
});
afterEach(async () => {
  vi.restoreAllMocks();
  await receiver.close();
});

const http = (endpoint: string, protocol: "binary" | "json"): OtelExporterSetting => ({
  kind: "otlp-http",
  endpoint,
  headers: {},
  protocol,
});

describe.each(["binary", "json", "grpc"] as const)("a collector over %s", (transport) => {
  const exporter = (path: string, port?: number): OtelExporterSetting => {
    if (transport === "grpc")
      return {
        kind: "otlp-grpc",
        endpoint: port ? `http://127.0.0.1:${port}` : receiver.grpcUrl,
        headers: {},
      };
    return http(port ? `http://127.0.0.1:${port}${path}` : receiver.httpUrl(path), transport);
  };
  const all = (port?: number) => ({
    logs: exporter("/v1/logs", port),
    traces: exporter("/v1/traces", port),
    metrics: exporter("/v1/metrics", port),
  });

  it("that stalls holds shutdown within its bound, silently", async () => {
    receiver.setMode("stall");
    const telemetry = await startOtelTelemetry(otelSettings(all()), {
      serviceName: "codex_exec",
      sessionSource: "exec",
      shutdownTimeoutMs: 1000,
    });
    driveTurn(telemetry);
    const started = performance.now();
    await telemetry.shutdown();
    const elapsed = performance.now() - started;
    expect(elapsed).toBeLessThan(1500);
    // The exports did reach it (so the bound, not a short-circuit, ended the wait).
    expect(receiver.requests().length).toBeGreaterThan(0);
    expect(written).toEqual([]);
  });

  it("that refuses connections neither slows shutdown nor prints", async () => {
    const refused = await startOtelTelemetry(otelSettings(all(await closedPort())), {
      serviceName: "codex_exec",
      sessionSource: "exec",
    });
    driveTurn(refused);
    const started = performance.now();
    await refused.flush();
    await refused.shutdown();
    // Far under the 3 s bound: the exporters' retries against a closed port are not waited for.
    expect(performance.now() - started).toBeLessThan(1000);
    expect(written).toEqual([]);
  });

  it("that answers errors changes nothing and prints nothing", async () => {
    receiver.setMode("error");
    const failing = await startOtelTelemetry(otelSettings(all()), {
      serviceName: "codex-app-server",
      sessionSource: "app-server",
      exportIntervalMs: 50,
      shutdownTimeoutMs: 1000,
    });
    driveTurn(failing);
    await failing.flush();
    await failing.shutdown();
    expect(receiver.requests().length).toBeGreaterThan(0);
    expect(written).toEqual([]);
  });
});

it("sends nothing without an exporter, even with OTEL_* variables pointing at a collector", async () => {
  vi.stubEnv("OTEL_EXPORTER_OTLP_ENDPOINT", receiver.httpUrl());
  vi.stubEnv("OTEL_TRACES_EXPORTER", "otlp");
  vi.stubEnv("OTEL_LOGS_EXPORTER", "otlp");
  vi.stubEnv("OTEL_METRICS_EXPORTER", "otlp");
  try {
    const telemetry = await startOtelTelemetry(otelSettings(), {
      serviceName: "codex_exec",
      sessionSource: "exec",
    });
    driveTurn(telemetry);
    await telemetry.flush();
    await telemetry.shutdown();
  } finally {
    vi.unstubAllEnvs();
  }
  expect(receiver.requests()).toEqual([]);
  expect(written).toEqual([]);
});

it("exports servers' metrics periodically, without a flush", async () => {
  const telemetry = await startOtelTelemetry(
    otelSettings({ metrics: http(receiver.httpUrl("/v1/metrics"), "json") }),
    {
      serviceName: "codex-app-server",
      sessionSource: "app-server",
      exportIntervalMs: 100,
    },
  );
  driveTurn(telemetry);
  await receiver.waitFor((r) => r.metrics().some((metric) => metric.name === "codex.thread.started"), 5000);
  await telemetry.shutdown();
});
