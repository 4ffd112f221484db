/**
 * Loading: $TSCODEX_HOME/config.toml → profile file (profile-files.ts) → trusted project layers →
 * `-c` overrides → CLI flags → a resolved Config. Errors name the file, the key and the problem.
 */

import { readFile } from "node:fs/promises";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import type { ProviderInfo } from "../model/types.js";
import type { ApprovalsReviewer } from "../protocol/auto-review.js";
import { approvalOfSetting, type GranularApproval } from "../protocol/granular-approval.js";
import type { ApprovalPolicy, SandboxMode } from "../protocol/policy.js";
import { withSavedApiKey } from "./auth-file.js";
import { type AutoReviewConfig, autoReviewConfig } from "./auto-review.js";
import { codexHomeBeside, globalAgentsMd } from "./codex-home.js";
import { ConfigError } from "./errors.js";
import { type Deprecation, deprecatedFeatures } from "./features.js";
import { mergeTables, webSearchMode } from "./layers.js";
import type { McpServerConfig } from "./mcp-servers.js";
import type { NotifyConfig } from "./notify-config.js";
import { type OtelSettings, otelSettings } from "./otel.js";
import { applyOverride, type ConfigOverride } from "./overrides.js";
import { type PermissionProfiles, parsePermissionProfiles } from "./permission-profile-parse.js";
import { checkPermissionProfiles } from "./permission-profiles.js";
import {
  legacyProfileConflict,
  legacyProfileWarning,
  legacySelectorWarning,
  profileFilePath,
  profileNameProblem,
  selectedProfile,
} from "./profile-files.js";
import { trustedProjectLayers } from "./project-trust.js";
import { builtinProviders, missingKeyMessage, resolveProvider } from "./providers.js";
import { approvalDefault, loadRequirements, type Requirements, sandboxDefault } from "./requirements.js";
import type {
  AgentProfileConfig,
  ConfigFile,
  PrefixRuleConfig,
  ProviderConfig,
  ShellEnvironmentPolicy,
  ToolsConfig,
} from "./schema.js";
import { readTomlFile, type TomlFile } from "./toml-file.js";
import { unknownFieldError, unknownOverrideError } from "./unknown-fields.js";
import { unknownKeyPaths } from "./unknown-keys.js";
import { configValidator } from "./validate.js";

export const DEFAULT_MODEL = "gpt-5.2-codex";
export const DEFAULT_OSS_MODEL = "gpt-oss:20b";
/** `--oss --local-provider lmstudio`'s model when none is configured (Codex's LM Studio default). */
export const DEFAULT_LMSTUDIO_MODEL = "openai/gpt-oss-20b";
export const DEFAULT_PROJECT_DOC_MAX_BYTES = 32 * 1024;

export interface SandboxWorkspaceWrite {
  writableRoots: string[];
  networkAccess: boolean;
  excludeTmpdirEnvVar: boolean;
  excludeSlashTmp: boolean;
}

