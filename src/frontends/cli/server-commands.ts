/** `tscodex mcp-server`, `proxy`, `acp` and `app-server` (with `generate-json-schema`): the long-running servers. */
import type { AcpCliOptions } from "../acp/run.js";
import type { AppServerCliOptions } from "../app-server/run.js";
import type { ProxyCliOptions } from "../http-proxy/run.js";
import type { McpServerCliOptions } from "../mcp-server/run.js";
import { type CommandHost, collect, globalConfig, loadFlags } from "./command-options.js";
import { APP_SERVER_LISTEN, MCP_SERVER_HOST } from "./server-defaults.js";

export function registerServerCommands({ program, globals, setExitCode }: CommandHost): void {
  program
    .command("mcp-server")
    .description("Serve the codex / codex-reply MCP tools (stdio by default, or Streamable HTTP)")
    .option("--http <port>", "serve Streamable HTTP on this port instead of stdio (0: any free port)")
    .option("--host <host>", "address to listen on with --http", MCP_SERVER_HOST)
    .option("--api-key-env <var>", "with --http: require `Authorization: Bearer <value of VAR>`")
    .option(
      "-c, --config <key=value>",
      "override a config key for every thread (value parsed as TOML); repeatable",
      collect,
      [],
    )
    .option("--raw-events", "also send Codex's raw codex/event notifications during a call")
    .action(async (options: McpServerCliOptions) => {
      const { runMcpServer } = await import("../mcp-server/run.js");
      setExitCode(
        await runMcpServer({ ...options, config: [...globalConfig(globals()), ...options.config] }),
      );
    });

  program
    .command("proxy")
    .description(
      "Serve an OpenAI-compatible HTTP API (/v1/responses, /v1/chat/completions, /v1/models) with the agent behind it",
    )
    .option("--host <host>", "address to listen on", "127.0.0.1")
    .option("--port <port>", "port to listen on (0: any free port)", "8787")
    .option("--api-key-env <var>", "require `Authorization: Bearer <value of VAR>`")
    .option("-C, --cd <dir>", "working directory of the agent")
    .option("--disable-internal-tools", "give the agent only the tools each request brings")
    .option(
      "--quiet-agent-work",
      "hide the agent's own tool work (otherwise shown as reasoning summary text)",
    )
    .option("--max-concurrent <count>", "turns run at once; more requests get 429", "100")
    .option("--parked-ttl <seconds>", "how long a response's client tool calls wait for their outputs", "600")
    .option("--idempotency-ttl <seconds>", "how long an Idempotency-Key and its answer are kept", "86400")
    .option("--max-body <bytes>", "largest request body accepted (larger: 413)", String(20 * 1024 * 1024))
    .option(
      "-c, --config <key=value>",
      "override a config key (value parsed as TOML); repeatable",
      collect,
      [],
    )
    .action(async (options: ProxyCliOptions) => {
      const { runProxy } = await import("../http-proxy/run.js");
      setExitCode(await runProxy(options));
    });

  program
    .command("acp")
    .description("Serve the Agent Client Protocol on stdio, for editors (Zed, JetBrains, Neovim, Emacs, ...)")
    .option(
      "-c, --config <key=value>",
      "override a config key for every session (value parsed as TOML); repeatable",
      collect,
      [],
    )
    .action(async (options: AcpCliOptions) => {
      const { runAcp } = await import("../acp/run.js");
      setExitCode(await runAcp({ config: [...globalConfig(globals()), ...options.config] }));
    });

  const appServer = program
    .command("app-server")
    .description("Serve Codex's app-server JSON-RPC protocol to an app (stdio by default, or WebSocket)")
    .option("--listen <url>", "stdio:// or ws://HOST:PORT (0: any free port)", APP_SERVER_LISTEN)
    .option("--api-key-env <var>", "with ws://: require `Authorization: Bearer <value of VAR>`")
    .option(
      "-c, --config <key=value>",
      "override a config key for every thread (value parsed as TOML); repeatable",
      collect,
      [],
    )
    .action(async (options: AppServerCliOptions) => {
      const { runAppServer } = await import("../app-server/run.js");
      setExitCode(
        await runAppServer({
          ...options,
          config: [...globalConfig(globals()), ...options.config],
          load: loadFlags(globals()),
        }),
      );
    });
  appServer
    .command("generate-json-schema")
    .description("Write the protocol's JSON Schema files (from the schemas that validate messages)")
    .requiredOption("-o, --out <dir>", "directory to write into")
    .option(
      "--experimental",
      "as Codex's flag; the schemas always include the experimental methods served (dynamicTools)",
    )
    .action(async (options: { out: string }) => {
      const { runGenerateJsonSchema } = await import("../app-server/protocol/json-schema.js");
      setExitCode(await runGenerateJsonSchema(options));
    });
}
