/**
 * `tscodex doctor`'s checks, each bounded in time, with Codex's ids and categories where Codex
 * has the same check (cli-parity.md Part 1 §7): config.load, auth.credentials,
 * network.provider_reachability, sandbox.helpers, mcp.config, state.paths (the thread store).
 * Checks that need the config are left out when it does not load.
 */
import { join } from "node:path";
import { type Config, loadConfig } from "../../config/load.js";
import { enabledMcpServers } from "../../config/mcp-servers.js";
import type { ConfigOverride } from "../../config/overrides.js";
import { McpConnection } from "../../mcp/connection.js";
import {
  bwrapBackendStatus,
  detectSandboxBackend,
  landlockBackendStatus,
} from "../../policy/sandbox/detect.js";
import { describeStore, openThreadStore } from "../../store/index.js";
import { errorMessage } from "../../util/errors.js";
import type { CheckStatus, DoctorCheck } from "./doctor-report.js";

/** How long the provider probe waits for an HTTP answer. */
export const PROVIDER_PROBE_TIMEOUT_MS = 3_000;
/** Outer bound on the MCP and store checks (each MCP server also has its own startup bound). */
export const CHECK_TIMEOUT_MS = 15_000;

type Result = Omit<DoctorCheck, "id" | "category" | "durationMs">;

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

/** Rejects after `ms` with `what` timed out. */
function bounded<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not finish within ${ms / 1000} s`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
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

/** A URL with its path after the base redacted, as Codex shows it: `http://host:port/v1/<redacted>`. */
function redactedEndpoint(baseUrl: string): string {
  return `${baseUrl.replace(/\/+$/, "")}/<redacted>`;
}

async function providerCheck(config: Config): Promise<Result> {
  const { provider } = config;
  const endpoint = `${provider.baseUrl}/${provider.wireApi === "chat" ? "chat/completions" : "responses"}`;
  const label = `${provider.name} API inference URL`;
  const shown = redactedEndpoint(provider.baseUrl);
  try {
    const response = await fetch(endpoint, {
      method: "HEAD",
      signal: AbortSignal.timeout(PROVIDER_PROBE_TIMEOUT_MS),
    });
    return {
      status: "ok",
      summary: "active provider endpoints are reachable over HTTP",
      details: { [label]: `${shown} reachable (HTTP ${response.status})` },
      remediation: null,
    };
  } catch (error) {
    const timedOut = (error as Error).name === "TimeoutError";
    return {
      status: "fail",
      summary: "one or more required provider endpoints are unreachable over HTTP",
      details: { [label]: `${shown} ${timedOut ? "timed out" : "connect failed"} (required)` },
      remediation: "Check proxy, VPN, firewall, DNS, and custom CA configuration.",
    };
  }
}

async function sandboxCheck(): Promise<Result> {
  const [bwrap, landlock, auto] = await Promise.all([
    bwrapBackendStatus(),
    landlockBackendStatus(),
    detectSandboxBackend(),
  ]);
  const details: Record<string, string> = {
    bwrap: bwrap.available ? `available (${bwrap.path})` : `unavailable: ${bwrap.reason}`,
    "landlock helper": landlock.available
      ? `available (${landlock.path}, Landlock ABI ${landlock.abi})`
      : `unavailable: ${landlock.reason}`,
    "auto backend": auto,
  };
  if (auto === "none") {
    return {
      status: "warning",
      summary: "no sandbox backend works here: sandboxed commands cannot run",
      details,
      remediation: "Install bubblewrap (bwrap), or build the Landlock helper (npm run build).",
    };
  }
  return { status: "ok", summary: `commands are sandboxed with ${auto}`, details, remediation: null };
}

async function mcpCheck(config: Config, cwd: string): Promise<Result> {
  const all = Object.keys(config.mcpServers);
  if (all.length === 0) {
    return { status: "ok", summary: "no MCP servers configured", details: {}, remediation: null };
  }
  const enabled = enabledMcpServers(config.mcpServers);
  const details: Record<string, string> = {};
  for (const name of all) if (!enabled.some(([entry]) => entry === name)) details[name] = "disabled";
  let failed = 0;
  await Promise.all(
    enabled.map(async ([name, server]) => {
      try {
        const connection = await bounded(
          McpConnection.open(name, server, { env: process.env, cwd, home: config.home }),
          CHECK_TIMEOUT_MS,
          `MCP server ${name}`,
        );
        const tools = connection.tools.map((tool) => tool.name);
        details[name] = `started; ${tools.length} tools${tools.length > 0 ? `: ${tools.join(", ")}` : ""}`;
        await connection.close();
      } catch (error) {
        failed++;
        details[name] = `failed: ${errorMessage(error)}`;
      }
    }),
  );
  const status: CheckStatus = failed > 0 ? "warning" : "ok";
  return {
    status,
    summary:
      failed > 0
        ? `${failed} of ${enabled.length} enabled MCP servers failed to start`
        : `${enabled.length} enabled MCP servers started and listed their tools`,
    details,
    remediation:
      failed > 0 ? "Check the failing servers' command, url and credentials in config.toml." : null,
  };
}

async function storeCheck(config: Config): Promise<Result> {
  const details = { store: describeStore(config) };
  try {
    await bounded(
      (async () => {
        const store = await openThreadStore(config);
        try {
          await store.newestId();
        } finally {
          await store.close();
        }
      })(),
      CHECK_TIMEOUT_MS,
      "the thread store",
    );
  } catch (error) {
    return {
      status: "fail",
      summary: "the thread store could not be opened",
      details: { ...details, error: errorMessage(error) },
      remediation: "Check [store] url (or $TSCODEX_STORE_URL) and that the database is reachable.",
    };
  }
  return { status: "ok", summary: "the thread store opens", details, remediation: null };
}
