/**
 * thread/shellCommand: the user runs a shell command on a thread, as Codex's user shell turn:
 * the reply first, then turn/started, a commandExecution item with source "userShell" and
 * turn/completed; queued behind a running turn, stopped by turn/interrupt, and remembered in the
 * history the model's next request carries (session/user-shell.ts).
 */
import { enforceTurnCeiling } from "../ceiling.js";
import type { ParamsOf, ResultOf } from "../protocol/client-requests.js";
import { RpcError } from "../protocol/jsonrpc.js";
import type { HandlerContext } from "./context.js";

export async function threadShellCommand(
  params: ParamsOf<"thread/shellCommand">,
  context: HandlerContext,
): Promise<ResultOf<"thread/shellCommand">> {
  if (params.command.trim() === "") throw RpcError.invalidParams("Invalid request: `command` is empty");
  const channel = await context.runtime.open(params.threadId);
  enforceTurnCeiling(channel, {}, context.runtime.config);
  context.session.follow(channel);
  const { begin } = channel.startShellCommand(context.session, params.command, params.timeoutMs ?? undefined);
  context.after(begin);
  return {};
}
