/**
 * A thread's settings (policies, cwd, roots, client tools, model choice) and what a turn may
 * change of them. Pure: the Thread holds the current value and replaces it per turn.
 */
import type { PermissionsInput } from "../prompt/index.js";
import type { ApprovalsReviewer } from "../protocol/auto-review.js";
import type { ClientToolSpec } from "../protocol/client-tools.js";
import type { CollaborationMode } from "../protocol/collaboration-mode.js";
import type { EditorFiles } from "../protocol/editor-files.js";
import type { GranularApproval } from "../protocol/granular-approval.js";
import { writablePaths } from "../protocol/permission-paths.js";
import type { Permissions } from "../protocol/permissions.js";
import {
  type LegacyExtent,
  type LegacyProjection,
  legacyProjection,
  permissionsFromSandboxMode,
} from "../protocol/permissions-legacy.js";
import type { ApprovalPolicy, SandboxMode } from "../protocol/policy.js";
import type { TraceCarrier } from "../protocol/telemetry.js";
import type { ModelChoice } from "./services.js";

export interface ThreadSettings {
  cwd: string;
  approvalPolicy: ApprovalPolicy;
  /**
   * The effective permissions (a sandbox mode or a permission profile): one value, replaced
   * whole by a turn that names any part of it, never merged field by field.
   */
  permissions: Permissions;
  /**
   * What completes a bare sandbox mode a turn names (config's `sandbox_workspace_write`; a
   * sub-agent's parent's), instead of an earlier turn's extent.
   */
  configuredExtent: LegacyExtent;
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
  /** Who answers approval questions from now on (absent: a person). */
  approvalsReviewer?: ApprovalsReviewer;
  /** The granular approval policy's categories (approvalPolicy is then on-request); absent: none declined. */
  granular?: GranularApproval | null;
}

/** What a thread's next turn runs with, the model resolved (what front-ends report to clients). */
export interface EffectiveSettings {
  cwd: string;
  approvalPolicy: ApprovalPolicy;
  permissions: Permissions;
  /** How `permissions` reads as Codex's sandbox mode and workspace-write extent (the legacy wire fields). */
  sandbox: LegacyProjection;
  model: string;
  /** The model provider's id. */
  provider: string;
  /** The reasoning effort chosen for the thread or configured; null: the model's default. */
  effort: string | null;
  collaborationMode: CollaborationMode;
  /** Who answers the thread's approval questions: a person, or the reviewer model. */
  approvalsReviewer: ApprovalsReviewer;
  /** The granular approval policy in force (approvalPolicy reads on-request), null for a plain policy. */
  granular: GranularApproval | null;
}

/** `settings` with what the thread was built with filling the model choice. */
export function effectiveSettings(
  settings: ThreadSettings,
  built: { model?: string | undefined; provider?: string | undefined; reasoningEffort?: string | undefined },
): EffectiveSettings {
  const { cwd, approvalPolicy, permissions } = settings;
  return {
    cwd,
    approvalPolicy,
    permissions,
    sandbox: legacyProjection(permissions),
    model: settings.model?.model ?? built.model ?? "",
    provider: built.provider ?? "",
    effort: settings.model?.effort ?? built.reasoningEffort ?? null,
    collaborationMode: settings.collaborationMode ?? { mode: "default", developerInstructions: null },
    approvalsReviewer: settings.approvalsReviewer ?? "user",
    granular: settings.granular ?? null,
  };
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
  /** The permissions from this turn on, whole (a profile, or a mode with its own extent). */
  permissions?: Permissions | undefined;
  /** A bare sandbox mode from this turn on, completed by the thread's configured extent. */
  sandboxMode?: SandboxMode | undefined;
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
  /** With `approvalPolicy` "on-request": the granular policy's categories (null or absent: none). */
  granular?: GranularApproval | null | undefined;
  /** Who answers approval questions from this turn on (app-server `approvalsReviewer` on turn/start). */
  approvalsReviewer?: ApprovalsReviewer | undefined;
  /** The caller's trace (app-server `trace`, HTTP `traceparent`): the turn's spans join it. */
  trace?: TraceCarrier | undefined;
  /** The client's files (an ACP editor's buffers): edits of this turn read and write through them. */
  editorFiles?: EditorFiles | undefined;
}

/** The overrides that make up a turn's permissions: one value, replaced whole, never merged by field. */
const PERMISSION_KEYS = ["permissions", "sandboxMode"] as const;

function namesPermissions(overrides: TurnOverrides): boolean {
  return PERMISSION_KEYS.some((key) => overrides[key] !== undefined);
}

/**
 * `later` over `earlier` (pending overrides, then a turn's own). Later permissions replace the
 * earlier ones whole: `{sandboxMode: "read-only"}` after a workspace-write value with network
 * has no network.
 */
export function mergeOverrides(earlier: TurnOverrides, later: TurnOverrides | undefined): TurnOverrides {
  if (!later) return earlier;
  const base = { ...earlier };
  if (namesPermissions(later)) for (const key of PERMISSION_KEYS) delete base[key];
  return { ...base, ...later };
}

/**
 * The settings after a turn's overrides (client tools and the output schema are handled apart).
 * A turn that names its permissions replaces them whole, as Codex's per-turn policy does: a bare
 * mode is completed by the configured extent (no network, no extra roots without one), never by
 * an earlier turn's, so no mode inherits another's network.
 */
export function applyTurnOverrides(settings: ThreadSettings, overrides: TurnOverrides): ThreadSettings {
  const { approvalPolicy, cwd, model, effort, summary, collaborationMode, approvalsReviewer } = overrides;
  const next: ThreadSettings = { ...settings };
  if (approvalPolicy) {
    next.approvalPolicy = approvalPolicy;
    // A policy named again replaces the granular one whole (its categories with it).
    next.granular = overrides.granular ?? null;
  }
  if (approvalsReviewer) next.approvalsReviewer = approvalsReviewer;
  if (overrides.permissions) next.permissions = overrides.permissions;
  else if (overrides.sandboxMode)
    next.permissions = permissionsFromSandboxMode(overrides.sandboxMode, settings.configuredExtent);
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
 * What the permissions message and the tools see: the mode, network, and every writable path
 * in full (`tmpdir`: the $TMPDIR commands get).
 */
export function permissionsOf(settings: ThreadSettings, tmpdir: string | null): PermissionsInput {
  const { permissions, approvalPolicy, cwd } = settings;
  const { mode, extent } = legacyProjection(permissions);
  return {
    sandboxMode: mode,
    approvalPolicy,
    networkAccess: extent.networkAccess,
    writableRoots: writablePaths(permissions, { cwd, tmpdir }),
  };
}
