/**
 * `tscodex doctor`'s checks, each bounded in time, with Codex's ids and categories where Codex
 * has the same check (cli-parity.md Part 1 §7): config.load, auth.credentials,
 * network.provider_reachability, sandbox.helpers, mcp.config, state.paths (the thread store).
 * Checks that need the config are left out when it does not load.
 */
import { join } from "node:path";
import { type Config, loadConfig } from "../../config/load.js";
import type { ConfigOverride } from "../../config/overrides.js";
import { errorMessage } from "../../util/errors.js";
import { type CheckResult, mcpCheck, providerCheck, sandboxCheck, storeCheck } from "./doctor-probes.js";
import type { DoctorCheck } from "./doctor-report.js";

type Result = CheckResult;

async function timed(id: string, category: string, run: () => Promise<Result>): Promise<DoctorCheck> {
  const started = performance.now();
  let result: Result;
  try {
    result = await run();
  } catch (error) {
    result = {
      status: "fail",
      summary: `check failed: ${errorMessage(error)}`,
      details: {},
      remediation: null,
    };
  }
  return { id, category, ...result, durationMs: Math.round(performance.now() - started) };
}

/** Every check, in parallel where they are independent. */
export async function runDoctorChecks(options: {
  cwd: string;
  overrides: ConfigOverride[];
}): Promise<DoctorCheck[]> {
  let config: Config | undefined;
  const configCheck = await timed("config.load", "config", async () => {
    try {
      config = await loadConfig({ cwd: options.cwd, overrides: options.overrides });
    } catch (error) {
      return configFailure(error, options.cwd);
    }
    return configLoaded(config, options.cwd);
  });
  const sandbox = timed("sandbox.helpers", "sandbox", sandboxCheck);
  if (!config) return [configCheck, await sandbox];
  const loaded = config;
  return [
    configCheck,
    ...(await Promise.all([
      timed("auth.credentials", "auth", async () => authCheck(loaded)),
      timed("network.provider_reachability", "reachability", () => providerCheck(loaded)),
      sandbox,
      timed("mcp.config", "mcp", () => mcpCheck(loaded, options.cwd)),
      timed("state.paths", "state", () => storeCheck(loaded)),
    ])),
  ];
}

function configLoaded(config: Config, cwd: string): Result {
  const enabled = Object.entries(config.features)
    .filter(([, on]) => on)
    .map(([name]) => name);
  return {
    status: config.warnings.length > 0 ? "warning" : "ok",
    summary: "config loaded",
    details: {
      CODEX_HOME: config.home,
      "config.toml": config.configPath,
      "config.toml parse": "ok",
      cwd,
      "enabled feature flags": enabled.length > 0 ? enabled.join(", ") : "none",
      ...(config.warnings.length > 0 ? { warnings: config.warnings } : {}),
    },
    remediation: config.warnings.length > 0 ? "Remove or fix the keys the warnings name." : null,
  };
}

function configFailure(error: unknown, cwd: string): Result {
  // smol-toml's parse error (the cause) knows where: Codex reports line and column.
  const cause = (error as { cause?: { line?: unknown; column?: unknown } }).cause;
  const at =
    typeof cause?.line === "number" && typeof cause.column === "number"
      ? { line: String(cause.line), column: String(cause.column) }
      : {};
  const message = errorMessage(error);
  const file = /^(\/[^:]+\.toml):/.exec(message)?.[1];
  return {
    status: "fail",
    summary: "config could not be loaded",
    details: { ...at, error: message.split("\n")[0] ?? message, ...(file ? { file } : {}), cwd },
    remediation: "Fix the reported config error, then rerun tscodex doctor.",
  };
}

function authCheck(config: Config): Result {
  const envKey = config.modelProviders[config.provider.id]?.env_key;
  const details: Record<string, string> = {
    "auth file": join(config.home, "auth.json"),
    "model provider": config.provider.id,
  };
  if (envKey) details["provider auth env var"] = `${envKey} (${process.env[envKey] ? "present" : "missing"})`;
  if (config.providerProblem) {
    return {
      status: "fail",
      summary: "the active model provider has no API key",
      details,
      remediation: config.providerProblem,
    };
  }
  return {
    status: "ok",
    summary: "auth is provided by the active model provider",
    details,
    remediation: null,
  };
}
