/**
 * The v1 methods (Codex 0.89): a conversation is a thread; a listener receives its events as
 * `codex/event/*` notifications (not the v2 ones); sendUserTurn / sendUserMessage start a turn
 * whose approvals are asked as execCommandApproval / applyPatchApproval. v1 and v2 requests may
 * share one connection. A listener ends with removeConversationListener or the connection; the
 * turns a v1 client started end (interrupted) when it leaves, as v2 turns do.
 */
import { randomUUID } from "node:crypto";
import { isAbsolute, resolve } from "node:path";
import { SteerError } from "../../../session/thread.js";
import { isoTimestamp } from "../../../util/iso-time.js";
import type { HandlerContext } from "../handlers/context.js";
import { storedPage } from "../handlers/thread-queries.js";
import { openNewThread, threadResume } from "../handlers/threads.js";
import { startTurnOn, steerOn } from "../handlers/turns.js";
import type { ParamsOf, ResultOf } from "../protocol/client-requests.js";
import type { SandboxPolicy, UserInputWire } from "../protocol/common.js";
import { encodeNotification, RpcError } from "../protocol/jsonrpc.js";
import type { InputItem, LegacySandboxPolicy, NewConversationParams } from "../protocol/v1-requests.js";
import type { ThreadChannel } from "../thread-channel.js";
import { checkThreadId } from "../thread-id.js";
import { openedResponse, storedThreadView } from "../thread-view.js";
import { LegacyEventMapper } from "./event-msg.js";

/** Open listeners by subscription id: how to stop each. */
const subscriptions = new Map<string, { owner: number; stop(): void }>();

function threadParams(params: NewConversationParams) {
  return {
    cwd: params.cwd,
    model: params.model,
    modelProvider: params.modelProvider,
    approvalPolicy: params.approvalPolicy,
    sandbox: params.sandbox,
    config: params.config,
    baseInstructions: params.baseInstructions,
    developerInstructions: params.developerInstructions,
  };
}

export async function newConversation(
  params: ParamsOf<"newConversation">,
  context: HandlerContext,
): Promise<ResultOf<"newConversation">> {
  const { view, channel, path } = await openNewThread(threadParams(params), context);
  const { settings } = channel;
  return {
    conversationId: view.id,
    model: settings.model,
    reasoningEffort: openedResponse(view, settings, []).reasoningEffort,
    rolloutPath: path,
  };
}

export async function resumeConversation(
  params: ParamsOf<"resumeConversation">,
  context: HandlerContext,
): Promise<ResultOf<"resumeConversation">> {
  if (!params.conversationId && !params.path)
    throw RpcError.invalidParams("Invalid request: give `conversationId` or `path`");
  if (params.history)
    throw RpcError.invalidParams("Invalid request: `history` is not supported; give `path`");
  const opened = await threadResume(
    { ...threadParams(params.overrides ?? {}), threadId: params.conversationId ?? "", path: params.path },
    context,
  );
  return {
    conversationId: opened.thread.id,
    model: opened.model,
    rolloutPath: opened.thread.path ?? "",
    initialMessages: null,
  };
}

export async function listConversations(
  params: ParamsOf<"listConversations">,
  context: HandlerContext,
): Promise<ResultOf<"listConversations">> {
  const page = await storedPage(context, {
    limit: params.pageSize,
    cursor: params.cursor,
    sort: "created",
    archived: false,
    providers: params.modelProviders,
  });
  return {
    items: page.threads.map((stored) => {
      const view = storedThreadView(stored);
      return {
        conversationId: view.id,
        path: view.path ?? "",
        preview: view.preview,
        timestamp: stored.meta.created,
        updatedAt: isoTimestamp(view.updatedAt * 1000),
        modelProvider: view.modelProvider,
        cwd: view.cwd,
        cliVersion: view.cliVersion,
        source: view.source,
        gitInfo: null,
      };
    }),
    nextCursor: page.nextCursor,
  };
}

export async function addConversationListener(
  params: ParamsOf<"addConversationListener">,
  context: HandlerContext,
): Promise<ResultOf<"addConversationListener">> {
  checkThreadId(params.conversationId);
  const channel = await context.runtime.open(params.conversationId);
  const { session } = context;
  const mapper = new LegacyEventMapper(channel.id);
  const unlisten = channel.listen((event) => {
    if (!session.open) return;
    for (const { method, params: sent } of mapper.map(event)) session.send(encodeNotification(method, sent));
  });
  const subscriptionId = randomUUID();
  const onClose = () => stop();
  const stop = () => {
    unlisten();
    subscriptions.delete(subscriptionId);
    session.signal.removeEventListener("abort", onClose);
  };
  session.signal.addEventListener("abort", onClose);
  subscriptions.set(subscriptionId, { owner: session.id, stop });
  return { subscriptionId };
}

