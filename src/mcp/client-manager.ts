/**
 * The MCP servers of one thread.
 * Responsibilities: start every enabled `[mcp_servers.*]` entry in parallel when the thread is
 * created; report each server's progress as `mcp_startup_update` events and the outcome as one
 * `mcp_startup_complete`; skip a server that fails or outlives its startup_timeout_sec (the
 * thread goes on without it); list the tools (enabled_tools / disabled_tools applied) under
 * unique sorted `mcp__server__tool` names; route calls and resource requests to the right
 * server within its tool_timeout_sec; close every server when the thread shuts down.
 * Loaded lazily (session/create.ts imports it only when servers are configured).
 */
import {
  type McpServerConfig,
  type McpToolApprovalMode,
  toolApprovalMode,
  toolTimeoutMs,
} from "../config/mcp-servers.js";
import type { Event, McpStartupStatus } from "../protocol/events.js";
import { errorMessage } from "../util/errors.js";
import {
  type ConnectOptions,
  type Elicit,
  McpConnection,
  type McpPage,
  type McpRecord,
  type McpServerTool,
} from "./connection.js";
import { assignToolNames, type NamedTool } from "./naming.js";
import type { McpCallResult } from "./render.js";

/** One server tool offered to the model. */
export interface McpToolEntry {
  /** The model-facing name, `mcp__{server}__{tool}` (sanitized, capped). */
  name: string;
  server: string;
  tool: string;
  description: string;
  inputSchema: unknown;
  /** Annotated `readOnlyHint: true` by the server. */
  readOnly: boolean;
  /** Its `approval_mode` (per tool, else the server's default, else auto). */
  approvalMode: McpToolApprovalMode;
}

type Emit = (event: Event) => void;

/** The SDK reports a request that outlived its timeout with this JSON-RPC code. */
const REQUEST_TIMEOUT_CODE = -32001;

export class McpClientManager {
  private readonly connections = new Map<string, McpConnection>();
  private readonly startupEvents: Event[] = [];
  private readonly listeners = new Set<Emit>();
  private readonly failures: { server: string; error: string }[] = [];
  /** Servers that came up (even if closed since). */
  private readonly started = new Set<string>();
  private closed = false;
  /** Aborts startups still in progress when the manager is disposed. */
  private readonly stopping = new AbortController();
  /** Resolves when every server is ready or failed (never rejects). */
  readonly ready: Promise<void>;

  private constructor(
    private readonly configs: Map<string, McpServerConfig>,
    options: ConnectOptions,
  ) {
    const connect = { ...options, signal: this.stopping.signal };
    this.ready = Promise.all([...configs].map(([name, config]) => this.startOne(name, config, connect))).then(
      () => this.finishStartup(),
    );
  }

  /** Start `servers` (already filtered to the enabled ones) in parallel; returns at once. */
  static start(servers: [string, McpServerConfig][], options: ConnectOptions): McpClientManager {
    return new McpClientManager(new Map(servers), options);
  }

  /**
   * Replays the startup events so far to `emit`, forwards later ones, and resolves once startup
   * is over (after `mcp_startup_complete`) or `signal` aborts, whichever is first.
   */
  async whenReady(emit: Emit, signal?: AbortSignal): Promise<void> {
    for (const event of this.startupEvents) emit(event);
    this.listeners.add(emit);
    let onAbort: (() => void) | undefined;
    const aborted = new Promise<void>((resolve) => {
      onAbort = () => resolve();
      if (signal?.aborted) resolve();
      signal?.addEventListener("abort", onAbort, { once: true });
    });
    try {
      await Promise.race([this.ready, aborted]);
    } finally {
      this.listeners.delete(emit);
      if (onAbort) signal?.removeEventListener("abort", onAbort);
    }
  }

  /**
   * After startup: the error that fails the run when a `required = true` server did not start
   * (Codex's wording), else null.
   */
  requiredFailure(): string | null {
    const failed = this.failures
      .filter((failure) => this.configs.get(failure.server)?.required === true)
      .sort((a, b) => (a.server < b.server ? -1 : 1));
    if (failed.length === 0) return null;
    const list = failed.map((failure) => `${failure.server}: ${failure.error}`).join("; ");
    return `required MCP servers failed to initialize: ${list}`;
  }

  /** Servers that started, in name order. */
  readyServers(): string[] {
    return [...this.connections.keys()].sort();
  }

