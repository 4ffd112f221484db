/**
 * `tscodex mcp-server`: load config, open the threads, serve stdio (default) or Streamable HTTP
 * (--http PORT) until the client goes away or SIGINT/SIGTERM; then shut threads down (rollouts
 * flushed, so a restarted server continues them). Returns the exit code.
 */

import { warnConfigOnce } from "../../config/warnings.js";
import { failStart, guardProcess, listenUntil, stopSignal } from "../common/serve.js";
import { describeServing } from "../common/serving-log.js";
import { visibleLine } from "../common/terminal-text.js";
import { loadServerConfig } from "./server-config.js";

const NAME = "mcp-server";

export interface McpServerCliOptions {
  http?: string;
  host: string;
  apiKeyEnv?: string;
  config: string[];
  rawEvents?: boolean;
}

/** Run the server; resolves with the exit code once it has stopped. */
export async function runMcpServer(options: McpServerCliOptions): Promise<number> {
  const port = options.http === undefined ? undefined : Number(options.http);
  if (port !== undefined && !(Number.isInteger(port) && port >= 0 && port < 65536))
    return failStart(NAME, `--http: '${options.http}' is not a port number`);
  const apiKey = options.apiKeyEnv ? process.env[options.apiKeyEnv] : undefined;
  if (options.apiKeyEnv && !apiKey)
    return failStart(NAME, `--api-key-env: the variable ${options.apiKeyEnv} is not set`);

  guardProcess(NAME);
  const runtimeOptions = { config: options.config, rawEvents: options.rawEvents ?? false };
  const loaded = await loadServerConfig(runtimeOptions);
  const { config } = loaded;
  warnConfigOnce(config, process.stderr, visibleLine);
  if (config.providerProblem)
    process.stderr.write(`tscodex mcp-server: warning: ${config.providerProblem}\n`);
  // Loaded only with `[otel]`: without it no telemetry code is read at all.
  const telemetry = config.otel
    ? await (await import("../common/telemetry.js")).startTelemetry(config, "mcp-server")
    : null;
  const stop = stopSignal();
  // The runtime (threads, tools) loads when first needed: on stdio, at the first tools/call.
  const open = async () => (await import("./runtime.js")).openRuntime(loaded, runtimeOptions);
  if (port === undefined) {
    const { serveStdio } = await import("./stdio.js");
    await serveStdio(open, config.mcpServer.maxMessageBytes, stop, () => import("./runtime.js"));
    await telemetry?.shutdown();
    return 0;
  }
  const runtime = await open();
  try {
    await runtime.loadTools();
    const { serveHttp } = await import("./http.js");
    return await listenUntil(
      NAME,
      () => serveHttp(runtime, { port, host: options.host, ...(apiKey ? { apiKey } : {}) }),
      stop,
      await describeServing(config),
      () => runtime.close(),
    );
  } finally {
    await runtime.close();
    await telemetry?.shutdown();
  }
}
