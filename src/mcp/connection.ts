/**
 * One MCP server: connect (spawn a stdio process or reach a Streamable HTTP URL), initialize,
 * list its tools, then serve calls until closed. Built on @modelcontextprotocol/sdk's client,
 * which is imported here on first use only, so threads without MCP servers never load it.
 *
 * Processes: a stdio server is closed by ending its stdin, then killed after a short grace;
 * any server still alive when tscodex exits is killed on the way out (no orphans).
 */

import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { tscodexHome } from "../config/load.js";
import { type McpServerConfig, startupTimeoutMs } from "../config/mcp-servers.js";
import type { ElicitationRequest, ElicitationResult } from "../protocol/events.js";
import { VERSION } from "../version.js";
import { callToolResultSchema, type McpCallResult } from "./call-result.js";
import { currentAccessToken, loginRequiredMessage } from "./oauth/tokens.js";
import { describeMcpError } from "./render.js";
import { acceptAllSchemas } from "./schema-validator.js";
import { stderrSummary } from "./stderr-summary.js";

/** A tool as the server lists it (only what tscodex uses). */
export interface McpServerTool {
  name: string;
  description: string;
  inputSchema: unknown;
  /** The server annotated it `readOnlyHint: true` (a hint: approval modes trust it). */
  readOnly: boolean;
}

/** Something the server listed or returned, passed on as JSON. */
export type McpRecord = Record<string, unknown>;

export interface McpPage<K extends string> {
  items: McpRecord[];
  nextCursor: string | undefined;
  kind: K;
}

export interface ConnectOptions {
  /** The environment `env`, `bearer_token_env_var` and `env_http_headers` read from. */
  env: NodeJS.ProcessEnv;
  /** Where a stdio server runs when its config names no `cwd`. */
  cwd: string;
  /** Aborts a startup in progress (the thread shut down first). */
  signal?: AbortSignal;
  /** Where OAuth logins are stored (default: the home `env` names). */
  home?: string;
}

/** Kept from a stdio server's stderr, for startup failure messages. */
const STDERR_TAIL_BYTES = 2048;
/** How long a stdio server may take to exit after its stdin closed, before it is killed. */
const CLOSE_GRACE_MS = 500;

const livePids = new Set<number>();
let exitHookInstalled = false;

function trackPid(pid: number): void {
  livePids.add(pid);
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  // Synchronous on purpose: 'exit' handlers cannot wait, and kill() does not need to.
  process.on("exit", () => {
    for (const child of livePids) {
      try {
        process.kill(child, "SIGKILL");
      } catch {
        // Already gone.
      }
    }
  });
}

/** Passes a server's elicitation to the user; answers with the user's result. */
export type Elicit = (request: ElicitationRequest) => Promise<ElicitationResult>;

export class McpConnection {
  private stderrTail = "";
  tools: McpServerTool[] = [];
  /** Who answers this server's elicitations now: the tool call in progress (none: declined). */
  private elicit: Elicit | undefined;

  private constructor(
    readonly server: string,
    private readonly client: Client,
    private readonly transport: Transport,
    private readonly pid: () => number | null,
  ) {}

