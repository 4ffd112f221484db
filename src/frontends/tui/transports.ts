/**
 * The two ways the UI reaches an app-server: in-process (the server's JSON-RPC session fed
 * through an in-memory pipe: no socket, no second process) or a WebSocket to any app-server.
 * Both are loaded lazily so the first screen draws before the agent core is compiled.
 */
import type { RpcTransport } from "./rpc-client.js";

type Listener<T> = (value: T) => void;

/** Opens an app-server runtime in this process and connects one session to it. */
export async function inProcessTransport(config: string[]): Promise<RpcTransport> {
  const [{ AppServerRuntime }, { ClientSession }] = await Promise.all([
    import("../app-server/runtime.js"),
    import("../app-server/session.js"),
  ]);
  const runtime = await AppServerRuntime.create({ config });
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
      void runtime.close().then(() => onClose("closed"));
    },
  };
}

/** Connects to `ws://HOST:PORT`; resolves once the socket is open. */
export async function webSocketTransport(url: string): Promise<RpcTransport> {
  const { default: WebSocket } = await import("ws");
  const ws = new WebSocket(url);
  await new Promise<void>((resolve, reject) => {
    ws.once("open", () => resolve());
    ws.once("error", (error) => reject(new Error(`cannot connect to ${url}: ${error.message}`)));
    ws.once("unexpected-response", (_request, response) =>
      reject(new Error(`cannot connect to ${url}: HTTP ${response.statusCode}`)),
    );
  });
  return {
    send: (text) => ws.send(text),
    onMessage: (listener) => ws.on("message", (data) => listener(String(data))),
    onClose: (listener) => ws.on("close", (code) => listener(`socket closed (${code})`)),
    close: () => ws.close(),
  };
}
