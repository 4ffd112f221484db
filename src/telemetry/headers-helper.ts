/**
 * `[otel] headers_helper`: a command whose stdout is a JSON object of header names to values,
 * sent with every export on top of each exporter's own headers. It runs once at start (bounded),
 * then again every `headers_helper_refresh_interval_ms` when set. A failing helper is reported
 * once on stderr and export goes on with the last good headers (none at first).
 */
import { spawn } from "node:child_process";

const HELPER_TIMEOUT_MS = 5_000;

export interface HeadersHelper {
  /** The helper's latest good headers. */
  current(): Record<string, string>;
  stop(): void;
}

export async function startHeadersHelper(
  command: string,
  refreshMs: number | undefined,
  warn: (message: string) => void,
  env: NodeJS.ProcessEnv,
): Promise<HeadersHelper> {
  let headers: Record<string, string> = {};
  let warned = false;
  const refresh = async () => {
    try {
      headers = await runHelper(command, env);
    } catch (error) {
      if (!warned) warn(`[otel] headers_helper failed: ${(error as Error).message}`);
      warned = true;
    }
  };
  await refresh();
  const timer = refreshMs === undefined ? undefined : setInterval(() => void refresh(), refreshMs);
  timer?.unref();
  return { current: () => headers, stop: () => clearInterval(timer) };
}

function runHelper(command: string, env: NodeJS.ProcessEnv): Promise<Record<string, string>> {
  return new Promise((resolve, reject) => {
    const child = spawn("sh", ["-c", command], { env, stdio: ["ignore", "pipe", "ignore"] });
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => child.kill("SIGKILL"), HELPER_TIMEOUT_MS);
    child.stdout.on("data", (chunk: Buffer) => chunks.push(chunk));
    child.on("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      if (code !== 0) return reject(new Error(signal ? `killed by ${signal}` : `exit status ${code}`));
      try {
        resolve(headerObject(JSON.parse(Buffer.concat(chunks).toString("utf8"))));
      } catch (error) {
        reject(new Error(`its output is not a JSON object of strings (${(error as Error).message})`));
      }
    });
  });
}

function headerObject(value: unknown): Record<string, string> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw new Error("not an object");
  const headers: Record<string, string> = {};
  for (const [name, header] of Object.entries(value)) {
    if (typeof header !== "string") throw new Error(`header ${name} is not a string`);
    headers[name] = header;
  }
  return headers;
}
