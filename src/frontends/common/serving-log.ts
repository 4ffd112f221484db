/**
 * What an operator reads on a network listener's stderr: one start line naming where threads are
 * stored and which sandbox runs commands, then one line per HTTP request (method, path, status,
 * ms). A database password never reaches the log.
 */
import type { Server } from "node:http";
import type { Config } from "../../config/load.js";

/** `store jsonl DIR, sandbox BACKEND` (or `store postgres URL-without-password`). */
export async function describeServing(
  config: Pick<Config, "home" | "store" | "sandboxBackend">,
): Promise<string> {
  const { describeStore } = await import("../../store/index.js");
  let sandbox: string = config.sandboxBackend;
  if (sandbox === "auto") {
    const { detectSandboxBackend } = await import("../../policy/sandbox/detect.js");
    sandbox = `auto (${await detectSandboxBackend()})`;
  }
  return `store ${describeStore(config)}, sandbox ${sandbox}`;
}

/** Log `tscodex NAME: METHOD PATH STATUS MSms` once each request's response has ended. */
export function logRequests(name: string, server: Server): void {
  server.on("request", (req, res) => {
    const started = performance.now();
    res.once("close", () => {
      const path = new URL(req.url ?? "/", "http://local").pathname;
      const ms = (performance.now() - started).toFixed(1);
      process.stderr.write(`tscodex ${name}: ${req.method} ${path} ${res.statusCode} ${ms}ms\n`);
    });
  });
}
