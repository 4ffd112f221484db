/**
 * The stdio transport: newline-delimited JSON-RPC on stdin/stdout (nothing else may write to
 * stdout). Serves until stdin ends (the client closed) or `stop` resolves.
 */
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { createMcpServer } from "./server.js";
import type { ServerRuntime } from "./server-tool.js";

/** Serve `runtime` over this process's stdin/stdout; resolves once the connection is over. */
export async function serveStdio(runtime: ServerRuntime, stop: Promise<void>): Promise<void> {
  const server = createMcpServer(runtime);
  const transport = new StdioServerTransport();
  const ended = new Promise<void>((resolve) => {
    // The SDK transport does not notice end of input; the client closing stdin ends the session.
    process.stdin.once("end", resolve);
    process.stdin.once("close", resolve);
    server.onclose = resolve;
  });
  await server.connect(transport);
  await Promise.race([ended, stop]);
  await server.close().catch(() => {});
}