/** Everything a thread needs from configuration, resolved. */
export interface Config {
  home: string;
  configPath: string;
  model: string;
  provider: ProviderInfo;
  /** Set when the provider cannot be used as configured (e.g. its key is missing). */
  providerProblem: string | null;
  approvalPolicy: ApprovalPolicy;
  sandboxMode: SandboxMode;
  sandboxWorkspaceWrite: SandboxWorkspaceWrite;
  /** Whether a sandbox mode was given at all: `-s`, or `sandbox_mode` in a layer, the profile or `-c`. */
  sandboxModeExplicit: boolean;
  /**
   * Where the sandbox mode came from: `-s` (LoadOptions.sandboxMode), a `-c sandbox_mode=`
   * override, a config file or `[profiles.NAME]`; null when unset (the default applies).
   * configuredPermissions weighs it against `default_permissions`.
   */
  sandboxModeSource: "flag" | "override" | "config" | null;
  /** `[permissions.NAME]`: the named permission profiles, layers merged and checked. */
  permissionProfiles: PermissionProfiles;
  /** `default_permissions`: the profile commands run under (a name or a built-in id); null when unset. */
  defaultPermissions: string | null;
  projectDocMaxBytes: number;
  shellEnvironmentPolicy: ShellEnvironmentPolicy;
  reasoningEffort?: string;
  reasoningSummary?: string;
  verbosity?: string;
  contextWindow?: number;
  /** Replaces the built-in base instructions when set (model_instructions_file). */
  baseInstructions?: string;
  developerInstructions?: string;
  /**
   * A Codex user's home beside `home` (`$CODEX_HOME`, else `~/.codex`, when it exists and is
   * another directory): its hooks, skills, rules and AGENTS.md apply too (codex-home.ts). Never written.
   */
  codexHome?: string;
  /** The user's global `AGENTS.override.md` / `AGENTS.md` (the home's, else the Codex home's), when there is one. */
  userInstructions?: string;
  /** `[tools]`; `web_search` is folded into `features` (web_search_request / web_search_cached). */
  tools: Omit<ToolsConfig, "web_search">;
  features: Record<string, boolean>;
  /** `notify` / `notify_events`: the program run on thread events (session/notify.ts); unset: none. */
  notify?: NotifyConfig;
  /** `[otel]`: OpenTelemetry export (src/telemetry/); absent: nothing is exported, no OTel code loads. */
  otel?: OtelSettings;
  /** `approvals_reviewer` (`guardian_subagent` read as `auto_review`): who answers approval questions. */
  approvalsReviewer: ApprovalsReviewer;
  /** `[auto_review]`, resolved: the reviewer's model and provider, policy, bounds. */
  autoReview: AutoReviewConfig;
  /** `sandbox_backend`: which sandbox runtime enforces read-only / workspace-write. */
  sandboxBackend: "auto" | "bwrap" | "landlock";
  /** `sandbox_allow_unix_sockets`: sandboxed commands may open unix sockets with network off. */
  sandboxAllowUnixSockets: boolean;
  /** `approval_timeout_ms`: bound on every approval wait, then denied (unset: the thread's 120 s). */
  approvalTimeoutMs?: number;
  /** `approvals.exec_outcome`: how `tscodex exec` answers approval questions. */
  execApprovalOutcome: "deny" | "approve";
  /** `approvals.exec_json_items`: `exec --json` shows answered questions as `approval_request` items. */
  execJsonApprovalItems: boolean;
  /** Problems worth a line on stderr that stop nothing (keys nobody reads); see warnings.ts. */
  warnings: string[];
  /** Settings spelled the deprecated way (they still work); absent: none. */
  deprecations?: Deprecation[];
  /** `exec_policy.prefix_rules`: rules from config (files under $home/rules/ are added when a thread starts). */
  execPolicyRules: PrefixRuleConfig[];
  /** `approval_policy` as the user configured it (file, profile, -c, flag); null when unset. */
  approvalPolicySetting: ApprovalPolicy | null;
  /** `approval_policy = { granular = {...} }`: its categories (approvalPolicy is then on-request); null otherwise. */
  granularApproval: GranularApproval | null;
  /** `client_tool_timeout_ms`: bound on every client tool call (unset: the thread's 120 s). */
  clientToolTimeoutMs?: number;
  /** `[mcp_servers.*]`. */
  mcpServers: Record<string, McpServerConfig>;
  /** `[mcp_server]`: limits of `tscodex mcp-server`. */
  mcpServer: McpServerLimits;
  /** `[app_server] reconnect_grace_ms` when set: see the app-server's DEFAULT_RECONNECT_GRACE_MS. */
  appServerReconnectGraceMs?: number;
  /** `compact_prompt`, `experimental_compact_prompt_file`, `model_auto_compact_token_limit`. */
  compaction: { prompt?: string; promptFile?: string; autoTokenLimit?: number };
  /** `rollout_fsync`: fdatasync rollouts after each write. */
  rolloutFsync: boolean;
  /**
   * `[store]`: `url` ($TSCODEX_STORE_URL wins) names a PostgreSQL database for threads; null: JSONL
   * rollouts under the home. `leaseWaitMs`: wait for a thread another process holds.
   */
  store: { url: string | null; leaseWaitMs?: number };
  /** `[agents.NAME]`: named sub-agents (more may be files under `$home/agents/`). */
  agents: Record<string, AgentProfileConfig>;
  /** `[collab]`: sub-agent depth and concurrency limits. */
  agentLimits: { maxDepth: number; maxConcurrent: number };
  /** `user_input.exec_answer`: how `tscodex exec` answers request_user_input. */
  execUserInput: "unavailable" | "first";
  /** The profile in effect (`--profile`, else `profile` of config.toml), when there is one. */
  profile?: string;
  /** The v2 profile's file ($home/NAME.config.toml): the user layer this session writes to. */
  profilePath?: string;
  /** `--ignore-rules`: the `.rules` files under $home/rules are not loaded (config prefix_rules still are). */
  ignoreRules?: boolean;
  /** `[[skills.config]]`: skills turned off (or back on) by path or name, in file order. */
  skillSettings: SkillSetting[];
  /** --dangerously-bypass-hook-trust: configured hooks run without being trusted (one run only; no config key). */
  bypassHookTrust?: boolean;
  /** The operator's ceiling (requirements.toml in /etc/tscodex, /etc/codex, the home); null: none. */
  requirements: Requirements | null;
  /** `[profiles.NAME]` tables as configured. */
  profiles: NonNullable<ConfigFile["profiles"]>;
  /** Every provider a thread may name: the built-in ones, then `[model_providers.ID]`. */
  modelProviders: Record<string, ProviderConfig>;
}

