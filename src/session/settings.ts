/**
 * A thread's settings (policies, cwd, roots, client tools, model choice) and what a turn may
 * change of them. Pure: the Thread holds the current value and replaces it per turn.
 */
import type { PermissionsInput } from "../prompt/index.js";
import type { ClientToolSpec } from "../protocol/client-tools.js";
import type { CollaborationMode } from "../protocol/collaboration-mode.js";
import type { ApprovalPolicy, SandboxMode } from "../protocol/policy.js";
import type { ModelChoice } from "./services.js";

export interface ThreadSettings {
  cwd: string;
  approvalPolicy: ApprovalPolicy;
  sandboxMode: SandboxMode;
  networkAccess: boolean;
  /** Extra writable roots (workspace-write), before cwd and the temp roots. */
  writableRoots: string[];
  /**
   * Temp directories writable in workspace-write, after cwd. Default ["/tmp"]; config
   * `sandbox_workspace_write.exclude_slash_tmp` drops /tmp, and $TMPDIR joins unless
   * `exclude_tmpdir_env_var`.
   */
  tempRoots?: string[];
  /** The client's tools (Codex's dynamic tools), offered from the first turn on. */
  clientTools?: ClientToolSpec[];
  /** A client tool hides a built-in or MCP tool of the same name instead of being refused (proxy). */
  clientToolsWin?: boolean;
  /**
   * Client tool calls park the turn (TurnResult status "parked") instead of waiting for
   * respondToTool: the HTTP proxy, which cannot wait for its client inside a turn.
   */
  parkClientCalls?: boolean;
  /** The model and reasoning turns use (absent: the client's configured ones). */
  model?: ModelChoice;
  /** The collaboration mode turns run in (absent: default), until a turn sets another. */
  collaborationMode?: CollaborationMode;
  /**
   * The configured workspace-write extent (config's `sandbox_workspace_write`): what a turn that
   * names a sandbox mode without its own extent gets, instead of an earlier turn's.
   */
  configuredExtent?: SandboxExtent;
}

/** What a thread's next turn runs with, the model resolved (what front-ends report to clients). */
export interface EffectiveSettings {
  cwd: string;
  approvalPolicy: ApprovalPolicy;
  sandboxMode: SandboxMode;
  networkAccess: boolean;
  writableRoots: readonly string[];
  /** /tmp and $TMPDIR as workspace-write roots, unless excluded. */
  tempRoots: readonly string[];
  model: string;
  /** The model provider's id. */
  provider: string;
  /** The reasoning effort chosen for the thread or configured; null: the model's default. */
  effort: string | null;
  collaborationMode: CollaborationMode;
}

/** `settings` with what the thread was built with filling the model choice. */
export function effectiveSettings(
  settings: ThreadSettings,
  built: { model?: string | undefined; provider?: string | undefined; reasoningEffort?: string | undefined },
): EffectiveSettings {
  const { cwd, approvalPolicy, sandboxMode, networkAccess, writableRoots, tempRoots } = settings;
  return {
    cwd,
    approvalPolicy,
    sandboxMode,
    networkAccess: sandboxNetwork(sandboxMode, networkAccess),
    writableRoots: [...writableRoots],
    tempRoots: [...(tempRoots ?? ["/tmp"])],
    model: settings.model?.model ?? built.model ?? "",
    provider: built.provider ?? "",
    effort: settings.model?.effort ?? built.reasoningEffort ?? null,
    collaborationMode: settings.collaborationMode ?? { mode: "default", developerInstructions: null },
  };
}

/** The workspace-write extent: extra roots, temp roots and network (see ThreadSettings). */
export interface SandboxExtent {
  writableRoots: string[];
  tempRoots: string[];
  networkAccess: boolean;
}

export interface UserInput {
  text: string;
  /** Images as data URLs. */
  images?: string[];
}

/**
 * What a turn may change. Policies (sandbox roots included), cwd, model and reasoning hold from that turn on;
 * `clientTools` replaces the thread's client tools from that turn on (`[]` clears them);
 * `outputSchema` holds for that turn only.
 */
