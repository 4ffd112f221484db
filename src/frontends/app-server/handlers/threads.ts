/**
 * thread/start, thread/resume, thread/fork, thread/archive and thread/rollback: open a thread
 * (new, stored, or copied), make the calling client follow it, and answer with the thread and
 * the settings it runs with. thread/start and thread/fork announce the new thread with
 * `thread/started` after the reply, as Codex does; resume and fork then tell the client the
 * thread's last token usage.
 */

import { resolve } from "node:path";
import { projectConfigPaths } from "../../../config/layers.js";
import type { Config } from "../../../config/load.js";
import { PermissionProfileError } from "../../../config/permission-profiles.js";
import { warnConfigOnce } from "../../../config/warnings.js";
import type { ClientToolSpec } from "../../../protocol/client-tools.js";
import { approvalOfSetting } from "../../../protocol/granular-approval.js";
import type { Thread } from "../../../session/thread.js";
import type { OpenThreadOptions } from "../../../session/thread-manager.js";
import { errorMessage } from "../../../util/errors.js";
import { visibleLine } from "../../common/terminal-text.js";
import { enforceThreadCeiling } from "../ceiling.js";
import { configNotices, sendNotices } from "../config-notices.js";
import { instructionSources } from "../instruction-sources.js";
import { reportMcpStartup } from "../mcp-startup-status.js";
import { permissionsParam } from "../permissions-wire.js";
import type { ParamsOf, ResultOf } from "../protocol/client-requests.js";
import { encodeNotification, RpcError } from "../protocol/jsonrpc.js";
import type { ThreadChannel } from "../thread-channel.js";
import { archiveThread, liveView, requireStored, rollbackThread } from "../thread-files.js";
import { checkThreadId } from "../thread-id.js";
import { newThreadView, openedResponse, storedThreadView } from "../thread-view.js";
import { clientToolsOf } from "./client-tools.js";
import type { HandlerContext } from "./context.js";
import { sendRestoredUsage } from "./restored-usage.js";
import { tellThreadGone } from "./thread-lifecycle.js";

type SettingsParams = ParamsOf<"thread/start">;

/**
 * The thread's own configuration when it brings `config` or `modelProvider`, or when its cwd
 * has project `.codex/config.toml` files (applied only if the user trusts the project; else
 * one warning on stderr); otherwise the server's.
 */
async function threadConfig(context: HandlerContext, params: Partial<SettingsParams>): Promise<Config> {
  const extra = {
    ...(params.config ?? {}),
    ...(params.modelProvider ? { model_provider: params.modelProvider } : {}),
  };
  const cwd = resolve(params.cwd ?? process.cwd());
  const project = await projectConfigPaths(cwd, context.runtime.config.home);
  if (Object.keys(extra).length === 0 && project.length === 0) return context.runtime.config;
  try {
    const config = await context.runtime.configWith(extra, cwd);
    warnConfigOnce(config, process.stderr, visibleLine);
    const notices = configNotices(config, context.runtime.config);
    context.after(() => sendNotices((text) => context.session.send(text), notices));
    return config;
  } catch (error) {
    throw RpcError.invalidParams(`Invalid request: config: ${errorMessage(error)}`);
  }
}

/** Thread options from the settings params (only what was given) and the server's extra skill roots. */
function openOptions(
  params: Partial<SettingsParams>,
  config: Config | undefined,
  tools: ClientToolSpec[] | undefined,
  skillRoots: readonly string[],
  serverConfig: Config,
) {
  const permissions = permissionsParam(params.permissions, Boolean(params.sandbox), config ?? serverConfig);
  const options: OpenThreadOptions = {
    ...(config ? { config } : {}),
    ...(params.cwd ? { cwd: resolve(params.cwd) } : {}),
    ...(params.model ? { model: params.model } : {}),
    ...(params.approvalPolicy ? approvalOfSetting(params.approvalPolicy) : {}),
    ...(params.approvalsReviewer
      ? {
          approvalsReviewer:
            params.approvalsReviewer === "user" ? ("user" as const) : ("auto_review" as const),
        }
      : {}),
    // The client answers questions for its user: a reviewer's denial may go to it.
    personAttached: true,
    ...(params.sandbox ? { sandboxMode: params.sandbox } : {}),
    ...(permissions ? { permissions } : {}),
    ...(params.baseInstructions ? { baseInstructions: params.baseInstructions } : {}),
    ...(params.developerInstructions ? { developerInstructions: params.developerInstructions } : {}),
    ...(tools ? { clientTools: tools } : {}),
    ...(skillRoots.length > 0 ? { skillRoots } : {}),
  };
  return options;
}