export async function removeConversationListener(
  params: ParamsOf<"removeConversationListener">,
  context: HandlerContext,
): Promise<ResultOf<"removeConversationListener">> {
  const subscription = subscriptions.get(params.subscriptionId);
  if (!subscription || subscription.owner !== context.session.id)
    throw RpcError.invalidRequest(`subscription not found: ${params.subscriptionId}`);
  subscription.stop();
  return {};
}

export async function sendUserTurn(
  params: ParamsOf<"sendUserTurn">,
  context: HandlerContext,
): Promise<ResultOf<"sendUserTurn">> {
  const channel = await legacyChannel(params.conversationId, context);
  await startTurnOn(
    channel,
    {
      threadId: params.conversationId,
      input: params.items.map(userInputOf),
      cwd: params.cwd || null,
      approvalPolicy: params.approvalPolicy,
      sandboxPolicy: sandboxPolicyOf(params.sandboxPolicy),
      // An empty model (the proxy may send "") keeps the thread's.
      model: params.model || null,
      effort: params.effort,
      summary: params.summary,
      outputSchema: params.outputSchema,
    },
    context,
    undefined,
    true,
  );
  return {};
}

export async function sendUserMessage(
  params: ParamsOf<"sendUserMessage">,
  context: HandlerContext,
): Promise<ResultOf<"sendUserMessage">> {
  const channel = await legacyChannel(params.conversationId, context);
  const input = params.items.map(userInputOf);
  // As Codex 0.89: a message sent while a turn runs joins that turn (its model reads it next).
  const running = channel.thread?.activeTurnId;
  if (running) {
    try {
      await steerOn(channel, running, input);
      return {};
    } catch (error) {
      // The turn ended in between: the message starts the next one.
      if (!(error instanceof SteerError)) throw error;
    }
  }
  await startTurnOn(channel, { threadId: params.conversationId, input }, context, undefined, true);
  return {};
}

export async function interruptConversation(
  params: ParamsOf<"interruptConversation">,
  context: HandlerContext,
): Promise<ResultOf<"interruptConversation">> {
  checkThreadId(params.conversationId);
  const channel = context.runtime.channel(params.conversationId);
  const running = channel?.running;
  if (!channel || !running)
    throw RpcError.invalidRequest(`no running turn on conversation ${params.conversationId}`);
  // 0.89 answers once the turn has stopped.
  const aborted = new Promise<void>((done) => {
    const stop = channel.listen((event) => {
      const ended =
        event.type === "turn_aborted" || event.type === "turn_complete" || event.type === "turn_failed";
      if (ended && event.turn_id === running) {
        stop();
        done();
      }
    });
  });
  channel.interrupt(running);
  await aborted;
  return { abortReason: "interrupted" };
}

export async function getAuthStatus(
  _params: ParamsOf<"getAuthStatus">,
  context: HandlerContext,
): Promise<ResultOf<"getAuthStatus">> {
  const { config } = context.runtime;
  const providerConfig = config.modelProviders[config.provider.id];
  // The key itself is never sent: a client that needs it has it already.
  return {
    authMethod: config.provider.apiKey ? "apikey" : null,
    authToken: null,
    requiresOpenaiAuth: providerConfig?.requires_openai_auth ?? config.provider.id === "openai",
  };
}

/** The conversation's channel; a v1 client leaving interrupts the turns it started. */
async function legacyChannel(id: string, context: HandlerContext): Promise<ThreadChannel> {
  checkThreadId(id);
  const channel = await context.runtime.open(id);
  const { session } = context;
  if (!channel.hasSubscriber(session) && !session.signal.aborted)
    session.signal.addEventListener("abort", () => channel.detach(session), { once: true });
  return channel;
}

function userInputOf(item: InputItem): UserInputWire {
  switch (item.type) {
    case "text":
      return { type: "text", text: item.data.text };
    case "image":
      return { type: "image", url: item.data.image_url };
    case "localImage":
      return { type: "localImage", path: item.data.path };
  }
}

/** v1's sandbox policy in v2's words (the shared turn code checks the roots). */
function sandboxPolicyOf(policy: LegacySandboxPolicy): SandboxPolicy {
  switch (policy.type) {
    case "danger-full-access":
      return { type: "dangerFullAccess" };
    case "read-only":
      return { type: "readOnly" };
    case "external-sandbox":
      return { type: "externalSandbox", networkAccess: policy.network_access ?? "restricted" };
    case "workspace-write":
      return {
        type: "workspaceWrite",
        writableRoots: (policy.writable_roots ?? []).map((root) => (isAbsolute(root) ? resolve(root) : root)),
        networkAccess: policy.network_access ?? false,
        excludeTmpdirEnvVar: policy.exclude_tmpdir_env_var ?? false,
        excludeSlashTmp: policy.exclude_slash_tmp ?? false,
      };
  }
}
