/**
 * `tscodex app-server`: Codex's JSON-RPC v2 app-server protocol over stdio (default) or
 * WebSocket (`--listen ws://HOST:PORT`). Serves until stdin ends (stdio) or SIGINT/SIGTERM;
 * then every thread shuts down (running turns are interrupted, their processes stopped; each
 * WebSocket client gets its `turn/completed` before the close, 1001) and the rollouts are
 * flushed, so a restarted server resumes them. Returns the exit code.
 *
 * Module map: protocol/ (zod schemas: validation, types, generate-json-schema), rpc-peer.ts
 * (JSON-RPC endpoint), session.ts (one connection: handshake, dispatch), handlers/ (one file per
 * method group), runtime.ts (shared config, ThreadManager, channels), thread-channel.ts +
 * event-mapper.ts (events → notifications), server-requests.ts (approvals and client tool calls
 * with bounded waits), transport-stdio.ts / transport-websocket.ts.
 */

import { ConfigError, type ConfigLoadFlags } from "../../config/load.js";
import { ConfigOverrideError } from "../../config/overrides.js";
import { failStart, guardProcess, listenUntil, stopSignal } from "../common/serve.js";
import { describeServing } from "../common/serving-log.js";
import { AppServerRuntime } from "./runtime.js";

const NAME = "app-server";

export interface AppServerCliOptions {
  listen: string;
  apiKeyEnv?: string;
  config: string[];
  /** The global `--strict-config`, `--ignore-user-config`, `--ignore-rules`. */
  load?: ConfigLoadFlags;
}

type Listen = { kind: "stdio" } | { kind: "ws"; host: string; port: number };

/** `stdio://` or `ws://HOST:PORT` (port 0: any free port). */
export function parseListen(url: string): Listen | string {
  if (url === "stdio://" || url === "stdio") return { kind: "stdio" };
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return `--listen: '${url}' is not a URL (use stdio:// or ws://127.0.0.1:PORT)`;
  }
  const port = Number(parsed.port || "-1");
  if (parsed.protocol !== "ws:" || !(Number.isInteger(port) && port >= 0 && port < 65536))
    return `--listen: '${url}' must be stdio:// or ws://HOST:PORT`;
  return { kind: "ws", host: parsed.hostname.replace(/^\[(.*)\]$/, "$1"), port };
}

/** Run the server; resolves with the exit code once it has stopped. */
export async function runAppServer(options: AppServerCliOptions): Promise<number> {
  const listen = parseListen(options.listen);
  if (typeof listen === "string") return failStart(NAME, listen);
  const apiKey = options.apiKeyEnv ? process.env[options.apiKeyEnv] : undefined;
  if (options.apiKeyEnv && !apiKey)
    return failStart(NAME, `--api-key-env: the variable ${options.apiKeyEnv} is not set`);
  if (apiKey && listen.kind === "stdio")
    return failStart(NAME, "--api-key-env needs --listen ws://HOST:PORT");

  let runtime: AppServerRuntime;
  try {
    runtime = await AppServerRuntime.create({
      config: options.config,
      ...(options.load ? { load: options.load } : {}),
    });
  } catch (error) {
    if (error instanceof ConfigError || error instanceof ConfigOverrideError)
      return failStart(NAME, error.message);
    throw error;
  }
  guardProcess(NAME);
  // Loaded only with `[otel]`: without it no telemetry code is read at all.
  const telemetry = runtime.config.otel
    ? await (await import("../common/telemetry.js")).startTelemetry(runtime.config, "app-server")
    : null;
  if (runtime.config.providerProblem)
    process.stderr.write(`tscodex app-server: warning: ${runtime.config.providerProblem}\n`);
  const stop = stopSignal();
  try {
    if (listen.kind === "stdio") {
      const { serveStdio } = await import("./transport-stdio.js");
      const connection = serveStdio(runtime);
      await Promise.race([connection.done, stop]);
      connection.close();
    } else {
      const { serveWebSocket } = await import("./transport-websocket.js");
      return await listenUntil(
        NAME,
        () => serveWebSocket(runtime, { host: listen.host, port: listen.port, apiKey }),
        stop,
        await describeServing(runtime.config),
        () => runtime.close(),
      );
    }
  } finally {
    await runtime.close();
    await telemetry?.shutdown();
  }
  return 0;
}
