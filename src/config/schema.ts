/**
 * config.toml, validated. Key names are Codex's so an existing ~/.codex/config.toml
 * carries over. Unknown keys are kept (later features read them) but known keys are typed.
 */
import { z } from "zod";
import { approvalSettingSchema, sandboxModeSchema } from "../protocol/policy.js";
import { HOOK_EVENTS } from "./hook-events.js";
import { mcpServersSchema } from "./mcp-servers-schema.js";
import { NOTIFY_EVENTS } from "./notify-config.js";
import { otelConfigSchema } from "./otel-schema.js";
import { permissionProfileSchema } from "./permission-profile-schema.js";

const stringMap = z.record(z.string(), z.string());

export const providerSchema = z.looseObject({
  name: z.string().optional(),
  base_url: z.string().optional(),
  wire_api: z.enum(["responses", "chat"]).optional(),
  env_key: z.string().optional(),
  env_key_instructions: z.string().optional(),
  /** A literal key (discouraged; prefer env_key). */
  experimental_bearer_token: z.string().optional(),
  http_headers: stringMap.optional(),
  env_http_headers: stringMap.optional(),
  query_params: stringMap.optional(),
  request_max_retries: z.number().int().min(0).max(100).optional(),
  stream_max_retries: z.number().int().min(0).max(100).optional(),
  stream_idle_timeout_ms: z.number().int().positive().optional(),
  /** Total budget of one model response, retries included (tscodex's own key). */
  stream_max_duration_ms: z.number().int().positive().optional(),
  requires_openai_auth: z.boolean().optional(),
});

export const shellEnvironmentPolicySchema = z.looseObject({
  inherit: z.enum(["all", "core", "none"]).optional(),
  ignore_default_excludes: z.boolean().optional(),
  exclude: z.array(z.string()).optional(),
  include_only: z.array(z.string()).optional(),
  set: stringMap.optional(),
});

export const sandboxWorkspaceWriteSchema = z.looseObject({
  writable_roots: z.array(z.string()).optional(),
  network_access: z.boolean().optional(),
  exclude_tmpdir_env_var: z.boolean().optional(),
  exclude_slash_tmp: z.boolean().optional(),
});

export const toolsConfigSchema = z.looseObject({
  /** Which shell tool the model gets, overriding the model family's choice. */
  shell_type: z.enum(["shell_command", "shell", "local_shell", "none"]).optional(),
  /** Which apply_patch variant the model gets, overriding the model family's choice. */
  apply_patch: z.enum(["freeform", "function", "none"]).optional(),
  /** The provider's web_search tool: true / "live", "cached", false / "disabled" (see web_search). */
  web_search: z.union([z.boolean(), z.enum(["live", "cached", "disabled"])]).optional(),
  /** Offer view_image (default true). */
  view_image: z.boolean().optional(),
  /** Offer update_plan (default true; the MCP `codex` tool's include-plan-tool=false turns it off). */
  update_plan: z.boolean().optional(),
  /** Offer the file tools; each wins over `features.file_tools` and the model's metadata. */
  read_file: z.boolean().optional(),
  list_dir: z.boolean().optional(),
  grep_files: z.boolean().optional(),
});

/** A prefix rule in config (same meaning as `prefix_rule(...)` in `$TSCODEX_HOME/rules/*.rules`). */
export const prefixRuleSchema = z.object({
  pattern: z.array(z.union([z.string().min(1), z.array(z.string().min(1)).min(1)])).min(1),
  decision: z.enum(["allow", "prompt", "forbidden"]),
  justification: z.string().optional(),
});

export const execPolicyConfigSchema = z.looseObject({
  prefix_rules: z.array(prefixRuleSchema).optional(),
});

export const approvalsConfigSchema = z.looseObject({
  /**
   * `tscodex exec` has nobody to ask: how its approval questions are answered, at once
   * (default "deny"). Only matters with an asking policy (-a untrusted|on-request|on-failure).
   */
  exec_outcome: z.enum(["deny", "approve"]).optional(),
  /** `tscodex exec --json`: also emit each answered question as an `approval_request` item (ours). */
  exec_json_items: z.boolean().optional(),
});

const modelKeys = {
  model: z.string().min(1).optional(),
  model_provider: z.string().min(1).optional(),
  /** A policy name, or Codex's granular object (`{ granular = { sandbox_approval, rules, mcp_elicitations } }`). */
  approval_policy: approvalSettingSchema.optional(),
  sandbox_mode: sandboxModeSchema.optional(),
  model_reasoning_effort: z.enum(["none", "minimal", "low", "medium", "high", "xhigh"]).optional(),
  model_reasoning_summary: z.enum(["auto", "concise", "detailed", "none"]).optional(),
  model_verbosity: z.enum(["low", "medium", "high"]).optional(),
  model_context_window: z.number().int().positive().optional(),
  /** Path of a file whose contents replace the built-in base instructions. */
  model_instructions_file: z.string().optional(),
  developer_instructions: z.string().optional(),
  /** Who answers approval questions: a person ("user", default) or the reviewer model ("auto_review"). */
  approvals_reviewer: z.enum(["user", "auto_review", "guardian_subagent"]).optional(),
};

