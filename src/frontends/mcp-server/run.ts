/**
 * `tscodex mcp-server`: load config, open the threads, serve stdio (default) or Streamable HTTP
 * (--http PORT) until the client goes away or SIGINT/SIGTERM; then shut threads down (rollouts
 * flushed, so a restarted server continues them). Returns the exit code.
 */
import { warnConfigOnce } from "../../config/warnings.js";
import { failStart, guardProcess, listenUntil, stopSignal } from "../common/serve.js";
import { createRuntime } from "./runtime.js";

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
  const runtime = await createRuntime({ config: options.config, rawEvents: options.rawEvents ?? false });
  warnConfigOnce(runtime.config, process.stderr);
  if (runtime.config.providerProblem)
    process.stderr.write(`tscodex mcp-server: warning: ${runtime.config.providerProblem}\n`);
  const stop = stopSignal();
  try {
    if (port === undefined) {
      const { serveStdio } = await import("./stdio.js");
      await serveStdio(runtime, stop);
    } else {
      const { serveHttp } = await import("./http.js");
      return await listenUntil(
        NAME,
        () => serveHttp(runtime, { port, host: options.host, ...(apiKey ? { apiKey } : {}) }),
        stop,
      );
    }
  } finally {
    await runtime.close();
  }
  return 0;
}
