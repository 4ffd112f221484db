/**
 * Building a Thread from resolved configuration: model family → request settings and
 * tools; provider → model client; prompt parts loaded once.
 */
import type { Config } from "../config/load.js";
import { enabledMcpServers } from "../config/mcp-servers.js";
import { configuredPermissions } from "../config/permission-profiles.js";
import { buildShellEnvironment } from "../exec/environment.js";
import { type HookCallbacks, loadHooks, type ThreadStartSource } from "../hooks/index.js";
import { createModelClient } from "../model/client.js";
import { findModelFamily } from "../model/family.js";
import type { ClientIdentity, ModelRequestSettings } from "../model/types.js";
import { createThreadPolicy, loadExecPolicy } from "../policy/index.js";
import { loadBaseInstructions, userShellPath } from "../prompt/index.js";
import { listMemories, memoriesMessage } from "../prompt/memories.js";
import { enabledSkills, loadSkills, skillsBudgetChars, skillsInstructions } from "../prompt/skills.js";
import type { ApprovalsReviewer } from "../protocol/auto-review.js";
import type { ClientToolSpec } from "../protocol/client-tools.js";
import type { GranularApproval } from "../protocol/granular-approval.js";
import type { Permissions } from "../protocol/permissions.js";
import { type LegacyExtent, permissionsFromSandboxMode } from "../protocol/permissions-legacy.js";
import type { ApprovalPolicy, SandboxMode } from "../protocol/policy.js";
import { telemetry } from "../protocol/telemetry.js";
import { buildToolDefinitions, memoryTool } from "../tools/registry.js";
import type { ApprovalGate } from "../tools/router.js";
import { buildTurnTools } from "../tools/tool-set.js";
import { toolName } from "../tools/types.js";
import { uuidv7 } from "../util/ids.js";
import { VERSION } from "../version.js";
import type { AgentHost } from "./agent-control.js";
import type { AutoReview } from "./approval-review.js";
import { compactionSettings } from "./compact.js";
import type { ThreadServices } from "./services.js";
import { Thread } from "./thread.js";

export interface CreateThreadOptions {
  cwd: string;
  /** `originator` header: who drives the agent (exec, mcp-server, an SDK user). */
  originator: string;
  approvalPolicy?: ApprovalPolicy | undefined;
  /** A bare sandbox mode, completed by the configured extent (`-s`, the app-server's `sandbox`). */
  sandboxMode?: SandboxMode | undefined;
  model?: string | undefined;
  baseInstructions?: string | undefined;
  developerInstructions?: string | undefined;
  gate?: ApprovalGate | undefined;
  threadId?: string | undefined;
  env?: NodeJS.ProcessEnv | undefined;
  /** The client's tools (Codex's dynamic tools); a name clash with a built-in tool is an error. */
  clientTools?: ClientToolSpec[] | undefined;
  /** A client tool hides a built-in or MCP tool of the same name instead of being refused. */
  clientToolsWin?: boolean | undefined;
  /** Reasoning effort for this thread's turns (a named sub-agent's). */
  reasoningEffort?: string | undefined;
  /** Where sub-agents come from (feature `collab`), and how deep this thread is (0: top). */
  agents?: { host: AgentHost; depth: number } | undefined;
  /** Only these tools (a named sub-agent's `tools`); absent: all. */
  allowedTools?: string[] | undefined;
  /** Client tool calls park the turn instead of waiting (the HTTP proxy; see ThreadSettings). */
  parkClientCalls?: boolean | undefined;
  /** No built-in or MCP tools: the model sees only the client's tools. */
  noInternalTools?: boolean | undefined;
  /** The program's hooks, run in process beside the configured ones (library). */
  hooks?: HookCallbacks | undefined;
  /**
   * The permissions, whole, in place of the configured ones (a sub-agent's: at most its
   * parent's; an app-server `permissions` profile). Wins over `sandboxMode`.
   */
  permissions?: Permissions | undefined;
  /** What completes a bare sandbox mode a later turn names (a sub-agent's: its parent's). */
  configuredExtent?: LegacyExtent | undefined;
  /** Skill roots besides Codex's (app-server `skills/extraRoots/set`). */
  skillRoots?: readonly string[] | undefined;
  /** SessionStart's source for a new thread: "clear" when it replaces one the user cleared. */
  sessionStartSource?: ThreadStartSource | undefined;
  /** A sub-agent's type (its name in telemetry) and the thread that spawned it. */
  subAgent?: { type: string; parentThreadId: string } | undefined;
  /**
   * The granular approval policy's categories (with approvalPolicy on-request); absent: config's
   * when the thread asks on-request, else none.
   */
  granular?: GranularApproval | null | undefined;
  /** Who answers this thread's approval questions (the app-server's `approvalsReviewer`); default: config's. */
  approvalsReviewer?: ApprovalsReviewer | undefined;
  /**
   * A person (or a client acting for one) answers this thread's questions, so a reviewer's denial
   * can go to them (`[auto_review] escalate_denials`); exec's declared outcome is no person.
   */
  personAttached?: boolean | undefined;
}

