/**
 * `tscodex acp`: an Agent Client Protocol agent on stdio for editors (Zed, JetBrains, Neovim,
 * Emacs, ...). One process: the ACP connection, the threads, the tools. stdout carries only the
 * protocol; logs go to stderr. Ends when the editor closes stdin, or on SIGINT/SIGTERM, with
 * every session's turn stopped and its rollout flushed.
 */
import { Readable, Writable } from "node:stream";
import { ndJsonStream } from "@agentclientprotocol/sdk";
import { ConfigError, loadConfig } from "../../config/load.js";
import { ConfigOverrideError, parseOverride } from "../../config/overrides.js";
import { ThreadManager } from "../../session/thread-manager.js";
import { openThreadStore } from "../../store/index.js";
import { errorMessage } from "../../util/errors.js";
import { guardProcess, stopSignal } from "../common/serve.js";
import { acpAgent } from "./agent.js";

export interface AcpCliOptions {
  config: string[];
  profile?: string | undefined;
}

export async function runAcp(options: AcpCliOptions): Promise<number> {
  const fail = (message: string) => {
    process.stderr.write(`tscodex acp: ${message}\n`);
    return 1;
  };
  let config: Awaited<ReturnType<typeof loadConfig>>;
  try {
    config = await loadConfig({
      overrides: options.config.map(parseOverride),
      ...(options.profile ? { profile: options.profile } : {}),
    });
  } catch (error) {
    if (error instanceof ConfigError || error instanceof ConfigOverrideError) return fail(error.message);
    throw error;
  }
  let store: Awaited<ReturnType<typeof openThreadStore>>;
  try {
    store = await openThreadStore(config);
  } catch (error) {
    return fail(errorMessage(error));
  }
  // Loaded only with `[otel]`.
  const telemetry = config.otel
    ? await (await import("../common/telemetry.js")).startTelemetry(config, "acp")
    : null;
  const threads = new ThreadManager({ config, store, source: "acp", originator: "tscodex_acp" });
  guardProcess("acp");
  const stream = ndJsonStream(
    Writable.toWeb(process.stdout) as WritableStream<Uint8Array>,
    Readable.toWeb(process.stdin) as ReadableStream<Uint8Array>,
  );
  const connection = acpAgent({ config, threads }).connect(stream);
  await Promise.race([connection.closed.catch(() => {}), stopSignal()]);
  connection.close();
  await threads.close();
  await telemetry?.shutdown();
  return 0;
}
