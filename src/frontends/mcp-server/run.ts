/**
 * `tscodex mcp-server`: load config, open the threads, serve stdio (default) or Streamable HTTP
 * (--http PORT) until the client goes away or SIGINT/SIGTERM; then shut threads down (rollouts
 * flushed, so a restarted server continues them). Returns the exit code.
 */
import { warnConfigOnce } from "../../config/warnings.js";
import { createRuntime } from "./runtime.js";

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
    return fail(`--http: '${options.http}' is not a port number`);
  const apiKey = options.apiKeyEnv ? process.env[options.apiKeyEnv] : undefined;
  if (options.apiKeyEnv && !apiKey)
    return fail(`--api-key-env: the variable ${options.apiKeyEnv} is not set`);

  guardProcess();
  const runtime = await createRuntime({ config: options.config, rawEvents: options.rawEvents ?? false });
  warnConfigOnce(runtime.config, process.stderr);
  if (runtime.config.providerProblem)
    process.stderr.write(`tscodex mcp-server: warning: ${runtime.config.providerProblem}\n`);
  const stop = new Promise<void>((resolve) => {
    process.once("SIGINT", resolve);
    process.once("SIGTERM", resolve);
  });
  try {
    if (port === undefined) {
      const { serveStdio } = await import("./stdio.js");
      await serveStdio(runtime, stop);
    } else {
      const [{ serveHttp }, { UnsafeBindError }] = await Promise.all([
        import("./http.js"),
        import("../common/http-guard.js"),
      ]);
      let server: Awaited<ReturnType<typeof serveHttp>>;
      try {
        server = await serveHttp(runtime, { port, host: options.host, ...(apiKey ? { apiKey } : {}) });
      } catch (error) {
        if (error instanceof UnsafeBindError) return fail(error.message);
        throw error;
      }
      process.stderr.write(`tscodex mcp-server: listening on ${server.url}\n`);
      await stop;
      await server.close();
    }
  } finally {
    await runtime.close();
  }
  return 0;
}

function fail(message: string): number {
  process.stderr.write(`tscodex mcp-server: ${message}\n`);
  return 2;
}

/** A crashing turn or tool must not take every other client's threads down with it. */
function guardProcess(): void {
  const report = (error: unknown): void => {
    const text = error instanceof Error ? (error.stack ?? error.message) : String(error);
    process.stderr.write(`tscodex mcp-server: unexpected error (serving on): ${text}\n`);
  };
  process.on("uncaughtException", report);
  process.on("unhandledRejection", report);
  // stdout is the protocol channel in stdio mode: a closed pipe must not throw later.
  process.stdout.on("error", () => {});
}
