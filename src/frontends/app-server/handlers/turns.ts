/**
 * turn/start and turn/interrupt. A turn starts on a loaded thread (one that left memory is
 * loaded again from its rollout); the reply comes first, then the turn's notifications. Per-turn
 * settings (policies, sandbox, cwd, model, reasoning, output schema, client tools) hold from that
 * turn on, except the output schema, which holds for that turn only. A turn/start with a
 * `clientUserMessageId` starts at most one turn per key and thread (keyed-turn-start.ts).
 */

import { resolve } from "node:path";
import type { Config } from "../../../config/load.js";
import { imageFileToDataUrl } from "../../../prompt/images.js";
import type { ClientToolSpec } from "../../../protocol/client-tools.js";
import { approvalOfSetting } from "../../../protocol/granular-approval.js";
import { SteerError, type TurnOverrides, type UserInput } from "../../../session/thread.js";
import { errorMessage } from "../../../util/errors.js";
import { enforceTurnCeiling } from "../ceiling.js";
import { permissionsFromWire, permissionsParam } from "../permissions-wire.js";
import type { ParamsOf, ResultOf } from "../protocol/client-requests.js";
import type { UserInputWire } from "../protocol/common.js";
import { RpcError } from "../protocol/jsonrpc.js";
import type { ThreadChannel } from "../thread-channel.js";
import { checkThreadId } from "../thread-id.js";
import { clientToolsOf } from "./client-tools.js";
import { collaborationOverrides } from "./collaboration-modes.js";
import type { HandlerContext } from "./context.js";
import { keyedTurnStart } from "./keyed-turn-start.js";

export async function turnStart(
  params: ParamsOf<"turn/start">,
  context: HandlerContext,
): Promise<ResultOf<"turn/start">> {
  const tools = clientToolsOf(params.dynamicTools, context.session, "turn/start");
  const channel = await context.runtime.open(params.threadId);
  context.session.follow(channel);
  const start = () => startTurnOn(channel, params, context, tools, false);
  const key = params.clientUserMessageId;
  if (key) return keyedTurnStart(channel, params, key, context, start);
  return { turn: { id: await start(), items: [], status: "inProgress", error: null } };
}

/**
 * Start a turn on `channel` for the calling client (turn/start; v1 sendUserTurn and
 * sendUserMessage with `legacy`); it begins once the reply is sent. Returns the turn id.
 */
export async function startTurnOn(
  channel: ThreadChannel,
  params: ParamsOf<"turn/start">,
  context: HandlerContext,
  tools: ClientToolSpec[] | undefined,
  legacy: boolean,
): Promise<string> {
  const cwd = params.cwd ? resolve(params.cwd) : channel.settings.cwd;
  const input = await userInputOf(params.input, cwd);
  const overrides: TurnOverrides = {
    ...(params.approvalPolicy ? approvalOfSetting(params.approvalPolicy) : {}),
    ...(params.approvalsReviewer
      ? {
          approvalsReviewer:
            params.approvalsReviewer === "user" ? ("user" as const) : ("auto_review" as const),
        }
      : {}),
    ...turnPermissions(params, context.runtime.config),
    ...(params.cwd ? { cwd } : {}),
    ...(params.model ? { model: params.model } : {}),
    ...(params.effort ? { effort: params.effort } : {}),
    ...(params.summary ? { summary: params.summary } : {}),
    ...(params.outputSchema ? { outputSchema: params.outputSchema } : {}),
    ...(tools ? { clientTools: tools } : {}),
    ...collaborationOverrides(params.collaborationMode),
    ...(context.trace ? { trace: context.trace } : {}),
  };
  enforceTurnCeiling(channel, overrides, context.runtime.config);
  const { turnId, begin } = channel.startTurn(
    context.session,
    echoed(params.input),
    input,
    overrides,
    legacy,
  );
  context.after(begin);
  return turnId;
}

export async function turnInterrupt(
  params: ParamsOf<"turn/interrupt">,
  context: HandlerContext,
): Promise<ResultOf<"turn/interrupt">> {
  checkThreadId(params.threadId);
  const channel = context.runtime.channel(params.threadId);
  if (!channel) throw RpcError.invalidRequest(`thread not found: ${params.threadId}`);
  // Codex leaves this unanswered; every request gets an answer here.
  if (!channel.interrupt(params.turnId))
    throw RpcError.invalidRequest(`no running turn ${params.turnId} on thread ${params.threadId}`);
  return {};
}

/** turn/steer: add input to the running turn the client names; its model reads it next. */
export async function turnSteer(
  params: ParamsOf<"turn/steer">,
  context: HandlerContext,
): Promise<ResultOf<"turn/steer">> {
  checkThreadId(params.threadId);
  const channel = context.runtime.channel(params.threadId);
  if (!channel?.thread) throw RpcError.invalidRequest(`thread not found: ${params.threadId}`);
  try {
    return { turnId: await steerOn(channel, params.expectedTurnId, params.input) };
  } catch (error) {
    if (error instanceof SteerError) throw RpcError.invalidRequest(error.message);
    throw error;
  }
}

/** turn/start's `sandboxPolicy` or `permissions` (a profile id): the turn's value, whole. */
function turnPermissions(params: ParamsOf<"turn/start">, config: Config): TurnOverrides {
  const profile = permissionsParam(params.permissions, Boolean(params.sandboxPolicy), config);
  if (profile) return { permissions: profile };
  return params.sandboxPolicy ? { permissions: permissionsFromWire(params.sandboxPolicy) } : {};
}

/** Steer `input` into running turn `turnId` of `channel`; throws SteerError when it is not running. */
export async function steerOn(
  channel: ThreadChannel,
  turnId: string,
  input: UserInputWire[],
): Promise<string> {
  const core = await userInputOf(input, channel.settings.cwd);
  return channel.steer(turnId, echoed(input), core);
}

/** The core's input: the texts joined by blank lines, images as URLs (local files read in). */
async function userInputOf(items: UserInputWire[], cwd: string): Promise<UserInput> {
  if (items.length === 0) throw RpcError.invalidParams("Invalid request: `input` is empty");
  const texts: string[] = [];
  const images: string[] = [];
  for (const item of items) {
    if (item.type === "text") texts.push(item.text);
    else if (item.type === "image") images.push(item.url);
    else {
      try {
        images.push(await imageFileToDataUrl(resolve(cwd, item.path)));
      } catch (error) {
        throw RpcError.invalidParams(`Invalid request: localImage: ${errorMessage(error)}`);
      }
    }
  }
  return { text: texts.join("\n\n"), ...(images.length ? { images } : {}) };
}

/** The input as the userMessage item shows it (text items with their text_elements). */
function echoed(items: UserInputWire[]): UserInputWire[] {
  return items.map((item) =>
    item.type === "text" ? { ...item, text_elements: item.text_elements ?? [] } : item,
  );
}