export async function createThread(config: Config, options: CreateThreadOptions): Promise<Thread> {
  const env = options.env ?? process.env;
  const id = options.threadId ?? uuidv7();
  const model = options.model ?? config.model;
  const family = findModelFamily(model);
  const shellPath = userShellPath(env);
  // MCP servers start first, in the background: their startup overlaps the rest of thread
  // creation, and the first turn waits for them (bounded by each startup_timeout_sec).
  const mcp = options.noInternalTools ? null : await startMcpServers(config, options.cwd, env);
  const agents =
    config.features.collab === true && options.agents
      ? await loadAgentControl(config, options.agents)
      : undefined;
  const allowed = options.allowedTools ? new Set(options.allowedTools) : null;
  const memories = await listMemories(config.home, options.cwd);
  // The proxy's --disable-internal-tools: the model sees only the client's tools.
  const tools = (
    options.noInternalTools
      ? []
      : buildToolDefinitions({
          family,
          wireApi: config.provider.wireApi,
          tools: config.tools,
          features: config.features,
          shellPath,
          mcpResources: () => mcp?.manager ?? null,
          collab: agents,
        })
  )
    .concat(memories.length > 0 ? [memoryTool(config.home)] : [])
    .filter((definition) => !allowed || allowed.has(toolName(definition)));
  const identity: ClientIdentity = {
    sessionId: id,
    originator: options.originator,
    userAgent: `${options.originator}/${VERSION} (${process.platform}; ${process.arch}) node/${process.versions.node}`,
  };
  // Rules files are read per thread, so edits apply to the next thread without a restart.
  // A Codex user's home beside ours holds rules and hooks too: read, and kept out of commands' reach.
  const homes = config.codexHome ? [config.home, config.codexHome] : [config.home];
  const policy = createThreadPolicy({
    rules: await loadExecPolicy(config.ignoreRules ? null : homes, config.execPolicyRules),
    backend: config.sandboxBackend,
    protectedPaths: homes,
    allowUnixSockets: config.sandboxAllowUnixSockets,
  });
  // Refuse a clash with a built-in now; MCP names are checked when each turn builds its tools.
  const clientTools = options.clientTools ?? [];
  buildTurnTools({
    builtins: tools,
    mcp: [],
    client: clientTools,
    clientToolsWin: options.clientToolsWin ?? false,
  });
  const contextWindow = config.contextWindow ?? family.contextWindow;
  const skills = enabledSkills(
    await loadSkills({
      home: config.home,
      cwd: options.cwd,
      env,
      settings: config.skillSettings,
      extraRoots: options.skillRoots,
    }),
  );
  const hooks = await loadHooks({
    home: config.home,
    cwd: options.cwd,
    env,
    bypassTrust: config.bypassHookTrust === true,
    callbacks: options.hooks,
  });
  const services: ThreadServices = {
    client: createModelClient({
      provider: config.provider,
      settings: requestSettings(config, model),
      identity,
    }),
    tools,
    hooks,
    skills: { loaded: skills, message: skillsInstructions(skills, skillsBudgetChars(contextWindow)) },
    model,
    provider: config.provider.id,
    originator: options.originator,
    agentName: options.subAgent?.type ?? "tscodex",
    reasoningEffort: config.reasoningEffort,
    gate: options.gate ?? policy.gate,
    ...(mcp ? { mcp: mcp.startup } : {}),
    requestSettings: (choice) =>
      requestSettings(config, choice.model ?? model, { effort: choice.effort, summary: choice.summary }),
    baseInstructions: options.baseInstructions ?? config.baseInstructions ?? (await loadBaseInstructions()),
    developerInstructions: options.developerInstructions ?? config.developerInstructions,
    memories: memoriesMessage(memories),
    parallelToolCalls: family.supportsParallelToolCalls,
    contextWindow,
    compaction: await compactionSettings(config, contextWindow),
    truncation: family.truncation,
    projectDocMaxBytes: config.projectDocMaxBytes,
    userInstructions: config.userInstructions,
    shellPath,
    shellEnvironment: buildShellEnvironment(config.shellEnvironmentPolicy, env),
    orchestrator: policy.orchestrator,
    approvalTimeoutMs: config.approvalTimeoutMs,
    clientToolTimeoutMs: config.clientToolTimeoutMs,
    autoReview: autoReviewOf(config, model, options),
  };
  const configuredExtent = options.configuredExtent ?? config.sandboxWorkspaceWrite;
  // A bare mode (the app-server's `sandbox`, the MCP tool's) is the legacy value; else config's
  // choice: default_permissions' profile, or sandbox_mode.
  const permissions =
    options.permissions ??
    (options.sandboxMode
      ? permissionsFromSandboxMode(options.sandboxMode, configuredExtent)
      : configuredPermissions(config).permissions);
  const thread = new Thread(
    id,
    services,
    {
      cwd: options.cwd,
      approvalPolicy: options.approvalPolicy ?? config.approvalPolicy,
      granular:
        options.granular !== undefined
          ? options.granular
          : (options.approvalPolicy ?? config.approvalPolicy) === "on-request"
            ? config.granularApproval
            : null,
      approvalsReviewer: options.approvalsReviewer ?? config.approvalsReviewer,
      permissions,
      configuredExtent,
      clientTools,
      clientToolsWin: options.clientToolsWin ?? false,
      ...(options.reasoningEffort ? { model: { effort: options.reasoningEffort } } : {}),
      ...(options.parkClientCalls ? { parkClientCalls: true } : {}),
    },
    { sessionStartSource: options.sessionStartSource },
  );
  agents?.attach(thread);
  const sink = telemetry();
  if (sink.enabled)
    sink.threadStarted({
      threadId: id,
      model,
      provider: config.provider.id,
      reasoningEffort: options.reasoningEffort ?? config.reasoningEffort,
      reasoningSummary: config.reasoningSummary,
      contextWindow,
      autoCompactTokenLimit: services.compaction?.autoLimit ?? undefined,
      approvalPolicy: options.approvalPolicy ?? config.approvalPolicy,
      sandboxPolicy:
        permissions.kind === "danger-full-access" ? "danger-full-access" : permissions.legacyMode,
      activeProfile: permissions.profile?.id,
      mcpServers: enabledMcpServers(config.mcpServers).map(([name]) => name),
      originator: options.originator,
      parentThreadId: options.subAgent?.parentThreadId,
    });
  return thread;
}

