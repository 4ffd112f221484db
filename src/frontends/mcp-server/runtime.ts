/**
 * The runtime of one MCP server: its configuration, threads, settings and tools, and the state
 * its tools keep (session aliases, background tasks, result pages). Every connection of the
 * server shares it (stdio has one, Streamable HTTP one per session); another server in the same
 * process has its own and sees none of it.
 *
 * Opening it loads no tool definitions (their zod schemas): `loadTools` does, before anything
 * reads `tools`. The stdio server's first `codex` call runs without them (stdio-quick-call.ts).
 */
import type { Config } from "../../config/load.js";
import { DEFAULT_APPROVAL_TIMEOUT_MS } from "../../session/approvals.js";
import { ThreadManager } from "../../session/thread-manager.js";
import { openThreadStore } from "../../store/index.js";
import { BackgroundTasks } from "./background.js";
import { KeyedCalls } from "./keyed-calls.js";
import { PageStore } from "./pagination.js";
import { loadServerConfig, type RuntimeOptions, type ServerConfig } from "./server-config.js";
import type { ServerRuntime, ServerSettings, ServerTool } from "./server-tool.js";

export type { RuntimeOptions } from "./server-config.js";

/** Load config and open the thread manager (threads persist in the configured store). */
export async function createRuntime(options: RuntimeOptions = {}): Promise<ServerRuntime> {
  const runtime = await openRuntime(await loadServerConfig(options), options);
  await runtime.loadTools();
  return runtime;
}

/** The runtime over an already loaded config (server-config.ts); its tools are not loaded yet. */
export async function openRuntime(
  { config, overrides }: ServerConfig,
  options: RuntimeOptions = {},
): Promise<ServerRuntime> {
  const threads = new ThreadManager({
    config,
    store: await openThreadStore(config),
    source: "mcp-server",
    originator: "tscodex_mcp_server",
    ...(options.env ? { env: options.env } : {}),
  });
  const settings: ServerSettings = {
    configOverrides: Object.fromEntries(overrides.map(({ path, value }) => [path.join("."), value])),
    rawEvents: options.rawEvents ?? false,
    home: config.home,
    ...(options.profile ? { profile: options.profile } : {}),
    approvalTimeoutMs: config.approvalTimeoutMs ?? DEFAULT_APPROVAL_TIMEOUT_MS,
  };
  return assembleRuntime({ config, threads, settings });
}

/** A runtime around `threads` (which it closes), with fresh per-server state. */
export function assembleRuntime(parts: {
  config: Config;
  threads: ThreadManager;
  settings: ServerSettings;
  /** Default: every tool (tools.ts), loaded by `loadTools`. */
  tools?: readonly ServerTool[];
}): ServerRuntime {
  const { config, threads, settings } = parts;
  let tools = parts.tools;
  return {
    config,
    threads,
    settings,
    get tools() {
      if (!tools) throw new Error("the MCP server's tools were read before loadTools()");
      return tools;
    },
    async loadTools() {
      tools ??= (await import("./tools.js")).serverTools();
      return tools;
    },
    aliases: new Map(),
    tasks: new BackgroundTasks(),
    pages: new PageStore(),
    keyedCalls: new KeyedCalls(threads.store),
    close: () => threads.close(),
  };
}
