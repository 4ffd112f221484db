/**
 * Each signal reaches a collector over each transport Codex offers (otlp-http binary, otlp-http
 * json, otlp-grpc), decoded by the official OTLP messages; endpoints are used verbatim, each
 * exporter sends its own headers, and metrics are DELTA.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { OtelExporterSetting } from "../../src/config/otel.js";
import { startOtelTelemetry } from "../../src/telemetry/start.js";
import { type OtlpReceiver, startOtlpReceiver } from "../support/otlp-receiver.js";
import { driveTurn, otelSettings } from "./drive.js";

let receiver: OtlpReceiver;
beforeEach(async () => {
  receiver = await startOtlpReceiver();
});
afterEach(async () => {
  await receiver.close();
});

type Transport = "binary" | "json" | "grpc";

function exporter(transport: Transport, path: string, headers: Record<string, string>): OtelExporterSetting {
  if (transport === "grpc") return { kind: "otlp-grpc", endpoint: receiver.grpcUrl, headers };
  return { kind: "otlp-http", endpoint: receiver.httpUrl(path), headers, protocol: transport };
}

describe.each<Transport>(["binary", "json", "grpc"])("otlp over %s", (transport) => {
  it("exports spans, logs and metrics, each with its exporter's endpoint and headers", async () => {
    const telemetry = await startOtelTelemetry(
      otelSettings({
        logs: exporter(transport, "/coll-x/v1/logs", { "x-logs-key": "L" }),
        traces: exporter(transport, "/coll-x/v1/traces", { "x-traces-key": "T" }),
        metrics: exporter(transport, "/coll-x/v1/metrics", { "x-metrics-key": "M" }),
      }),
      { serviceName: "codex_exec", sessionSource: "exec" },
    );
    driveTurn(telemetry);
    await telemetry.shutdown();

    const requests = receiver.requests();
    const signals = new Set(requests.map((request) => request.signal));
    expect(signals).toEqual(new Set(["traces", "logs", "metrics"]));
    const contentType = {
      binary: "application/x-protobuf",
      json: "application/json",
      grpc: "application/grpc",
    };
    for (const request of requests) {
      expect(request.contentType).toBe(contentType[transport]);
      expect(request.body).toBeDefined();
      if (transport !== "grpc") expect(request.path).toBe(`/coll-x/v1/${request.signal}`);
      // Only the exporter's own header.
      const own = { traces: "x-traces-key", logs: "x-logs-key", metrics: "x-metrics-key" }[
        request.signal as "logs"
      ];
      for (const header of ["x-traces-key", "x-logs-key", "x-metrics-key"])
        expect(request.headers[header] !== undefined, `${header} on ${request.signal}`).toBe(header === own);
    }

    const spans = receiver.spans();
    expect(spans.map((span) => span.name).sort()).toEqual([
      "chat gpt-test",
      "chat gpt-test",
      "execute_tool exec_command",
      "invoke_agent tscodex",
    ]);
    const turn = spans.find((span) => span.name === "invoke_agent tscodex");
    expect(turn?.traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(turn?.attributes["gen_ai.usage.input_tokens"]).toBe(3579);
    expect(turn?.resource["service.name"]).toBe("codex_exec");

    const events = receiver.logs().map((log) => log.eventName);
    expect(events).toContain("codex.user_prompt");
    expect(events).toContain("codex.tool_result");
    const prompt = receiver.logs().find((log) => log.eventName === "codex.user_prompt");
    expect(prompt?.attributes.prompt_length).toBe(21);
    expect(prompt?.traceId).toBe(turn?.traceId);
    if (transport === "json") {
      // The LogRecord's own eventName field (the receiver's protobuf messages predate it).
      const logs = receiver.requests().find((request) => request.signal === "logs");
      const records = logs?.body.resourceLogs[0].scopeLogs[0].logRecords as { eventName?: string }[];
      expect(records.map((record) => record.eventName)).toContain("codex.user_prompt");
    }

    const metrics = receiver.metrics();
    expect(metrics.length).toBeGreaterThan(10);
    for (const metric of metrics) {
      if (metric.kind === "gauge") continue;
      expect(metric.temporality, metric.name).toBe("delta");
    }
    const apiRequests = metrics.find((metric) => metric.name === "codex.api_request");
    expect(apiRequests?.points[0]?.value).toBe(2);
    expect(apiRequests?.points[0]?.attributes).toMatchObject({ status: "200", success: "true" });
  });
});
