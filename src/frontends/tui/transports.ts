/**
 * The two ways the UI reaches an app-server: in-process (the server's JSON-RPC session fed
 * through an in-memory pipe: no socket, no second process) or a WebSocket to any app-server.
 * Both are loaded lazily so the first screen draws before the agent core is compiled.
 */
import type { ConfigLoadFlags } from "../../config/load.js";
import type { RpcTransport } from "./rpc-client.js";

type Listener<T> = (value: T) => void;

/** Opens an app-server runtime in this process (`-c` overrides, load flags) and connects one session to it. */
export async function inProcessTransport(config: string[], load?: ConfigLoadFlags): Promise<RpcTransport> {
  const [{ AppServerRuntime }, { ClientSession }] = await Promise.all([
    import("../app-server/runtime.js"),
    import("../app-server/session.js"),
  ]);
  const runtime = await AppServerRuntime.create({ config, ...(load ? { load } : {}) });
  const telemetry = runtime.config.otel
    ? await (await import("../common/telemetry.js")).startTelemetry(runtime.config, "tui")
    : null;
  let onMessage: Listener<string> = () => {};
  let onClose: Listener<string> = () => {};
  // Delivered on a later tick, as a socket would: a handler never re-enters the sender.
  const session = new ClientSession(runtime, { send: (text) => queueMicrotask(() => onMessage(text)) });
  return {
    send: (text) => session.receive(text),
    onMessage: (listener) => {
      onMessage = listener;
    },
    onClose: (listener) => {
      onClose = listener;
    },
    close: () => {
      session.close();
      void runtime
        .close()
        .then(() => telemetry?.shutdown())
        .then(() => onClose("closed"));
    },
  };
}

/**
 * `Authorization: Bearer <value>` from environment variable `name` (`--remote-auth-token-env`),
 * as `app-server --api-key-env` requires it; no name, no header. Throws a one-line error when
 * the variable is unset or empty, before anything connects.
 */
export function bearerHeaders(
  name: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
): Record<string, string> {
  if (name === undefined) return {};
  const token = env[name];
  if (!token) throw new Error(`--remote-auth-token-env: the variable ${name} is not set`);
  return { Authorization: `Bearer ${token}` };
}

/**
 * Connects to `ws://HOST:PORT` (or `wss://`), sending `headers` with the upgrade; resolves once
 * the socket is open. A refused upgrade or connection rejects with one line naming the server
 * and the cause (`HTTP 401 Unauthorized`, `ECONNREFUSED`).
 */
export async function webSocketTransport(
  url: string,
  headers: Record<string, string> = {},
): Promise<RpcTransport> {
  const [{ default: WebSocket }, { STATUS_CODES }] = await Promise.all([import("ws"), import("node:http")]);
  const failed = (cause: string) => new Error(`cannot connect to the app-server at ${url}: ${cause}`);
  let ws: InstanceType<typeof WebSocket>;
  try {
    ws = new WebSocket(url, { headers });
  } catch (error) {
    throw failed((error as Error).message);
  }
  await new Promise<void>((resolve, reject) => {
    ws.once("open", () => resolve());
    ws.once("error", (error: NodeJS.ErrnoException) => reject(failed(error.code ?? error.message)));
    ws.once("unexpected-response", (_request, response) => {
      const status = response.statusCode ?? 0;
      const hint = status === 401 ? " (a missing or wrong key: see --remote-auth-token-env)" : "";
      reject(failed(`HTTP ${status} ${STATUS_CODES[status] ?? ""}`.trimEnd() + hint));
      // Without this the refused request's socket would keep the process alive.
      ws.terminate();
    });
  });
  return {
    send: (text) => ws.send(text),
    onMessage: (listener) => ws.on("message", (data) => listener(String(data))),
    onClose: (listener) => ws.on("close", (code) => listener(`socket closed (${code})`)),
    close: () => ws.close(),
  };
}
