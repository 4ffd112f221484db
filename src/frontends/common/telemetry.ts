/**
 * Each front-end's telemetry: installed at start-up when `[otel]` exports anything, else the
 * no-op, and no OpenTelemetry code is loaded. `service.name` says which front-end it is
 * (`tscodex_exec`, `tscodex-app-server`, ...; `OTEL_SERVICE_NAME` renames it, e.g. to Codex's
 * `codex_exec` for a dashboard built on Codex's names). Servers export periodically; exec
 * flushes once, when it exits.
 */
import type { Config } from "../../config/load.js";
import { otelExports } from "../../config/otel.js";
import { installTelemetry, NOOP_TELEMETRY, type Telemetry } from "../../protocol/telemetry.js";

export type SessionSource = "exec" | "app-server" | "mcp-server" | "proxy" | "tui" | "acp" | "sdk";

const SERVICE_NAMES: Record<SessionSource, string> = {
  exec: "tscodex_exec",
  "app-server": "tscodex-app-server",
  "mcp-server": "tscodex-mcp-server",
  proxy: "tscodex-proxy",
  tui: "tscodex_tui",
  acp: "tscodex-acp",
  sdk: "tscodex_sdk",
};

/** How often a server exports metrics (spans and logs go out in batches as they fill). */
export const SERVER_EXPORT_INTERVAL_MS = 10_000;

/** Start and install the process's telemetry for `source`; the no-op without `[otel]`. */
export async function startTelemetry(
  config: Config,
  source: SessionSource,
  env: NodeJS.ProcessEnv = process.env,
): Promise<Telemetry> {
  if (!config.otel || !otelExports(config.otel)) return NOOP_TELEMETRY;
  const { startOtelTelemetry } = await import("../../telemetry/start.js");
  const telemetry = await startOtelTelemetry(config.otel, {
    serviceName: env.OTEL_SERVICE_NAME?.trim() || SERVICE_NAMES[source],
    sessionSource: source,
    ...(source === "exec" ? {} : { exportIntervalMs: SERVER_EXPORT_INTERVAL_MS }),
    authMode: config.provider.apiKey ? "ApiKey" : "None",
    env,
  });
  installTelemetry(telemetry);
  return telemetry;
}