  /** The tools of every ready server, uniquely named and sorted by name. */
  tools(): McpToolEntry[] {
    type Listed = McpServerTool & { approvalMode: McpToolApprovalMode };
    const entries: { server: string; tool: string; value: Listed }[] = [];
    for (const server of this.readyServers()) {
      const connection = this.connections.get(server);
      const config = this.configs.get(server);
      if (!connection || !config) continue;
      for (const tool of connection.tools) {
        if (!toolAllowed(config, tool.name)) continue;
        const approvalMode = toolApprovalMode(config, tool.name);
        entries.push({ server, tool: tool.name, value: { ...tool, approvalMode } });
      }
    }
    return assignToolNames(entries).map((named: NamedTool<Listed>) => ({
      name: named.name,
      server: named.server,
      tool: named.tool,
      description: named.value.description,
      inputSchema: named.value.inputSchema,
      readOnly: named.value.readOnly,
      approvalMode: named.value.approvalMode,
    }));
  }

  /** The server's tool_timeout_sec in milliseconds. */
  toolTimeoutMs(server: string): number {
    const config = this.configs.get(server);
    return config ? toolTimeoutMs(config) : 0;
  }

  /**
   * tools/call on `server`, bounded by its tool_timeout_sec. Rejects with a one-line Error
   * (a timeout says so and names the setting).
   */
  async callTool(
    server: string,
    tool: string,
    args: Record<string, unknown> | undefined,
    signal: AbortSignal,
    elicit?: Elicit,
    progress?: (message: string) => void,
  ): Promise<McpCallResult> {
    const connection = this.connection(server);
    const timeoutMs = this.toolTimeoutMs(server);
    try {
      return await connection.callTool(tool, args, { timeoutMs, signal, elicit, progress });
    } catch (error) {
      if ((error as { code?: unknown }).code === REQUEST_TIMEOUT_CODE) {
        throw new Error(`timed out after ${timeoutMs / 1000} seconds (tool_timeout_sec)`, { cause: error });
      }
      throw error;
    }
  }

  hasResources(server: string): boolean {
    return this.connections.get(server)?.hasResources ?? false;
  }

  listResources(server: string, cursor?: string): Promise<McpPage<"resources">> {
    return this.connection(server).listResources(cursor, this.toolTimeoutMs(server));
  }

  listResourceTemplates(server: string, cursor?: string): Promise<McpPage<"resourceTemplates">> {
    return this.connection(server).listResourceTemplates(cursor, this.toolTimeoutMs(server));
  }

  readResource(server: string, uri: string): Promise<McpRecord[]> {
    return this.connection(server).readResource(uri, this.toolTimeoutMs(server));
  }

  /** Close every server (in parallel); startups still in progress are cancelled. */
  async dispose(): Promise<void> {
    this.closed = true;
    this.stopping.abort();
    const connections = [...this.connections.values()];
    this.connections.clear();
    await Promise.all(connections.map((connection) => connection.close()));
  }

  private connection(server: string): McpConnection {
    const connection = this.connections.get(server);
    if (!connection) throw new Error(`unknown MCP server '${server}'`);
    return connection;
  }

  private async startOne(name: string, config: McpServerConfig, options: ConnectOptions): Promise<void> {
    this.update(name, { state: "starting" });
    try {
      const connection = await McpConnection.open(name, config, options);
      if (this.closed) {
        await connection.close();
        this.update(name, { state: "cancelled" });
        return;
      }
      this.connections.set(name, connection);
      this.started.add(name);
      this.update(name, { state: "ready" });
    } catch (error) {
      if (this.closed) {
        this.update(name, { state: "cancelled" });
        return;
      }
      const message = errorMessage(error);
      this.failures.push({ server: name, error: message });
      this.update(name, { state: "failed", error: message });
    }
  }

  private finishStartup(): void {
    const ready = [...this.started].sort();
    const failed = [...this.failures].sort((a, b) => (a.server < b.server ? -1 : 1));
    const settled = new Set([...ready, ...failed.map((failure) => failure.server)]);
    const cancelled = [...this.configs.keys()].filter((name) => !settled.has(name)).sort();
    this.record({ type: "mcp_startup_complete", ready, failed, cancelled });
  }

  private update(server: string, status: McpStartupStatus): void {
    this.record({ type: "mcp_startup_update", server, status });
  }

  private record(event: Event): void {
    this.startupEvents.push(event);
    for (const listener of this.listeners) listener(event);
  }
}

function toolAllowed(config: McpServerConfig, tool: string): boolean {
  if (config.enabled_tools && !config.enabled_tools.includes(tool)) return false;
  return !config.disabled_tools?.includes(tool);
}
