/**
 * `tscodex mcp login|logout NAME` and the auth status `tscodex mcp list` shows: OAuth for
 * Streamable HTTP servers (mcp/oauth/). Tokens live in `$TSCODEX_HOME/.credentials.json` and are
 * never printed. What is printed (an authorization URL, a server's error) shows its control
 * characters (terminal-text.ts).
 */
import { tscodexHome } from "../../config/load.js";
import type { McpServerConfig } from "../../config/mcp-servers.js";
import { readCredentials, removeCredentials } from "../../mcp/oauth/credentials.js";
import { errorMessage } from "../../util/errors.js";
import { visibleLine, visibleText } from "../common/terminal-text.js";

/** Codex's auth statuses (`mcp list --json`'s `auth_status`) and their table labels. */
export type AuthStatus = "unsupported" | "bearer_token" | "o_auth" | "not_logged_in";

const LABELS: Record<AuthStatus, string> = {
  unsupported: "Unsupported",
  bearer_token: "Bearer token",
  o_auth: "OAuth",
  not_logged_in: "Not logged in",
};

export function authLabel(status: AuthStatus): string {
  return LABELS[status];
}

export async function authStatus(name: string, server: McpServerConfig): Promise<AuthStatus> {
  if (server.url === undefined) return "unsupported";
  const headers = Object.keys(server.http_headers ?? {}).map((header) => header.toLowerCase());
  if (server.bearer_token_env_var || headers.includes("authorization")) return "bearer_token";
  return (await readCredentials(tscodexHome(), name, server.url)) ? "o_auth" : "not_logged_in";
}

export interface McpLoginOptions {
  scopes?: string;
  /** commander's `--no-browser`: false when given. */
  browser?: boolean;
}

export async function login(
  name: string,
  server: McpServerConfig | undefined,
  options: McpLoginOptions,
): Promise<number> {
  if (!server) return fail(`no MCP server named '${name}' (see \`tscodex mcp list\`)`);
  if (server.url === undefined)
    return fail(`MCP server '${name}' runs over stdio; OAuth login is for \`url\` servers`);
  const { loginToMcpServer } = await import("../../mcp/oauth/login.js");
  const noBrowser = options.browser === false;
  try {
    await loginToMcpServer({
      name,
      url: server.url,
      home: tscodexHome(),
      scopes: options.scopes ? options.scopes.split(/[\s,]+/).filter(Boolean) : undefined,
      noBrowser,
      env: process.env,
      print: (line) => process.stdout.write(`${visibleLine(line)}\n`),
      input: noBrowser ? process.stdin : undefined,
    });
    return 0;
  } catch (error) {
    return fail(`login to MCP server '${name}' failed: ${errorMessage(error)}`);
  } finally {
    if (noBrowser) process.stdin.pause();
  }
}

export async function logout(name: string): Promise<number> {
  try {
    if (!(await removeCredentials(tscodexHome(), name))) {
      return fail(`not logged in to MCP server '${name}'`);
    }
  } catch (error) {
    return fail(errorMessage(error));
  }
  process.stdout.write(`Removed OAuth credentials for MCP server '${name}'.\n`);
  return 0;
}

function fail(message: string): number {
  process.stderr.write(`tscodex: ${visibleText(message)}\n`);
  return 1;
}