/**
 * Open through `open`, turning core failures (a tool name clash, a bad cwd) into -32602, and a
 * permission profile the config cannot resolve into Codex's -32600.
 */
async function opening(open: () => Promise<Thread>): Promise<Thread> {
  try {
    return await open();
  } catch (error) {
    if (error instanceof RpcError) throw error;
    if (error instanceof PermissionProfileError)
      throw RpcError.invalidRequest(`failed to load configuration: ${error.message}`);
    throw RpcError.invalidParams(`Invalid request: ${errorMessage(error)}`);
  }
}

function announce(
  context: HandlerContext,
  channel: ThreadChannel,
  thread: ResultOf<"thread/start">["thread"],
) {
  context.session.follow(channel);
  context.after(() => context.session.send(encodeNotification("thread/started", { thread })));
  const live = channel.thread;
  if (live) context.after(() => reportMcpStartup(live, context.session));
}

export async function threadStart(
  params: ParamsOf<"thread/start">,
  context: HandlerContext,
): Promise<ResultOf<"thread/start">> {
  const { channel, view, config } = await openNewThread(params, context);
  announce(context, channel, view);
  return openedResponse(view, channel.settings, await instructionSources(config, channel.settings.cwd));
}

/** A new thread (thread/start, v1 newConversation), served but not yet announced. */
export async function openNewThread(params: ParamsOf<"thread/start">, context: HandlerContext) {
  const tools = clientToolsOf(params.dynamicTools, context.session, "thread/start");
  const config = await threadConfig(context, params);
  await enforceThreadCeiling(context.runtime, params, config);
  const options = {
    cwd: process.cwd(),
    ...openOptions(params, config, tools, context.runtime.skillExtraRoots, context.runtime.config),
    ...(params.sessionStartSource ? { sessionStartSource: params.sessionStartSource } : {}),
  };
  const threads = await context.runtime.threads();
  const thread = await opening(() => threads.start(options));
  const channel = context.runtime.adopt(thread);
  const path = threads.liveState(thread.id)?.path ?? "";
  return { channel, config, path, view: newThreadView(thread.id, path, channel.settings) };
}

export async function threadResume(
  params: ParamsOf<"thread/resume">,
  context: HandlerContext,
): Promise<ResultOf<"thread/resume">> {
  const { runtime } = context;
  const tools = clientToolsOf(params.dynamicTools, context.session, "thread/resume");
  const id = await threadIdOf(params);
  const ownConfig = params.config || params.modelProvider ? await threadConfig(context, params) : undefined;
  await enforceThreadCeiling(runtime, params, ownConfig ?? runtime.config, id);
  const wasLive = (await runtime.threads()).peek(id) !== undefined;
  const options = openOptions(params, ownConfig, tools, runtime.skillExtraRoots, runtime.config);
  const channel = await runtime.open(id, options);
  const thread = channel.thread;
  if (!thread) throw RpcError.invalidRequest(`thread not found: ${id}`);
  if (wasLive) {
    // A live thread keeps what it runs with; what the client asks for holds from its next turn.
    channel.override({
      ...(params.approvalPolicy ? approvalOfSetting(params.approvalPolicy) : {}),
      ...(params.sandbox ? { sandboxMode: params.sandbox } : {}),
      ...(options.permissions ? { permissions: options.permissions } : {}),
      ...(params.model ? { model: params.model } : {}),
      ...(params.cwd ? { cwd: resolve(params.cwd) } : {}),
      ...(tools ? { clientTools: tools } : {}),
    });
  }
  context.session.follow(channel);
  context.after(() => reportMcpStartup(thread, context.session));
  const stored = await requireStored(await runtime.threads(), id);
  const view = storedThreadView(stored, { includeTurns: true, live: channel });
  sendRestoredUsage(context, stored, view, channel.settings, ownConfig ?? runtime.config);
  const sources = await instructionSources(ownConfig ?? runtime.config, channel.settings.cwd);
  // `excludeTurns` (0.169): the client pages the turns itself (thread/turns/list).
  const shown = params.excludeTurns ? { ...view, turns: [] } : view;
  return openedResponse(shown, channel.settings, sources);
}

