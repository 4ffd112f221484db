/**
 * The checks of `tscodex doctor` that reach outside the process (doctor-checks.ts runs them):
 * the provider's endpoint over HTTP, the sandbox backends, each enabled MCP server (started, its
 * tools listed, stopped) and the thread store (opened, one query); each bounded in time.
 */

import type { Config } from "../../config/load.js";
import { enabledMcpServers } from "../../config/mcp-servers.js";
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

/** A check's result before doctor-checks.ts adds its id, category and duration. */
export type CheckResult = Omit<DoctorCheck, "id" | "category" | "durationMs">;

/** Rejects after `ms` with `what` timed out. */
function bounded<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not finish within ${ms / 1000} s`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** A URL with its path after the base redacted, as Codex shows it: `http://host:port/v1/<redacted>`. */
function redactedEndpoint(baseUrl: string): string {
  return `${baseUrl.replace(/\/+$/, "")}/<redacted>`;
}

export async function providerCheck(config: Config): Promise<CheckResult> {
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

export async function sandboxCheck(): Promise<CheckResult> {
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

export async function mcpCheck(config: Config, cwd: string): Promise<CheckResult> {
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

export async function storeCheck(config: Config): Promise<CheckResult> {
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