/** One `[[skills.config]]` entry: the skill at `path`, or every skill called `name`. */
export interface SkillSetting {
  path?: string;
  name?: string;
  enabled: boolean;
}

/** Limits of `tscodex mcp-server` (config `[mcp_server]`). */
export interface McpServerLimits {
  /** `max_message_bytes`: largest stdio message; a larger one is answered with an error. */
  maxMessageBytes: number;
  /** `max_http_sessions`: open Streamable HTTP sessions at most. */
  maxHttpSessions: number;
  /** `http_session_idle_timeout_ms`: an HTTP session idle this long is closed. */
  httpSessionIdleTimeoutMs: number;
}

export const DEFAULT_MCP_SERVER_LIMITS: McpServerLimits = {
  maxMessageBytes: 16 * 1024 * 1024,
  maxHttpSessions: 256,
  httpSessionIdleTimeoutMs: 30 * 60_000,
};

export interface LoadOptions {
  /** Defaults to $TSCODEX_HOME, else $CODEX_HOME, else ~/.tscodex. */
  home?: string;
  /**
   * The workspace: its `.codex/config.toml` files (git root down to here) apply over the user's
   * when the project is trusted (project-trust.ts); otherwise they are left out with a warning.
   */
  cwd?: string;
  /** `exec --trust`: record the project as trusted in the user's config.toml, then load its layers. */
  trust?: boolean;
  profile?: string;
  overrides?: ConfigOverride[];
  /** Flags that win over everything: -m, --oss, -s, -a. */
  model?: string;
  oss?: boolean;
  sandboxMode?: SandboxMode;
  approvalPolicy?: ApprovalPolicy;
  env?: NodeJS.ProcessEnv;
  /** `--strict-config`: a key nobody reads is an error (default: a warning). */
  strictConfig?: boolean;
  /** `--ignore-user-config`: $home/config.toml (and a profile file) are not read; the home still is. */
  ignoreUserConfig?: boolean;
  /** `--ignore-rules`: see Config.ignoreRules. */
  ignoreRules?: boolean;
  /** `--local-provider`: which local provider `oss` picks (else config `oss_provider`, else Ollama). */
  localProvider?: "lmstudio" | "ollama";
}

/** The command line's flags for how config is read (`--strict-config`, `--ignore-*`), for a loader that runs later. */
export type ConfigLoadFlags = Pick<LoadOptions, "strictConfig" | "ignoreUserConfig" | "ignoreRules">;

export { ConfigError };

/**
 * The home: `$TSCODEX_HOME`, else `$CODEX_HOME` (an existing Codex setup), else `~/.tscodex`.
 * A Codex home elsewhere (`~/.codex`) is read beside it for hooks, skills, rules and AGENTS.md (codex-home.ts).
 */
export function tscodexHome(env: NodeJS.ProcessEnv = process.env): string {
  return env.TSCODEX_HOME || env.CODEX_HOME || join(homedir(), ".tscodex");
}