export async function threadFork(
  params: ParamsOf<"thread/fork">,
  context: HandlerContext,
): Promise<ResultOf<"thread/fork">> {
  const { runtime } = context;
  const id = await threadIdOf(params);
  const threads = await runtime.threads();
  await requireStored(threads, id);
  const config = await threadConfig(context, params);
  await enforceThreadCeiling(runtime, params, config, id);
  // The fork runs with what its source runs with (live) or started with (stored); params win.
  const source = await sourceOptions(runtime, id);
  const options = {
    ...source,
    ...openOptions(params, config, undefined, runtime.skillExtraRoots, runtime.config),
  };
  const thread = await opening(() => threads.fork(id, {}, options));
  const channel = runtime.adopt(thread);
  const stored = await requireStored(threads, thread.id);
  const view = storedThreadView(stored, { includeTurns: true, live: channel });
  announce(context, channel, view);
  sendRestoredUsage(context, stored, view, channel.settings, config);
  return openedResponse(view, channel.settings, await instructionSources(config, channel.settings.cwd));
}

/** Thread `id`'s model and policies as a fork starts from them. */
async function sourceOptions(runtime: HandlerContext["runtime"], id: string): Promise<OpenThreadOptions> {
  const live = runtime.channel(id)?.thread?.effectiveSettings;
  if (live) {
    const { model, approvalPolicy, permissions } = live;
    return { model, approvalPolicy, permissions };
  }
  const { provider: _provider, ...stored } = (await runtime.storedChoice(id)) ?? {};
  return stored;
}

export async function threadArchive(
  params: ParamsOf<"thread/archive">,
  context: HandlerContext,
): Promise<ResultOf<"thread/archive">> {
  checkThreadId(params.threadId);
  refuseWhileRunning(context, params.threadId);
  tellThreadGone(context, "thread/archived", params.threadId);
  await archiveThread(await context.runtime.threads(), params.threadId);
  return {};
}

export async function threadRollback(
  params: ParamsOf<"thread/rollback">,
  context: HandlerContext,
): Promise<ResultOf<"thread/rollback">> {
  const { runtime } = context;
  checkThreadId(params.threadId);
  if (params.numTurns < 1) throw RpcError.invalidParams("Invalid request: `numTurns` must be at least 1");
  refuseWhileRunning(context, params.threadId);
  const threads = await runtime.threads();
  await rollbackThread(threads, params.threadId, params.numTurns);
  const channel = await runtime.open(params.threadId);
  context.session.follow(channel);
  const stored = await requireStored(threads, params.threadId);
  return {
    thread: storedThreadView(stored, { includeTurns: true, live: liveView(runtime, params.threadId) }),
  };
}

export function refuseWhileRunning(context: HandlerContext, id: string): void {
  const running = context.runtime.channel(id)?.running;
  if (running)
    throw RpcError.invalidRequest(
      `thread ${id} is running turn ${running}; interrupt it first (turn/interrupt)`,
    );
}

/** The thread a resume or fork names: `path` (a rollout file) wins over `threadId`. */
async function threadIdOf(params: { threadId: string; path?: string | null | undefined }): Promise<string> {
  let id = params.threadId;
  if (params.path) {
    const { readRollout } = await import("../../../store/index.js");
    const stored = await readRollout(resolve(params.path)).catch(() => null);
    if (!stored) throw RpcError.invalidRequest(`thread not found: ${params.path}`);
    id = stored.meta.id;
  }
  checkThreadId(id);
  return id;
}