export const profileSchema = z.looseObject({ ...modelKeys });

/** A named sub-agent (`[agents.NAME]`, or `$TSCODEX_HOME/agents/NAME.toml`). */
export const agentProfileSchema = z.object({
  description: z.string().optional(),
  model: z.string().min(1).optional(),
  model_reasoning_effort: z.string().optional(),
  developer_instructions: z.string().optional(),
  sandbox_mode: sandboxModeSchema.optional(),
  /** Tool names the agent may use; absent: all of its parent's. */
  tools: z.array(z.string()).optional(),
});

/** Sub-agent limits (feature `collab`). */
export const collabConfigSchema = z.object({
  /** How deep sub-agents nest: 1 (default) lets the top thread spawn, and its children not. */
  max_depth: z.number().int().min(0).max(8).optional(),
  /** Sub-agents running at once per thread (default 4). */
  max_concurrent: z.number().int().min(1).max(64).optional(),
});

/**
 * `[hooks]`: its keys are the event names and `state`. The groups' shape is checked (with a
 * warning, not an error) where hooks load (hooks/sources.ts), so each event takes any value here.
 */
const hooksConfigSchema = z.looseObject({
  ...Object.fromEntries(HOOK_EVENTS.map((event) => [event, z.unknown().optional()])),
  /** `hooks trust` / Codex's /hooks: `[hooks.state."<file>:<event>:<group>:<handler>"] trusted_hash`. */
  state: z.record(z.string(), z.looseObject({ trusted_hash: z.string().optional() })).optional(),
});