/**
 * The enabled `[mcp_servers.*]`, starting, and the thread's view of them; null when there are
 * none (neither the SDK nor the MCP tool adapter is loaded).
 */
async function startMcpServers(config: Config, cwd: string, env: NodeJS.ProcessEnv) {
  const servers = enabledMcpServers(config.mcpServers);
  if (servers.length === 0) return null;
  const [{ McpClientManager }, { mcpStartup }] = await Promise.all([
    import("../mcp/client-manager.js"),
    import("../tools/mcp.js"),
  ]);
  const manager = McpClientManager.start(servers, { env, cwd, home: config.home });
  return { manager, startup: mcpStartup(manager) };
}

/** Request knobs per model family (reference section 1), with config overrides. */
export function requestSettings(
  config: Config,
  model: string,
  choice: { effort?: string | undefined; summary?: string | undefined } = {},
): ModelRequestSettings {
  const family = findModelFamily(model);
  const verbosity = config.verbosity ?? family.defaultVerbosity;
  if (!family.reasoning) {
    return { model, reasoning: null, include: [], ...(verbosity ? { textVerbosity: verbosity } : {}) };
  }
  const effort = choice.effort ?? config.reasoningEffort ?? family.reasoning.effort;
  const summary = choice.summary ?? config.reasoningSummary ?? family.reasoning.summary;
  return {
    model,
    reasoning: { ...(effort ? { effort } : {}), ...(summary && summary !== "none" ? { summary } : {}) },
    include: ["reasoning.encrypted_content"],
    ...(verbosity ? { textVerbosity: verbosity } : {}),
  };
}

/**
 * Sub-agent control, loaded only when the collab feature is on: a thread without it never parses
 * it (issue 26: what a one-turn exec loads is its peak RSS).
 */
async function loadAgentControl(
  config: Config,
  agents: NonNullable<CreateThreadOptions["agents"]>,
): Promise<import("./agent-control.js").AgentControl> {
  const [{ AgentControl }, { loadAgentProfile }] = await Promise.all([
    import("./agent-control.js"),
    import("./agent-profiles.js"),
  ]);
  return new AgentControl(agents.host, agents.depth, config.agentLimits, (name) =>
    loadAgentProfile(config, name),
  );
}

/**
 * The thread's reviewer: `[auto_review]`'s model and provider, else the session's (so it works on
 * any provider); loaded only when a thread reviews.
 */
function autoReviewOf(config: Config, model: string, options: CreateThreadOptions): AutoReview {
  const review = config.autoReview;
  return {
    reviewer: async () => {
      const { createApprovalReviewer, reviewerSettings } = await import("./auto-review/index.js");
      const session = { model, provider: config.provider, originator: options.originator };
      return createApprovalReviewer(reviewerSettings(session, review));
    },
    breaker: review.breaker,
    escalateDenials: review.escalateDenials && options.personAttached === true,
  };
}