  /**
   * Connect, initialize and list tools within the server's startup_timeout_sec. Rejects with a
   * one-line message (the server's stderr tail added for a stdio server that died); nothing is
   * left running on failure.
   */
  static async open(
    server: string,
    config: McpServerConfig,
    options: ConnectOptions,
  ): Promise<McpConnection> {
    const { Client } = await import("@modelcontextprotocol/sdk/client/index.js");
    const { transport, pid, stderr, unauthorized } = await createTransport(server, config, options);
    const client = new Client(
      { name: "tscodex", version: VERSION },
      // Elicitation (form and URL, as Codex declares it): passed to the user during a tool call.
      { capabilities: { elicitation: { form: {}, url: {} } }, jsonSchemaValidator: acceptAllSchemas },
    );
    const connection = new McpConnection(server, client, transport, pid);
    const { ElicitRequestSchema } = await import("@modelcontextprotocol/sdk/types.js");
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      const elicit = connection.elicit;
      if (!elicit) return { action: "decline" };
      const params = request.params;
      const asked: ElicitationRequest =
        params.mode === "url"
          ? { mode: "url", message: params.message, url: params.url, elicitationId: params.elicitationId }
          : { mode: "form", message: params.message, requestedSchema: { ...params.requestedSchema } };
      const result = await elicit(asked);
      return result.action === "accept"
        ? { action: "accept", content: result.content ?? {} }
        : { action: result.action };
    });
    stderr?.on("data", (chunk: Buffer | string) => {
      connection.stderrTail = (connection.stderrTail + chunk.toString()).slice(-STDERR_TAIL_BYTES);
    });
    const timeoutMs = startupTimeoutMs(config);
    let timer: NodeJS.Timeout | undefined;
    let onAbort: (() => void) | undefined;
    const timeout = new Promise<never>((_, reject) => {
      onAbort = () => reject(new Error("startup cancelled"));
      if (options.signal?.aborted) onAbort();
      options.signal?.addEventListener("abort", onAbort, { once: true });
      timer = setTimeout(
        () =>
          reject(
            new Error(
              `did not start within ${timeoutMs / 1000} s; raise startup_timeout_sec under [mcp_servers.${server}] if it needs longer`,
            ),
          ),
        timeoutMs,
      );
    });
    try {
      await Promise.race([connection.initialize(timeoutMs), timeout]);
      return connection;
    } catch (error) {
      // Reported now; the process gets its grace period and is killed in the background.
      void connection.close();
      // A 401: one line naming the login command, not the transport's error.
      if (unauthorized?.()) throw new Error(loginRequiredMessage(server), { cause: error });
      throw new Error(connection.withStderr(describeMcpError(error)), { cause: error });
    } finally {
      clearTimeout(timer);
      if (onAbort) options.signal?.removeEventListener("abort", onAbort);
    }
  }

  private async initialize(timeoutMs: number): Promise<void> {
    const connecting = this.client.connect(this.transport, { timeout: timeoutMs });
    // connect() spawns a stdio server synchronously, before its first await: track it now, so
    // that even a server that never answers is killed when tscodex exits.
    const livePid = this.pid();
    if (livePid !== null) trackPid(livePid);
    this.client.onclose = () => {
      if (livePid !== null) livePids.delete(livePid);
    };
    await connecting;
    if (!this.client.getServerCapabilities()?.tools) return;
    const tools: McpServerTool[] = [];
    let cursor: string | undefined;
    do {
      const page = await this.client.listTools(cursor ? { cursor } : {}, { timeout: timeoutMs });
      for (const tool of page.tools) {
        tools.push({
          name: tool.name,
          description: tool.description ?? "",
          inputSchema: tool.inputSchema,
          readOnly: tool.annotations?.readOnlyHint === true,
        });
      }
      cursor = page.nextCursor;
    } while (cursor);
    this.tools = tools;
  }

  /** Whether the server declared resources (servers without them are skipped when listing all). */
  get hasResources(): boolean {
    return Boolean(this.client.getServerCapabilities()?.resources);
  }

  /** tools/call, bounded by `timeoutMs` and `signal`; the result validated. */
  async callTool(
    tool: string,
    args: Record<string, unknown> | undefined,
    options: {
      timeoutMs: number;
      signal: AbortSignal;
      elicit?: Elicit | undefined;
      /** The server's progress notifications on this call, as one line each. */
      progress?: ((message: string) => void) | undefined;
    },
  ): Promise<McpCallResult> {
    // A signal of the call's own: the SDK leaves its abort listener on the signal it is given,
    // and the turn's signal serves every call of the turn.
    const call = new AbortController();
    const forward = () => call.abort(options.signal.reason);
    if (options.signal.aborted) forward();
    else options.signal.addEventListener("abort", forward, { once: true });
    let raw: unknown;
    // Calls of one thread run one at a time (tools/mcp.ts), so the call in progress is the one asking.
    const previous = this.elicit;
    this.elicit = options.elicit;
    try {
      raw = await this.client.callTool({ name: tool, ...(args ? { arguments: args } : {}) }, undefined, {
        timeout: options.timeoutMs,
        signal: call.signal,
        ...(options.progress ? { onprogress: progressLine(options.progress) } : {}),
      });
    } finally {
      this.elicit = previous;
      options.signal.removeEventListener("abort", forward);
    }
    const parsed = callToolResultSchema.safeParse(raw);
    if (!parsed.success)
      throw new Error(`invalid tools/call result: ${parsed.error.issues[0]?.message ?? ""}`);
    return parsed.data;
  }

  async listResources(cursor: string | undefined, timeoutMs: number): Promise<McpPage<"resources">> {
    const page = await this.client.listResources(cursor ? { cursor } : {}, { timeout: timeoutMs });
    return { kind: "resources", items: page.resources.map(toRecord), nextCursor: page.nextCursor };
  }

  async listResourceTemplates(
    cursor: string | undefined,
    timeoutMs: number,
  ): Promise<McpPage<"resourceTemplates">> {
    const page = await this.client.listResourceTemplates(cursor ? { cursor } : {}, { timeout: timeoutMs });
    return {
      kind: "resourceTemplates",
      items: page.resourceTemplates.map(toRecord),
      nextCursor: page.nextCursor,
    };
  }

  async readResource(uri: string, timeoutMs: number): Promise<McpRecord[]> {
    const result = await this.client.readResource({ uri }, { timeout: timeoutMs });
    return result.contents.map(toRecord);
  }

  /** Ends the session; a stdio process gets CLOSE_GRACE_MS to exit, then SIGKILL. Never throws. */
  async close(): Promise<void> {
    const pid = this.pid();
    const closing = this.client.close().catch(() => {});
    let timer: NodeJS.Timeout | undefined;
    const grace = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, CLOSE_GRACE_MS);
    });
    const exited = await Promise.race([closing.then(() => true), grace.then(() => false)]);
    clearTimeout(timer);
    if (pid !== null) {
      livePids.delete(pid);
      if (!exited) {
        try {
          process.kill(pid, "SIGKILL");
        } catch {
          // Exited meanwhile.
        }
      }
    }
    await closing;
  }

  private withStderr(message: string): string {
    const tail = stderrSummary(this.stderrTail);
    return tail ? `${message} (stderr: ${tail})` : message;
  }
}