export const configFileSchema = z.looseObject({
  ...modelKeys,
  model_providers: z.record(z.string(), providerSchema).optional(),
  /** Base URL of the built-in `openai` provider (what the Codex SDK's `baseUrl` sets). */
  openai_base_url: z.string().min(1).optional(),
  /** The provider's web_search tool: "live", "cached" (no live fetches) or "disabled". */
  web_search: z.enum(["live", "cached", "disabled"]).optional(),
  profile: z.string().optional(),
  /** The local provider `--oss` picks when `--local-provider` names none. */
  oss_provider: z.enum(["lmstudio", "ollama"]).optional(),
  profiles: z.record(z.string(), profileSchema).optional(),
  project_doc_max_bytes: z.number().int().min(0).optional(),
  shell_environment_policy: shellEnvironmentPolicySchema.optional(),
  sandbox_workspace_write: sandboxWorkspaceWriteSchema.optional(),
  tools: toolsConfigSchema.optional(),
  /** Force a sandbox backend ("auto": bubblewrap, else the Landlock helper). */
  sandbox_backend: z.enum(["auto", "bwrap", "landlock"]).optional(),
  /** Let sandboxed commands open unix sockets (docker, ssh-agent, dbus) with network off. */
  sandbox_allow_unix_sockets: z.boolean().optional(),
  /** How long an approval question waits for an answer before it counts as denied. */
  approval_timeout_ms: z.number().int().positive().optional(),
  /** Bound on a client tool call: no answer by then is a failed call the model reads. */
  client_tool_timeout_ms: z.number().int().positive().optional(),
  approvals: approvalsConfigSchema.optional(),
  exec_policy: execPolicyConfigSchema.optional(),
  /**
   * Feature switches, Codex's names (`--enable NAME` / `--disable NAME` set them): unified_exec,
   * web_search_request, web_search_cached, shell_tool, apply_patch_freeform; and ours:
   * file_tools (read_file, list_dir, grep_files).
   */
  features: z.record(z.string(), z.boolean()).optional(),
  /** A program run after each turn, with Codex's `agent-turn-complete` JSON as its last argument. */
  notify: z.array(z.string()).min(1).optional(),
  /** Which events run `notify` (tscodex's own key; default: only Codex's agent-turn-complete). */
  notify_events: z.array(z.enum(NOTIFY_EVENTS)).optional(),
  /**
   * `[projects."<abs dir>"] trust_level`: a project's own `.codex/config.toml` layers apply only
   * when its directory (the git root, if the user controls it, else the cwd) is "trusted" here
   * (`exec --trust` writes it).
   */
  projects: z
    .record(z.string(), z.looseObject({ trust_level: z.enum(["trusted", "untrusted"]).optional() }))
    .optional(),
  /** Named sub-agents for spawn_agent's agent_type. */
  agents: z.record(z.string(), agentProfileSchema).optional(),
  collab: collabConfigSchema.optional(),
  /** How `tscodex exec` answers request_user_input: "unavailable" (default, as Codex) or "first" option. */
  user_input: z.object({ exec_answer: z.enum(["unavailable", "first"]).optional() }).optional(),
  /** `[[hooks.<Event>]]` groups and `[hooks.state."<key>"]` trust (read per layer by src/hooks/). */
  hooks: hooksConfigSchema.optional(),
  /** `[[skills.config]]`: a skill (by SKILL.md `path` or by `name`) turned off or on; the last entry for it wins. */
  skills: z
    .looseObject({
      config: z
        .array(
          z.looseObject({
            path: z.string().optional(),
            name: z.string().optional(),
            enabled: z.boolean().optional(),
          }),
        )
        .optional(),
    })
    .optional(),
  /** The permission profile commands run under: a `[permissions.NAME]` or a built-in (`:workspace`). */
  default_permissions: z.string().min(1).optional(),
  /** `[permissions.NAME]`: Codex's permission profiles (permission-profiles.ts). */
  permissions: z.record(z.string(), permissionProfileSchema).optional(),
  /** MCP servers as tool sources (see mcp-servers.ts). */
  mcp_servers: mcpServersSchema.optional(),
  /** Limits of `tscodex mcp-server` itself (tscodex's own table). */
  mcp_server: z
    .looseObject({
      /** Largest JSON-RPC message accepted on stdio, in bytes; a larger one gets an error reply. */
      max_message_bytes: z.number().int().positive().optional(),
      /** Most Streamable HTTP sessions open at once; an initialize beyond it is refused. */
      max_http_sessions: z.number().int().positive().optional(),
      /** An HTTP session with no request for this long is closed. */
      http_session_idle_timeout_ms: z.number().int().positive().optional(),
    })
    .optional(),
  /** Limits of `tscodex app-server` itself (tscodex's own table). */
  app_server: z
    .looseObject({
      /** How long a keyed turn (turn/start `clientUserMessageId`) whose client left waits for it to resend. */
      reconnect_grace_ms: z.number().int().nonnegative().optional(),
    })
    .optional(),
  // Threads: context compaction and rollouts.
  /** Compact the history once a response's input + output tokens reach this (default 90% of the window). */
  model_auto_compact_token_limit: z.number().int().positive().optional(),
  /** Replaces the built-in compaction prompt. */
  compact_prompt: z.string().min(1).optional(),
  /** A file (relative to the home) whose contents replace the built-in compaction prompt. */
  experimental_compact_prompt_file: z.string().optional(),
  /** fdatasync rollout files after each write (survives power loss; slower). */
  rollout_fsync: z.boolean().optional(),
  /** `[auto_review]`: the reviewer of approvals_reviewer = "auto_review" (Codex's `policy`, and ours). */
  auto_review: z
    .looseObject({
      /** Replaces the default tenant policy in the reviewer's instructions. */
      policy: z.string().min(1).optional(),
      /** The reviewer's model and provider (a [model_providers] id); default: the session's. */
      model: z.string().min(1).optional(),
      model_provider: z.string().min(1).optional(),
      reasoning_effort: z.enum(["none", "minimal", "low", "medium", "high", "xhigh"]).optional(),
      /** A review that takes longer fails closed (default 90000). */
      timeout_ms: z.number().int().positive().optional(),
      /** Where a person is attached, a denial goes to them instead of ending there (default true). */
      escalate_denials: z.boolean().optional(),
      /** The breaker: the turn ends after this many denials in a row (default 3) ... */
      max_consecutive_denials: z.number().int().positive().optional(),
      /** ... or this many among the last `denial_window` reviews (default 10 of 50). */
      max_denials: z.number().int().positive().optional(),
      denial_window: z.number().int().positive().optional(),
    })
    .optional(),
  /** `[otel]`: OpenTelemetry export (Codex's keys; otel.ts). Absent: nothing is exported. */
  otel: otelConfigSchema.optional(),
  /** `[store]`: where threads live (JSONL rollouts under the home unless a database is named). */
  store: z
    .looseObject({
      /** `postgres://user:password@host:port/db`: threads in PostgreSQL, shared by every process on it. */
      url: z.string().min(1).optional(),
      /** How long opening a thread that another process holds waits before "thread busy". */
      lease_wait_ms: z.number().int().nonnegative().optional(),
    })
    .optional(),
});

export type ConfigFile = z.infer<typeof configFileSchema>;
export type ProviderConfig = z.infer<typeof providerSchema>;
export type PrefixRuleConfig = z.infer<typeof prefixRuleSchema>;
export type ShellEnvironmentPolicy = z.infer<typeof shellEnvironmentPolicySchema>;
export type ToolsConfig = z.infer<typeof toolsConfigSchema>;
export type AgentProfileConfig = z.infer<typeof agentProfileSchema>;
