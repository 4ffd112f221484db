/**
 * `tscodex [PROMPT]` / `tscodex resume`: the terminal UI. Responsibilities: pick the transport
 * (in-process app-server by default; `--remote ws://…`, with `--remote-auth-token-env VAR`'s
 * bearer key), the colours (NO_COLOR, TERM=dumb), and run the app until it quits. Flow: first screen → connect → thread/start|resume → turns.
 */
import { resolve } from "node:path";
import { workingDirectoryProblem } from "../../util/directory.js";
import { visibleLine } from "../common/terminal-text.js";
import { TuiApp } from "./app.js";
import type { TuiArgs } from "./args.js";
import type { TokenUsageView } from "./status-line.js";
import { colourWanted, createStyle } from "./style.js";
import { bearerHeaders, inProcessTransport, webSocketTransport } from "./transports.js";

export async function runTui(args: TuiArgs): Promise<number> {
  const cwd = resolve(args.cd ?? process.cwd());
  // A missing -C is refused before the screen opens, as exec refuses it (a remote -C is the server's).
  const cdProblem = args.cd && !args.remote ? await workingDirectoryProblem(cwd, "-C") : undefined;
  if (cdProblem) {
    process.stderr.write(`tscodex: ${cdProblem}\n`);
    return 1;
  }
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
  const code = await app.done;
  if (app.failedStart !== null) process.stderr.write(`tscodex: ${visibleLine(app.failedStart)}\n`);
  else process.stdout.write(exitSummary(app.exitThreadId, app.tokenUsage));
  return code;
}

/** What Codex prints on quitting: the tokens used, then how to come back to the thread. */
export function exitSummary(threadId: string | null, usage: TokenUsageView | null): string {
  const lines: string[] = [];
  const total = usage?.total;
  if (total)
    lines.push(
      `Token usage: total=${total.totalTokens} input=${total.inputTokens} output=${total.outputTokens}`,
    );
  if (threadId) lines.push("To continue this session, run:", `  tscodex resume ${threadId}`);
  return lines.map((line) => `${line}\n`).join("");
}
