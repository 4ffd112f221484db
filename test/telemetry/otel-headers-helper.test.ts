/**
 * `headers_helper`: its JSON object of headers goes with every export, over each exporter's own
 * headers; with a refresh interval it runs again and later exports carry its new output; a
 * failing helper warns once and export goes on without it.
 */
import { afterEach, beforeEach, expect, it } from "vitest";
import { startOtelTelemetry } from "../../src/telemetry/start.js";
import { type OtlpReceiver, startOtlpReceiver } from "../support/otlp-receiver.js";
import { tmpdir } from "../support/tmpdir.js";
import { driveTurn, otelSettings } from "./drive.js";

let receiver: OtlpReceiver;
beforeEach(async () => {
  receiver = await startOtlpReceiver();
});
afterEach(async () => {
  await receiver.close();
});

it("sends the helper's headers, over the configured ones, on http and grpc", async () => {
  const telemetry = await startOtelTelemetry(
    otelSettings({
      logs: {
        kind: "otlp-http",
        endpoint: receiver.httpUrl("/v1/logs"),
        headers: { "x-token": "configured", "x-static": "s" },
        protocol: "binary",
      },
      traces: { kind: "otlp-grpc", endpoint: receiver.grpcUrl, headers: { "x-static": "g" } },
      headersHelper: `printf '{"x-token":"from-helper","x-tenant":"t1"}'`,
    }),
    { serviceName: "codex_exec", sessionSource: "exec" },
  );
  driveTurn(telemetry);
  await telemetry.shutdown();
  const logs = receiver.requests().find((request) => request.signal === "logs");
  const traces = receiver.requests().find((request) => request.signal === "traces");
  expect(logs?.headers).toMatchObject({ "x-token": "from-helper", "x-tenant": "t1", "x-static": "s" });
  expect(traces?.headers).toMatchObject({ "x-token": "from-helper", "x-tenant": "t1", "x-static": "g" });
});

it("runs the helper again every refresh interval", async () => {
  const temp = await tmpdir("otel-helper-");
  const dir = temp.path;
  // Each run prints the next count: 1 at start, 2+ after refreshes.
  const helper = `n=$(cat ${dir}/n 2>/dev/null || echo 0); n=$((n+1)); echo $n > ${dir}/n; printf '{"x-run":"%s"}' $n`;
  const telemetry = await startOtelTelemetry(
    otelSettings({
      metrics: {
        kind: "otlp-http",
        endpoint: receiver.httpUrl("/v1/metrics"),
        headers: {},
        protocol: "json",
      },
      headersHelper: helper,
      headersHelperRefreshMs: 50,
    }),
    { serviceName: "codex-app-server", sessionSource: "app-server", exportIntervalMs: 100 },
  );
  // Delta metrics export only when something was recorded: drive a turn, await its export, until a
  // refreshed run's header shows up (each export follows a real arrival; no sleeping).
  const runs: number[] = [];
  for (let turn = 0; turn < 50 && !runs.some((run) => run >= 2); turn++) {
    const before = receiver.requests().length;
    driveTurn(telemetry);
    await receiver.waitFor((r) => r.requests().length > before, 5000);
    runs.push(Number(receiver.requests().at(-1)?.headers["x-run"]));
  }
  expect(runs.at(-1)).toBeGreaterThanOrEqual(2);
  await telemetry.shutdown();
  await temp.cleanup();
});

it("warns once when the helper fails, and exports without its headers", async () => {
  const warnings: string[] = [];
  const telemetry = await startOtelTelemetry(
    otelSettings({
      logs: {
        kind: "otlp-http",
        endpoint: receiver.httpUrl("/v1/logs"),
        headers: { "x-static": "s" },
        protocol: "json",
      },
      headersHelper: "echo not-json; exit 3",
      headersHelperRefreshMs: 20,
    }),
    { serviceName: "codex_exec", sessionSource: "exec", warn: (message) => warnings.push(message) },
  );
  driveTurn(telemetry);
  await telemetry.flush();
  await receiver.waitFor((r) => r.requests().length > 0, 5000);
  await telemetry.shutdown();
  expect(warnings).toHaveLength(1);
  expect(warnings[0]).toContain("headers_helper failed");
  expect(receiver.requests()[0]?.headers["x-static"]).toBe("s");
});
