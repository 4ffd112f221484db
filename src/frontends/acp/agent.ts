/**
 * `tscodex acp`'s methods: the ACP v1 agent side on the official SDK, over the same core as the
 * other front-ends (no app-server in between). Sessions are threads: `session/new` starts one with
 * the client's MCP servers (started before the first model request, as everywhere in tscodex),
 * `session/load` reopens a stored one and replays it as updates, `resume` reopens it quietly,
 * `list` reads the store (a shared PostgreSQL store lets a second editor load a session another
 * process ran), `close` stops it and sends nothing after.
 */
import { isAbsolute } from "node:path";
import {
  type AgentApp,
  type AgentContext,
  agent,
  type ClientCapabilities,
  type InitializeResponse,
  type McpServer,
  RequestError,
} from "@agentclientprotocol/sdk";
import type { Config } from "../../config/load.js";
import type { Thread } from "../../session/thread.js";
import type { ThreadManager } from "../../session/thread-manager.js";
import { VERSION } from "../../version.js";
import { withClientMcpServers } from "./client-mcp.js";
import { clientToolsOf } from "./client-tools.js";
import { COMMANDS, runCommand, slashCommand } from "./commands.js";
import type { SessionHost } from "./host.js";
import { modeOf } from "./modes.js";
import { userInputOf } from "./prompt-input.js";
import { replayUpdates } from "./replay.js";
import { AcpSession, initialChoices, PromptFailedError } from "./session.js";

export interface AcpRuntime {
  config: Config;
  threads: ThreadManager;
}

/** Sessions per `session/list` page. */
const LIST_PAGE = 50;
/** ACP protocol version 1 (v2 is a draft; agents keep serving v1). */
const PROTOCOL_VERSION = 1;