export async function loadConfig(options: LoadOptions = {}): Promise<Config> {
  const env = options.env ?? process.env;
  const home = resolve(options.home ?? tscodexHome(env));
  const configPath = join(home, "config.toml");
  const overrides = options.overrides ?? [];
  const user = options.ignoreUserConfig ? null : await readTomlFile(configPath);
  const raw = user?.table ?? {};
  const requirements = await loadRequirements(home);
  const validator = await configValidator();
  const warnings: string[] = [];
  // Keys nobody reads: warned about, or with --strict-config errors that stop the load.
  const unknownFields: string[] = [];
  const checkKeys = (table: Record<string, unknown>, path: string, text: string) => {
    for (const key of unknownKeyPaths(table, validator.schema)) {
      if (options.strictConfig) unknownFields.push(unknownFieldError(path, text, key));
      else warnings.push(`${path}: unknown key '${key}' (ignored)`);
    }
  };
  checkKeys(raw, configPath, user?.text ?? "");
  warnings.push(...(requirements?.warnings ?? []));

  const profile = await loadProfileLayer(home, configPath, raw, options, warnings);
  if (profile.file) {
    checkKeys(profile.file.table, profile.path, profile.file.text);
    mergeTables(raw, profile.file.table);
  }
  if (options.cwd) {
    try {
      const { layers, problems } = await trustedProjectLayers(
        raw,
        options.cwd,
        home,
        profile.writablePath,
        options.trust,
      );
      warnings.push(...problems);
      for (const layer of layers) {
        // Project layers are parsed by layers.ts; a strict error names the file without a position.
        checkKeys(layer.table, layer.path, "");
        mergeTables(raw, layer.table);
      }
    } catch (error) {
      throw new ConfigError((error as Error).message, { cause: error });
    }
  }
  for (const override of overrides) {
    const alone: Record<string, unknown> = Object.create(null);
    applyOverride(alone, override);
    for (const key of unknownKeyPaths(alone, validator.schema)) {
      if (options.strictConfig) unknownFields.push(unknownOverrideError(key));
      else warnings.push(`-c ${key}: unknown key (ignored)`);
    }
    applyOverride(raw, override);
  }
  if (unknownFields.length > 0) throw new ConfigError(["error loading config:", ...unknownFields].join("\n"));

  const checked = await validator.check(raw);
  if (!checked.ok) {
    // Each problem blamed on where its value came from: a -c override, else the config file.
    const lines = checked.problems.map(({ key, message }) => {
      const source = overrides.findLast((override) => overlaps(override.path, key.split(".")));
      return source ? `-c ${source.path.join(".")}: ${message}` : `${configPath}: key '${key}': ${message}`;
    });
    throw new ConfigError([...lines, ...warnings.map((warning) => `warning: ${warning}`)].join("\n"));
  }
  const file = checked.data;
  const profileName = profile.name;
  // The legacy `[profiles.NAME]` table wins over every layer, as it always did.
  const legacy = profile.legacy ? file.profiles?.[profile.legacy] : undefined;
  const merged: ConfigFile = legacy ? { ...file, ...legacy } : file;

  // Permission profiles: checked now, so a bad one is refused before anything runs.
  const permissionTables = parsePermissionProfiles(file.permissions, configPath);
  const defaultPermissions = file.default_permissions ?? null;
  warnings.push(
    ...permissionTables.warnings,
    ...checkPermissionProfiles(permissionTables.profiles, defaultPermissions, configPath),
  );
  const sandboxModeSource =
    options.sandboxMode !== undefined
      ? "flag"
      : (options.overrides ?? []).some(({ path }) => path.length === 1 && path[0] === "sandbox_mode")
        ? "override"
        : merged.sandbox_mode !== undefined
          ? "config"
          : null;

  const configuredApproval =
    merged.approval_policy === undefined ? null : approvalOfSetting(merged.approval_policy);
  const providers: Record<string, ProviderConfig> = {
    ...builtinProviders(env, merged.openai_base_url),
    ...(merged.model_providers ?? {}),
  };
  // --oss: the local provider `--local-provider` (else `oss_provider`) names; Ollama by default.
  const localProvider = options.localProvider ?? merged.oss_provider;
  const providerId = options.oss ? (localProvider ?? "oss") : (merged.model_provider ?? "openai");
  const providerConfig = providers[providerId];
  if (!providerConfig) {
    throw new ConfigError(
      `${configPath}: model_provider '${providerId}' is not defined; known providers: ${Object.keys(providers).join(", ")}`,
    );
  }
  const model =
    options.model ??
    (options.oss && !merged.model
      ? localProvider === "lmstudio"
        ? DEFAULT_LMSTUDIO_MODEL
        : DEFAULT_OSS_MODEL
      : (merged.model ?? DEFAULT_MODEL));
  const sww = merged.sandbox_workspace_write ?? {};
  const baseInstructions = merged.model_instructions_file
    ? await readInstructionsFile(resolve(home, merged.model_instructions_file), configPath)
    : undefined;

  const codexHome = await codexHomeBeside(home, env);
  const userInstructions = (await globalAgentsMd(codexHome ? [home, codexHome] : [home]))?.text;
  const keyedProvider = await withSavedApiKey(providerId, providerConfig, env, home);
  const webSearch = webSearchMode(merged);
  const { web_search: _webSearch, ...tools } = merged.tools ?? {};
  const features = { ...(merged.features ?? {}) };
  if (webSearch !== null) {
    features.web_search_request = webSearch === "live";
    features.web_search_cached = webSearch === "cached";
  }

  return {
    home,
    ...(codexHome ? { codexHome } : {}),
    configPath,
    model,
    provider: resolveProvider(providerId, keyedProvider, env),
    providerProblem: missingKeyMessage(providerId, keyedProvider, env, configPath),
    // A default nobody chose moves inside the ceiling; a chosen value above it is refused where it is used.
    approvalPolicy:
      options.approvalPolicy ??
      configuredApproval?.approvalPolicy ??
      approvalDefault(requirements, "on-request"),
    sandboxMode: options.sandboxMode ?? merged.sandbox_mode ?? sandboxDefault(requirements, "read-only"),
    sandboxWorkspaceWrite: {
      writableRoots: (sww.writable_roots ?? []).map((root) => resolve(root)),
      networkAccess: sww.network_access ?? false,
      excludeTmpdirEnvVar: sww.exclude_tmpdir_env_var ?? false,
      excludeSlashTmp: sww.exclude_slash_tmp ?? false,
    },
    sandboxModeExplicit: sandboxModeSource !== null,
    sandboxModeSource,
    permissionProfiles: permissionTables.profiles,
    defaultPermissions,
    projectDocMaxBytes: merged.project_doc_max_bytes ?? DEFAULT_PROJECT_DOC_MAX_BYTES,
    shellEnvironmentPolicy: merged.shell_environment_policy ?? {},
    ...(merged.model_reasoning_effort ? { reasoningEffort: merged.model_reasoning_effort } : {}),
    ...(merged.model_reasoning_summary ? { reasoningSummary: merged.model_reasoning_summary } : {}),
    ...(merged.model_verbosity ? { verbosity: merged.model_verbosity } : {}),
    ...(merged.model_context_window ? { contextWindow: merged.model_context_window } : {}),
    ...(baseInstructions !== undefined ? { baseInstructions } : {}),
    ...(merged.developer_instructions ? { developerInstructions: merged.developer_instructions } : {}),
    ...(userInstructions !== undefined ? { userInstructions } : {}),
    tools,
    features,
    sandboxBackend: merged.sandbox_backend ?? "auto",
    sandboxAllowUnixSockets: merged.sandbox_allow_unix_sockets ?? false,
    ...(merged.approval_timeout_ms ? { approvalTimeoutMs: merged.approval_timeout_ms } : {}),
    execApprovalOutcome: merged.approvals?.exec_outcome ?? "deny",
    execJsonApprovalItems: merged.approvals?.exec_json_items ?? false,
    warnings,
    deprecations: deprecatedFeatures(merged.features),
    execPolicyRules: merged.exec_policy?.prefix_rules ?? [],
    approvalPolicySetting: options.approvalPolicy ?? configuredApproval?.approvalPolicy ?? null,
    granularApproval: options.approvalPolicy ? null : (configuredApproval?.granular ?? null),
    ...(merged.client_tool_timeout_ms ? { clientToolTimeoutMs: merged.client_tool_timeout_ms } : {}),
    ...(merged.notify
      ? { notify: { argv: merged.notify, events: merged.notify_events ?? ["agent-turn-complete"] } }
      : {}),
    ...(merged.otel ? { otel: otelSettings(merged.otel, home, (line) => warnings.push(line)) } : {}),
    approvalsReviewer:
      merged.approvals_reviewer === undefined || merged.approvals_reviewer === "user"
        ? "user"
        : "auto_review",
    autoReview: autoReviewConfig(merged.auto_review, (id) => {
      const reviewerProvider = providers[id];
      if (!reviewerProvider)
        throw new ConfigError(
          `${configPath}: [auto_review] model_provider '${id}' is not defined; known providers: ${Object.keys(providers).join(", ")}`,
        );
      return resolveProvider(id, reviewerProvider, env);
    }),
    mcpServers: merged.mcp_servers ?? {},
    mcpServer: {
      maxMessageBytes: merged.mcp_server?.max_message_bytes ?? DEFAULT_MCP_SERVER_LIMITS.maxMessageBytes,
      maxHttpSessions: merged.mcp_server?.max_http_sessions ?? DEFAULT_MCP_SERVER_LIMITS.maxHttpSessions,
      httpSessionIdleTimeoutMs:
        merged.mcp_server?.http_session_idle_timeout_ms ?? DEFAULT_MCP_SERVER_LIMITS.httpSessionIdleTimeoutMs,
    },
    ...(merged.app_server?.reconnect_grace_ms !== undefined
      ? { appServerReconnectGraceMs: merged.app_server.reconnect_grace_ms }
      : {}),
    compaction: {
      ...(merged.compact_prompt ? { prompt: merged.compact_prompt } : {}),
      ...(merged.experimental_compact_prompt_file
        ? { promptFile: merged.experimental_compact_prompt_file }
        : {}),
      ...(merged.model_auto_compact_token_limit
        ? { autoTokenLimit: merged.model_auto_compact_token_limit }
        : {}),
    },
    rolloutFsync: merged.rollout_fsync ?? false,
    skillSettings: (merged.skills?.config ?? []).flatMap((entry) =>
      entry.path !== undefined || entry.name !== undefined
        ? [
            {
              ...(entry.path !== undefined ? { path: resolve(entry.path) } : {}),
              ...(entry.name !== undefined ? { name: entry.name } : {}),
              enabled: entry.enabled ?? true,
            },
          ]
        : [],
    ),
    store: {
      url: env.TSCODEX_STORE_URL || merged.store?.url || null,
      ...(merged.store?.lease_wait_ms !== undefined ? { leaseWaitMs: merged.store.lease_wait_ms } : {}),
    },
    agents: merged.agents ?? {},
    agentLimits: {
      maxDepth: merged.collab?.max_depth ?? 1,
      maxConcurrent: merged.collab?.max_concurrent ?? 4,
    },
    execUserInput: merged.user_input?.exec_answer ?? "unavailable",
    ...(profileName ? { profile: profileName } : {}),
    ...(profileName && !profile.legacy ? { profilePath: profile.path } : {}),
    ...(options.ignoreRules ? { ignoreRules: true } : {}),
    requirements,
    profiles: file.profiles ?? {},
    modelProviders: providers,
  };
}

