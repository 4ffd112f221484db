/**
 * `tls` on an exporter: the CA file makes a private collector's certificate trusted, and the
 * client certificate and key are presented (mutual TLS), over otlp-http and otlp-grpc.
 */
import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { OtelExporterSetting, OtelTls } from "../../src/config/otel.js";
import { startOtelTelemetry } from "../../src/telemetry/start.js";
import { type OtlpReceiver, startOtlpReceiver } from "../support/otlp-receiver.js";
import { type TempDir, tmpdir } from "../support/tmpdir.js";
import { driveTurn, otelSettings } from "./drive.js";

const openssl = spawnSync("openssl", ["version"]).status === 0;

/** A CA, a server certificate for 127.0.0.1 and a client certificate (CN otel-client), all from it. */
function makeCertificates(dir: string): void {
  const run = (...args: string[]) => {
    const result = spawnSync("openssl", args, { cwd: dir, encoding: "utf8" });
    if (result.status !== 0) throw new Error(`openssl ${args[0]}: ${result.stderr}`);
  };
  run(
    "req",
    "-x509",
    "-newkey",
    "rsa:2048",
    "-nodes",
    "-keyout",
    "ca.key",
    "-out",
    "ca.pem",
    "-days",
    "2",
    "-subj",
    "/CN=otel-test-ca",
  );
  for (const [name, subject, extension] of [
    ["server", "/CN=127.0.0.1", "subjectAltName=IP:127.0.0.1"],
    ["client", "/CN=otel-client", "extendedKeyUsage=clientAuth"],
  ] as const) {
    run(
      "req",
      "-newkey",
      "rsa:2048",
      "-nodes",
      "-keyout",
      `${name}.key`,
      "-out",
      `${name}.csr`,
      "-subj",
      subject,
    );
    writeFileSync(join(dir, `${name}.ext`), `${extension}\n`);
    run(
      "x509",
      "-req",
      "-in",
      `${name}.csr`,
      "-CA",
      "ca.pem",
      "-CAkey",
      "ca.key",
      "-CAcreateserial",
      "-out",
      `${name}.pem`,
      "-days",
      "2",
      "-extfile",
      `${name}.ext`,
    );
  }
}

describe.skipIf(!openssl)("exporter tls (needs openssl)", () => {
  let temp: TempDir;
  let receiver: OtlpReceiver;
  let tls: OtelTls;
  beforeAll(async () => {
    temp = await tmpdir("otel-tls-");
    makeCertificates(temp.path);
    const pem = (name: string) => readFile(join(temp.path, name), "utf8");
    receiver = await startOtlpReceiver({
      tls: { key: await pem("server.key"), cert: await pem("server.pem"), clientCa: await pem("ca.pem") },
    });
    tls = {
      caCertificate: join(temp.path, "ca.pem"),
      clientCertificate: join(temp.path, "client.pem"),
      clientPrivateKey: join(temp.path, "client.key"),
    };
  });
  afterAll(async () => {
    await receiver?.close();
    await temp?.cleanup();
  });

  it.each(["otlp-http", "otlp-grpc"] as const)(
    "%s trusts the CA and presents the client certificate",
    async (kind) => {
      receiver.clear();
      const exporter: OtelExporterSetting =
        kind === "otlp-grpc"
          ? { kind, endpoint: receiver.grpcUrl, headers: {}, tls }
          : { kind, endpoint: receiver.httpUrl("/v1/traces"), headers: {}, protocol: "binary", tls };
      const telemetry = await startOtelTelemetry(otelSettings({ traces: exporter }), {
        serviceName: "codex_exec",
        sessionSource: "exec",
      });
      driveTurn(telemetry);
      await telemetry.shutdown();
      expect(receiver.spans().map((span) => span.name)).toContain("invoke_agent tscodex");
      if (kind === "otlp-http") expect(receiver.requests()[0]?.clientCertificate).toBe("otel-client");
    },
  );

  it("sends nothing to that collector without its CA (the certificate is not trusted)", async () => {
    receiver.clear();
    const telemetry = await startOtelTelemetry(
      otelSettings({
        traces: {
          kind: "otlp-http",
          endpoint: receiver.httpUrl("/v1/traces"),
          headers: {},
          protocol: "binary",
        },
      }),
      { serviceName: "codex_exec", sessionSource: "exec", shutdownTimeoutMs: 500 },
    );
    driveTurn(telemetry);
    await telemetry.shutdown();
    expect(receiver.requests()).toEqual([]);
  });
});