export interface TurnOverrides {
  approvalPolicy?: ApprovalPolicy | undefined;
  sandboxMode?: SandboxMode | undefined;
  networkAccess?: boolean | undefined;
  /** Replace the thread's extra writable roots (a turn's workspace-write policy). */
  writableRoots?: string[] | undefined;
  /** Replace the thread's temp roots (/tmp, $TMPDIR) (a turn's workspace-write policy). */
  tempRoots?: string[] | undefined;
  cwd?: string | undefined;
  model?: string | undefined;
  effort?: string | undefined;
  summary?: string | undefined;
  clientTools?: ClientToolSpec[] | undefined;
  /** Plan or default mode from this turn on (a mode message is recorded when it changes). */
  collaborationMode?: CollaborationMode | undefined;
  outputSchema?: Record<string, unknown> | undefined;
  /**
   * Ends the turn when aborted (its caller went away), checked when the turn starts: an abort
   * that comes while the turn waits in the queue ends it as it begins.
   */
  signal?: AbortSignal | undefined;
}

/** The overrides that make up a turn's sandbox: one value, replaced whole, never merged by field. */
const SANDBOX_KEYS = ["sandboxMode", "networkAccess", "writableRoots", "tempRoots"] as const;

function namesSandbox(overrides: TurnOverrides): boolean {
  return SANDBOX_KEYS.some((key) => overrides[key] !== undefined);
}

/**
 * `later` over `earlier` (pending overrides, then a turn's own). A later sandbox replaces the
 * earlier one whole: `{sandboxMode: "read-only"}` after `{networkAccess: true}` has no network.
 */
export function mergeOverrides(earlier: TurnOverrides, later: TurnOverrides | undefined): TurnOverrides {
  if (!later) return earlier;
  const base = { ...earlier };
  if (namesSandbox(later)) for (const key of SANDBOX_KEYS) delete base[key];
  return { ...base, ...later };
}

/**
 * The settings after a turn's overrides (client tools and the output schema are handled apart).
 * A turn that names any part of the sandbox replaces the whole sandbox, as Codex's per-turn
 * policy does: what it leaves out comes from the configured extent (no network, no extra roots
 * without one), never from an earlier turn, so no mode inherits another's network.
 */
export function applyTurnOverrides(settings: ThreadSettings, overrides: TurnOverrides): ThreadSettings {
  const { approvalPolicy, cwd, model, effort, summary, collaborationMode } = overrides;
  const next: ThreadSettings = { ...settings };
  if (approvalPolicy) next.approvalPolicy = approvalPolicy;
  if (namesSandbox(overrides)) {
    const configured = settings.configuredExtent;
    next.sandboxMode = overrides.sandboxMode ?? settings.sandboxMode;
    next.networkAccess = overrides.networkAccess ?? configured?.networkAccess ?? false;
    next.writableRoots = [...(overrides.writableRoots ?? configured?.writableRoots ?? [])];
    next.tempRoots = [...(overrides.tempRoots ?? configured?.tempRoots ?? ["/tmp"])];
  }
  if (cwd) next.cwd = cwd;
  if (collaborationMode) next.collaborationMode = collaborationMode;
  if (model || effort || summary) {
    const choice: ModelChoice = { ...next.model };
    if (model) choice.model = model;
    if (effort) choice.effort = effort;
    if (summary) choice.summary = summary;
    next.model = choice;
  }
  return next;
}

/**
 * Whether commands may reach the network: only workspace-write has a choice; read-only never
 * (whatever `sandbox_workspace_write.network_access` says), danger-full-access always.
 */
export function sandboxNetwork(mode: SandboxMode, networkAccess: boolean): boolean {
  if (mode === "danger-full-access") return true;
  return mode === "workspace-write" && networkAccess;
}

/** What the permissions message and the sandbox see: the writable roots in full. */
export function permissionsOf(settings: ThreadSettings): PermissionsInput {
  const { sandboxMode, approvalPolicy, networkAccess, cwd, writableRoots, tempRoots } = settings;
  return {
    sandboxMode,
    approvalPolicy,
    networkAccess: sandboxNetwork(sandboxMode, networkAccess),
    writableRoots: [...new Set([...writableRoots, cwd, ...(tempRoots ?? ["/tmp"])])],
  };
}