interface ProfileLayer {
  name?: string;
  /** NAME.config.toml when it exists (v2). */
  file: TomlFile | null;
  path: string;
  /** Where this session's user-layer writes go (`--trust`): the v2 profile file, else config.toml. */
  writablePath: string;
  /** The `[profiles.NAME]` table to apply (the legacy form), when that is the profile. */
  legacy?: string;
}

/** The profile of this load (profile-files.ts): its file, or the legacy table, with their warnings. */
async function loadProfileLayer(
  home: string,
  configPath: string,
  userTable: Record<string, unknown>,
  options: LoadOptions,
  warnings: string[],
): Promise<ProfileLayer> {
  const selected = selectedProfile(options.profile, options.overrides ?? [], userTable);
  if (!selected) return { file: null, path: configPath, writablePath: configPath };
  const { name } = selected;
  const problem = profileNameProblem(name);
  if (problem) throw new ConfigError(problem);
  const path = profileFilePath(home, name);
  const file = options.ignoreUserConfig ? null : await readTomlFile(path);
  const tables = userTable.profiles;
  const legacy =
    typeof tables === "object" && tables !== null && Object.hasOwn(tables, name) ? name : undefined;
  if (file && legacy) throw new ConfigError(legacyProfileConflict(name, configPath, path));
  if (selected.fromFile) warnings.push(legacySelectorWarning(name, configPath, path));
  if (legacy) {
    warnings.push(legacyProfileWarning(name, configPath, path));
    return { name, file: null, path, writablePath: configPath, legacy };
  }
  return { name, file, path, writablePath: path };
}

async function readInstructionsFile(path: string, configPath: string): Promise<string> {
  try {
    return await readFile(path, "utf8");
  } catch (error) {
    throw new ConfigError(
      `${configPath}: model_instructions_file: cannot read ${path}: ${(error as Error).message}`,
    );
  }
}

/** Whether one key path is the other or lies inside it (`-c a.b=...` set the value at `a.b.c`). */
function overlaps(a: readonly string[], b: readonly string[]): boolean {
  const length = Math.min(a.length, b.length);
  return a.slice(0, length).every((part, index) => part === b[index]);
}
