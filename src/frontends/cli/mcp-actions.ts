/**
 * The work behind `tscodex mcp …`: read `$TSCODEX_HOME/config.toml`, show or edit its
 * `[mcp_servers.*]` (edits keep the rest of the file as written; see config/mcp-edit.ts).
 * Each action returns the exit code; messages go to stdout, problems to stderr. What the human
 * views print (commands, arguments, names, a parser's message quoting a key) shows its control
 * characters (terminal-text.ts); `--json` is exact.
 */
import { mkdir, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { parse } from "smol-toml";
import { tscodexHome } from "../../config/load.js";
import { addMcpServer, removeMcpServer } from "../../config/mcp-edit.js";
import {
  DEFAULT_STARTUP_TIMEOUT_SEC,
  DEFAULT_TOOL_TIMEOUT_SEC,
  type McpServerConfig,
} from "../../config/mcp-servers.js";
import { mcpServerConfigSchema, mcpServersSchema } from "../../config/mcp-servers-schema.js";
import { readTextOrEmpty } from "../../util/files.js";
import { visibleLine, visibleText } from "../common/terminal-text.js";
import type { AuthStatus, McpLoginOptions } from "./mcp-login-actions.js";

/** `tscodex mcp add` options, as commander parses them. */
export interface McpAddOptions {
  env: string[];
  url?: string;
  bearerTokenEnvVar?: string;
  cwd?: string;
  startupTimeoutSec?: string;
  toolTimeoutSec?: string;
}

const configPath = () => join(tscodexHome(), "config.toml");

function fail(message: string): number {
  process.stderr.write(`tscodex: ${visibleText(message)}\n`);
  return 1;
}

/** The configured servers, validated; a string is the problem. */
async function loadServers(): Promise<Record<string, McpServerConfig> | string> {
  const path = configPath();
  let doc: Record<string, unknown>;
  try {
    doc = parse(await readTextOrEmpty(path)) as Record<string, unknown>;
  } catch (error) {
    return `${path}: invalid TOML: ${(error as Error).message}`;
  }
  const result = mcpServersSchema.safeParse(doc.mcp_servers ?? {});
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  return `${path}: key 'mcp_servers.${issue?.path.join(".") ?? ""}': ${issue?.message ?? "invalid value"}`;
}

/** The JSON view of one server (Codex-like: a transport object plus the common settings). */
function describe(name: string, server: McpServerConfig): Record<string, unknown> {
  const transport =
    server.command !== undefined
      ? {
          type: "stdio",
          command: server.command,
          args: server.args ?? [],
          env: masked(server.env),
          cwd: server.cwd ?? null,
        }
      : {
          type: "streamable_http",
          url: server.url,
          bearer_token_env_var: server.bearer_token_env_var ?? null,
          http_headers: masked(server.http_headers),
        };
  return {
    name,
    enabled: server.enabled !== false,
    transport,
    startup_timeout_sec: server.startup_timeout_sec ?? DEFAULT_STARTUP_TIMEOUT_SEC,
    tool_timeout_sec: server.tool_timeout_sec ?? DEFAULT_TOOL_TIMEOUT_SEC,
    enabled_tools: server.enabled_tools ?? null,
    disabled_tools: server.disabled_tools ?? null,
    // Why a tool asks or is refused (exec's policy is never): the server's mode and each tool's own.
    default_tools_approval_mode: server.default_tools_approval_mode ?? "auto",
    tools: toolApprovalModes(server),
  };
}

/** `[mcp_servers.NAME.tools.TOOL] approval_mode` of each tool that sets one, by tool; null: none. */
function toolApprovalModes(server: McpServerConfig): Record<string, { approval_mode: string }> | null {
  const tools = Object.entries(server.tools ?? {}).flatMap(([tool, settings]) =>
    settings.approval_mode ? [[tool, { approval_mode: settings.approval_mode }] as const] : [],
  );
  return tools.length > 0 ? Object.fromEntries(tools) : null;
}

/** Values may be secrets (tokens, passwords): the JSON view keeps the names, as the human view does. */
function masked(values: Record<string, string> | undefined): Record<string, string> | null {
  if (!values) return null;
  return Object.fromEntries(Object.keys(values).map((key) => [key, "*****"]));
}

function target(server: McpServerConfig): string {
  if (server.command === undefined) return server.url ?? "";
  return [server.command, ...(server.args ?? [])].join(" ");
}

export async function listServers(options: { json?: boolean }): Promise<number> {
  const servers = await loadServers();
  if (typeof servers === "string") return fail(servers);
  const names = Object.keys(servers).sort();
  const { authLabel, authStatus } = await import("./mcp-login-actions.js");
  const auth = new Map<string, AuthStatus>();
  for (const name of names) auth.set(name, await authStatus(name, servers[name] ?? {}));
  if (options.json) {
    process.stdout.write(
      `${JSON.stringify(
        names.map((name) => ({ ...describe(name, servers[name] ?? {}), auth_status: auth.get(name) })),
        null,
        2,
      )}\n`,
    );
    return 0;
  }
  if (names.length === 0) {
    process.stdout.write(
      "No MCP servers configured. Add one with `tscodex mcp add NAME -- COMMAND [ARGS...]`.\n",
    );
    return 0;
  }
  const rows = [["Name", "Transport", "Command / URL", "Status", "Auth"]];
  for (const name of names) {
    const server = servers[name] ?? {};
    rows.push(
      [
        name,
        server.command !== undefined ? "stdio" : "http",
        target(server),
        server.enabled === false ? "disabled" : "enabled",
        authLabel(auth.get(name) ?? "unsupported"),
      ].map(visibleLine),
    );
  }
  const widths =
    rows[0]?.map((_, column) => Math.max(...rows.map((row) => (row[column] ?? "").length))) ?? [];
  for (const row of rows) {
    process.stdout.write(
      `${row
        .map((cell, column) => cell.padEnd(widths[column] ?? 0))
        .join("  ")
        .trimEnd()}\n`,
    );
  }
  return 0;
}

export async function getServer(name: string, options: { json?: boolean }): Promise<number> {
  const servers = await loadServers();
  if (typeof servers === "string") return fail(servers);
  const server = servers[name];
  if (!server) return fail(`no MCP server named '${name}'`);
  const view = describe(name, server);
  if (options.json) {
    process.stdout.write(`${JSON.stringify(view, null, 2)}\n`);
    return 0;
  }
  const lines = [name, `  enabled: ${String(view.enabled)}`];
  if (server.command !== undefined) {
    lines.push(
      "  transport: stdio",
      `  command: ${server.command}`,
      `  args: ${(server.args ?? []).join(" ")}`,
    );
    if (server.cwd) lines.push(`  cwd: ${server.cwd}`);
    // Values may be secrets: show the names only.
    const env = Object.keys(server.env ?? {});
    if (env.length > 0) lines.push(`  env: ${env.map((key) => `${key}=*****`).join(", ")}`);
  } else {
    lines.push("  transport: streamable_http", `  url: ${server.url ?? ""}`);
    if (server.bearer_token_env_var) lines.push(`  bearer_token_env_var: ${server.bearer_token_env_var}`);
  }
  lines.push(`  startup_timeout_sec: ${String(view.startup_timeout_sec)}`);
  lines.push(`  tool_timeout_sec: ${String(view.tool_timeout_sec)}`);
  if (server.enabled_tools) lines.push(`  enabled_tools: ${server.enabled_tools.join(", ")}`);
  if (server.disabled_tools) lines.push(`  disabled_tools: ${server.disabled_tools.join(", ")}`);
  lines.push(`  default_tools_approval_mode: ${String(view.default_tools_approval_mode)}`);
  for (const [tool, { approval_mode }] of Object.entries(toolApprovalModes(server) ?? {}))
    lines.push(`  tools.${tool}.approval_mode: ${approval_mode}`);
  lines.push(`  remove: tscodex mcp remove ${name}`);
  process.stdout.write(`${lines.map(visibleLine).join("\n")}\n`);
  return 0;
}

export async function addServer(name: string, command: string[], options: McpAddOptions): Promise<number> {
  if (!/^[A-Za-z0-9_-]+$/.test(name))
    return fail(`invalid server name '${name}': use letters, digits, '_' and '-'`);
  const entry: Record<string, unknown> = {};
  if (options.url !== undefined) {
    if (command.length > 0) return fail("give either a command (after --) or --url, not both");
    entry.url = options.url;
    if (options.bearerTokenEnvVar) entry.bearer_token_env_var = options.bearerTokenEnvVar;
  } else {
    const [program, ...args] = command;
    if (!program) return fail("missing the server command: tscodex mcp add NAME -- COMMAND [ARGS...]");
    entry.command = program;
    if (args.length > 0) entry.args = args;
    if (options.cwd) entry.cwd = options.cwd;
    if (options.env.length > 0) {
      const env: Record<string, string> = {};
      for (const pair of options.env) {
        const at = pair.indexOf("=");
        if (at <= 0) return fail(`--env expects KEY=VALUE, got '${pair}'`);
        env[pair.slice(0, at)] = pair.slice(at + 1);
      }
      entry.env = env;
    }
  }
  for (const [flag, key] of [
    ["startupTimeoutSec", "startup_timeout_sec"],
    ["toolTimeoutSec", "tool_timeout_sec"],
  ] as const) {
    const value = options[flag];
    if (value === undefined) continue;
    const seconds = Number(value);
    if (!Number.isFinite(seconds) || seconds <= 0)
      return fail(`${key} must be a positive number, got '${value}'`);
    entry[key] = seconds;
  }
  const checked = mcpServerConfigSchema.safeParse(entry);
  if (!checked.success) return fail(checked.error.issues[0]?.message ?? "invalid server");
  return editConfig((text) => addMcpServer(text, name, entry), `Added MCP server '${name}'`);
}

export async function removeServer(name: string): Promise<number> {
  return editConfig((text) => removeMcpServer(text, name), `Removed MCP server '${name}'`);
}

async function editConfig(
  edit: (text: string) => { text: string; preserved: boolean },
  done: string,
): Promise<number> {
  const path = configPath();
  let result: { text: string; preserved: boolean };
  try {
    result = edit(await readTextOrEmpty(path));
  } catch (error) {
    return fail(`${path}: ${(error as Error).message}`);
  }
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, result.text);
  process.stdout.write(`${visibleLine(`${done} (${path})`)}\n`);
  if (!result.preserved) {
    process.stderr.write(
      "tscodex: note: config.toml had to be rewritten as a whole; its comments and layout were not kept\n",
    );
  }
  return 0;
}

/** `tscodex mcp login NAME`: OAuth for a `url` server (mcp-login-actions.ts). */
export async function loginServer(name: string, options: McpLoginOptions): Promise<number> {
  const servers = await loadServers();
  if (typeof servers === "string") return fail(servers);
  const { login } = await import("./mcp-login-actions.js");
  return login(name, servers[name], options);
}

/** `tscodex mcp logout NAME`: forget its OAuth tokens. */
export async function logoutServer(name: string): Promise<number> {
  const { logout } = await import("./mcp-login-actions.js");
  return logout(name);
}