function toRecord(value: object): McpRecord {
  return { ...value };
}

interface CreatedTransport {
  transport: Transport;
  pid: () => number | null;
  stderr: NodeJS.ReadableStream | null;
  /** Whether the server answered 401 (Streamable HTTP only). */
  unauthorized?: () => boolean;
}

async function createTransport(
  server: string,
  config: McpServerConfig,
  options: ConnectOptions,
): Promise<CreatedTransport> {
  if (config.command !== undefined) {
    const { StdioClientTransport, getDefaultEnvironment } = await import(
      "@modelcontextprotocol/sdk/client/stdio.js"
    );
    const transport = new StdioClientTransport({
      command: config.command,
      args: config.args ?? [],
      // A small inherited base (PATH, HOME, …) plus what the config sets, as Codex does.
      env: { ...getDefaultEnvironment(), ...(config.env ?? {}) },
      cwd: config.cwd ?? options.cwd,
      stderr: "pipe",
    });
    const stderr = transport.stderr as NodeJS.ReadableStream | null;
    return { transport, pid: () => transport.pid, stderr };
  }
  const { StreamableHTTPClientTransport } = await import(
    "@modelcontextprotocol/sdk/client/streamableHttp.js"
  );
  const headers = httpHeaders(server, config, options.env);
  const url = config.url ?? "";
  // No token configured: the OAuth login's token (`tscodex mcp login`), read before every request
  // so a refreshed one is used at once.
  const oauth = !Object.keys(headers).some((name) => name.toLowerCase() === "authorization");
  const home = options.home ?? tscodexHome(options.env);
  let unauthorized = false;
  const fetchWithLogin = async (input: string | URL, init?: RequestInit): Promise<Response> => {
    const request = new Headers(init?.headers);
    if (oauth) {
      const token = await currentAccessToken(home, server, url);
      if (token) request.set("Authorization", `Bearer ${token}`);
    }
    const response = await fetch(input, { ...init, headers: request });
    if (response.status === 401) unauthorized = true;
    return response;
  };
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers },
    fetch: fetchWithLogin,
  });
  return { transport, pid: () => null, stderr: null, unauthorized: () => unauthorized };
}

function httpHeaders(
  server: string,
  config: McpServerConfig,
  env: NodeJS.ProcessEnv,
): Record<string, string> {
  const headers: Record<string, string> = { ...(config.http_headers ?? {}) };
  for (const [header, variable] of Object.entries(config.env_http_headers ?? {})) {
    const value = env[variable];
    if (value) headers[header] = value;
  }
  if (config.bearer_token_env_var) {
    const token = env[config.bearer_token_env_var];
    if (!token) {
      throw new Error(
        `environment variable ${config.bearer_token_env_var} (bearer_token_env_var of MCP server '${server}') is not set`,
      );
    }
    headers.Authorization = `Bearer ${token}`;
  }
  return headers;
}

/** A progress notification as a line: its message, else "progress/total" (or the bare progress). */
function progressLine(report: (message: string) => void) {
  return (progress: { progress: number; total?: number | undefined; message?: string | undefined }) =>
    report(
      progress.message ?? `${progress.progress}${progress.total !== undefined ? `/${progress.total}` : ""}`,
    );
}
