/**
 * `tscodex [PROMPT]` / `tscodex resume`: the terminal UI. Responsibilities: pick the transport
 * (in-process app-server by default; `--remote ws://…`, with `--remote-auth-token-env VAR`'s
 * bearer key), the colours (NO_COLOR, TERM=dumb), and run the app until it quits. Flow: first screen → connect → thread/start|resume → turns.
 */
import { resolve } from "node:path";
import { TuiApp } from "./app.js";
import type { TuiArgs } from "./args.js";
import { colourWanted, createStyle } from "./style.js";
import { bearerHeaders, inProcessTransport, webSocketTransport } from "./transports.js";

export async function runTui(args: TuiArgs): Promise<number> {
  const cwd = resolve(args.cd ?? process.cwd());
  if (args.remoteAuthTokenEnv !== undefined && !args.remote) {
    process.stderr.write("tscodex: --remote-auth-token-env needs --remote ws://HOST:PORT\n");
    return 2;
  }
  // Read before the screen opens: a key that is not set is a one-line error, not a live screen.
  let headers: Record<string, string>;
  try {
    headers = bearerHeaders(args.remoteAuthTokenEnv);
  } catch (error) {
    process.stderr.write(`tscodex: ${(error as Error).message}\n`);
    return 1;
  }
  // Attached to a remote server, the thread works in the server's cwd unless -C names one there.
  const threadCwd = args.remote ? args.cd : cwd;
  const app = new TuiApp({
    connect: () =>
      args.remote ? webSocketTransport(args.remote, headers) : inProcessTransport(args.config, args.load),
    settings: {
      cwd: threadCwd,
      model: args.model,
      approvalPolicy: args.approvalPolicy,
      sandbox: args.sandbox,
    },
    style: createStyle(colourWanted(process.env)),
    prompt: args.prompt,
    images: (args.images ?? []).map((image) => resolve(cwd, image)),
    resume: args.resume,
    allDirectories: args.all ?? false,
    input: process.stdin,
    output: process.stdout,
  });
  await app.start();
  return app.done;
}