export function acpAgent(runtime: AcpRuntime): AgentApp {
  const sessions = new Map<string, AcpSession>();
  let capabilities: ClientCapabilities = {};
  const { config, threads } = runtime;

  const sessionOf = (sessionId: string): AcpSession => {
    const session = sessions.get(sessionId);
    if (!session) throw RequestError.sessionNotFound(sessionId);
    return session;
  };
  const requireCwd = (cwd: string) => {
    if (!isAbsolute(cwd)) throw RequestError.invalidParams({ cwd }, "cwd must be an absolute path");
  };
  const requireProvider = () => {
    if (config.providerProblem) throw RequestError.authRequired({ message: config.providerProblem });
  };
  /** Open `sessionId` (a stored thread) with the client's MCP servers; an open one is replaced. */
  const reopen = async (
    client: AgentContext,
    sessionId: string,
    cwd: string,
    mcpServers: McpServer[] | undefined,
  ) => {
    requireCwd(cwd);
    requireProvider();
    sessions.get(sessionId)?.close();
    let thread: Thread;
    try {
      thread = await threads.resume(sessionId, { cwd, config: withClientMcpServers(config, mcpServers) });
    } catch {
      throw RequestError.sessionNotFound(sessionId);
    }
    const settings = thread.effectiveSettings;
    const mode = modeOf(settings.approvalPolicy, settings.sandbox.mode);
    const choices = {
      mode,
      model: settings.model,
      effort: settings.effort ?? initialChoices(config, mode).effort,
    };
    const session = new AcpSession(thread, host(client), choices, { titled: true });
    sessions.set(sessionId, session);
    return session;
  };
  const host = (client: AgentContext): SessionHost => ({ client, capabilities, config });
  /** After the answer is on its way: the session's commands. */
  const announceCommands = (session: AcpSession) =>
    setImmediate(() =>
      session.send({ sessionUpdate: "available_commands_update", availableCommands: COMMANDS }),
    );

  return agent()
    .onConnect((connection) => {
      connection.closed.then(
        () => {
          for (const session of sessions.values()) session.close();
        },
        () => {},
      );
    })
    .onRequest("initialize", ({ params }): InitializeResponse => {
      capabilities = params.clientCapabilities ?? {};
      return {
        protocolVersion: Math.min(params.protocolVersion, PROTOCOL_VERSION),
        agentInfo: { name: "tscodex", title: "tscodex", version: VERSION },
        agentCapabilities: {
          loadSession: true,
          promptCapabilities: { image: true, embeddedContext: true, audio: false },
          mcpCapabilities: { http: true, sse: false },
          sessionCapabilities: { list: {}, resume: {}, close: {} },
        },
        authMethods: config.providerProblem
          ? [
              {
                id: "api-key",
                name: "API key",
                description: `Set the model provider's key in the agent's environment: ${config.providerProblem}`,
              },
            ]
          : [],
      };
    })
    .onRequest("authenticate", ({ params }) => {
      // codex-acp's convention: the editor hands the key over in `_meta["api-key"].apiKey`; it
      // is used for this process's sessions from now on (never written anywhere).
      const key = apiKeyOf(params._meta);
      if (params.methodId === "api-key" && key) {
        config.provider = { ...config.provider, apiKey: key };
        config.providerProblem = null;
      }
      requireProvider();
      return {};
    })
    .onRequest("session/new", async ({ params, client }) => {
      requireCwd(params.cwd);
      requireProvider();
      const mode = modeOf(config.approvalPolicy, config.sandboxMode);
      const clientTools = clientToolsOf(params._meta);
      const thread = await threads.start({
        cwd: params.cwd,
        config: withClientMcpServers(config, params.mcpServers),
        ...(clientTools ? { clientTools } : {}),
      });
      const session = new AcpSession(thread, host(client), initialChoices(config, mode), { titled: false });
      sessions.set(session.id, session);
      announceCommands(session);
      return { sessionId: session.id, modes: session.modes, configOptions: session.options };
    })
    .onRequest("session/load", async ({ params, client }) => {
      const session = await reopen(client, params.sessionId, params.cwd, params.mcpServers);
      const stored = await threads.read(params.sessionId);
      for (const update of replayUpdates(stored?.lines ?? [], params.cwd)) session.send(update);
      announceCommands(session);
      return { modes: session.modes, configOptions: session.options };
    })
    .onRequest("session/resume", async ({ params, client }) => {
      const session = await reopen(client, params.sessionId, params.cwd, params.mcpServers);
      announceCommands(session);
      return { modes: session.modes, configOptions: session.options };
    })
    .onRequest("session/list", async ({ params }) => {
      // Newest first, a sub-agent's threads left out; the cursor is the offset of the next page.
      const all = (await threads.list()).filter(
        (summary) => summary.parentId === null && (!params.cwd || summary.cwd === params.cwd),
      );
      const offset = Number(params.cursor ?? 0) || 0;
      const page = all.slice(offset, offset + LIST_PAGE);
      return {
        sessions: page.map((summary) => ({
          sessionId: summary.id,
          cwd: summary.cwd,
          title: summary.firstPrompt?.split("\n")[0]?.slice(0, 80) ?? null,
          updatedAt: summary.updated,
        })),
        nextCursor: offset + LIST_PAGE < all.length ? String(offset + LIST_PAGE) : null,
      };
    })
    .onRequest("session/close", async ({ params }) => {
      const session = sessionOf(params.sessionId);
      session.close();
      sessions.delete(params.sessionId);
      await threads.closeThread(params.sessionId);
      return {};
    })
    .onRequest("session/prompt", async ({ params }) => {
      const session = sessionOf(params.sessionId);
      const input = userInputOf(params.prompt);
      const command = input.images ? null : slashCommand(input.text);
      try {
        return command ? await runCommand(session, command) : await session.prompt(input);
      } catch (error) {
        if (error instanceof PromptFailedError) throw RequestError.internalError({ message: error.message });
        throw error;
      }
    })
    .onNotification("session/cancel", ({ params }) => {
      sessions.get(params.sessionId)?.cancel();
    })
    .onRequest("session/set_mode", ({ params }) => {
      try {
        sessionOf(params.sessionId).setMode(params.modeId);
      } catch (error) {
        if (error instanceof PromptFailedError)
          throw RequestError.invalidParams({ modeId: params.modeId }, error.message);
        throw error;
      }
      return {};
    })
    .onRequest("session/set_config_option", ({ params }) => {
      const session = sessionOf(params.sessionId);
      try {
        return { configOptions: session.setOption(params.configId, String(params.value)) };
      } catch (error) {
        if (error instanceof PromptFailedError)
          throw RequestError.invalidParams({ configId: params.configId }, error.message);
        throw error;
      }
    });
}

/** The key an `authenticate` carries in `_meta["api-key"].apiKey` (codex-acp's shape), if any. */
function apiKeyOf(meta: Record<string, unknown> | null | undefined): string | null {
  const entry = meta?.["api-key"];
  if (typeof entry !== "object" || entry === null) return null;
  const key = (entry as { apiKey?: unknown }).apiKey;
  return typeof key === "string" && key.trim() !== "" ? key.trim() : null;
}
