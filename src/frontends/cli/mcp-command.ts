/**
 * `tscodex mcp list|get|add|remove|login|logout`: the `[mcp_servers.*]` entries of
 * `$TSCODEX_HOME/config.toml`, and OAuth logins for `url` servers.
 * Only the command definitions live here; the work (mcp-actions.ts) is loaded when one runs.
 */
import type { Command } from "commander";
import { collect } from "./command-options.js";
import type { McpAddOptions } from "./mcp-actions.js";
import type { McpLoginOptions } from "./mcp-login-actions.js";

/** Adds the `mcp` command group to `program`; `setExitCode` receives each action's exit code. */
export function registerMcpCommand(program: Command, setExitCode: (code: number) => void): void {
  const mcp = program.command("mcp").description("Manage the MCP servers tscodex uses as tool sources");
  const actions = () => import("./mcp-actions.js");
  mcp
    .command("list")
    .description("The configured MCP servers")
    .option("--json", "print a JSON array")
    .action(async (options: { json?: boolean }) => {
      setExitCode(await (await actions()).listServers(options));
    });
  mcp
    .command("get")
    .description("One MCP server's configuration")
    .argument("<name>", "server name")
    .option("--json", "print JSON")
    .action(async (name: string, options: { json?: boolean }) => {
      setExitCode(await (await actions()).getServer(name, options));
    });
  mcp
    .command("add")
    .description("Add (or replace) an MCP server: `add NAME -- COMMAND [ARGS...]` or `add NAME --url URL`")
    .argument("<name>", "server name (letters, digits, '_' and '-')")
    .argument("[command...]", "stdio server: the command and its arguments (after --)")
    .option("--env <KEY=VALUE>", "environment variable for a stdio server; repeatable", collect, [])
    .option("--cwd <dir>", "working directory for a stdio server")
    .option("--url <url>", "Streamable HTTP server URL")
    .option("--bearer-token-env-var <name>", "environment variable holding a bearer token for --url")
    .option("--startup-timeout-sec <seconds>", "how long the server may take to start (default 10)")
    .option("--tool-timeout-sec <seconds>", "how long one tool call may take (default 60)")
    .action(async (name: string, command: string[], options: McpAddOptions) => {
      setExitCode(await (await actions()).addServer(name, command, options));
    });
  mcp
    .command("login")
    .description("Log in to a Streamable HTTP MCP server with OAuth (prints the URL to open)")
    .argument("<name>", "server name")
    .option("--scopes <scopes>", "scopes to ask for, comma or space separated (default: the server's)")
    .option("--no-browser", "do not run $BROWSER; paste the callback URL instead")
    .action(async (name: string, options: McpLoginOptions) => {
      setExitCode(await (await actions()).loginServer(name, options));
    });
  mcp
    .command("logout")
    .description("Forget the OAuth tokens of an MCP server")
    .argument("<name>", "server name")
    .action(async (name: string) => {
      setExitCode(await (await actions()).logoutServer(name));
    });
  mcp
    .command("remove")
    .description("Remove an MCP server")
    .argument("<name>", "server name")
    .action(async (name: string) => {
      setExitCode(await (await actions()).removeServer(name));
    });
}
