/**
 * The one catalog of built-in tools: each variant's key and how to load its definition. The
 * registry (registry.ts) picks keys and loads a tool's module on its first call; the build
 * (scripts/build.mjs, through built-tool-specs.ts) loads every entry once to record the specs
 * the bundle carries. A new built-in tool is one entry here and one file in builtin/.
 * Every load is a dynamic import, so importing the catalog loads no tool module (and no zod).
 */
import type { AgentCollab } from "./builtin/agents.js";
import type { McpResourceSourceRef } from "./builtin/mcp-resources.js";
import type { ToolDefinition } from "./types.js";

/** What the thread gives the tools that need it; each loader reads only its own part. */
export interface BuiltinToolContext {
  /** The user's shell, for shell_command and exec_command (their default otherwise). */
  shellPath?: string | undefined;
  /** The thread's MCP servers, for the resource tools (absent: no servers). */
  mcpResources?: McpResourceSourceRef | undefined;
  /** The thread's sub-agent control, for the agent tools. */
  collab?: AgentCollab | undefined;
  /** The home whose memories get_memory reads. */
  home?: string | undefined;
}

type Loader = (context: BuiltinToolContext) => Promise<ToolDefinition>;

/** The one tool called `name` among several a module builds together. */
function named(tools: ToolDefinition[], name: string): ToolDefinition {
  const tool = tools.find((t) => t.spec.type === "function" && t.spec.name === name);
  if (!tool) throw new Error(`no built-in tool ${name}`);
  return tool;
}

function required<T>(value: T | undefined, what: string, tool: string): T {
  if (value === undefined) throw new Error(`built-in tool ${tool} needs ${what}`);
  return value;
}

const mcpResource =
  (name: string): Loader =>
  async ({ mcpResources }) =>
    named((await import("./builtin/mcp-resources.js")).mcpResourceTools(mcpResources ?? (() => null)), name);

const agent =
  (name: string): Loader =>
  async ({ collab }) =>
    named(
      (await import("./builtin/agents.js")).agentTools(required(collab, "a sub-agent control", name)),
      name,
    );

/** Every built-in tool, by variant: a tool's name, or name_variant where one name has two specs. */
export const BUILTIN_TOOLS = {
  shell: async () => (await import("./builtin/shell.js")).shellTool(),
  local_shell: async () => (await import("./builtin/shell.js")).localShellTool(),
  shell_command: async ({ shellPath }) =>
    (await import("./builtin/shell-command.js")).shellCommandTool(shellPath ? { shellPath } : {}),
  exec_command: async ({ shellPath }) =>
    (await import("./builtin/exec-command.js")).execCommandTool(shellPath ? { shellPath } : {}),
  write_stdin: async () => (await import("./builtin/write-stdin.js")).writeStdinTool(),
  list_mcp_resources: mcpResource("list_mcp_resources"),
  list_mcp_resource_templates: mcpResource("list_mcp_resource_templates"),
  read_mcp_resource: mcpResource("read_mcp_resource"),
  update_plan: async () => (await import("./builtin/update-plan.js")).updatePlanTool(),
  request_user_input: async () => (await import("./builtin/request-user-input.js")).requestUserInputTool(),
  apply_patch_freeform: async () => (await import("./builtin/apply-patch.js")).applyPatchFreeformTool(),
  apply_patch_function: async () => (await import("./builtin/apply-patch.js")).applyPatchJsonTool(),
  grep_files: async () => (await import("./builtin/grep-files.js")).grepFilesTool(),
  read_file: async () => (await import("./builtin/read-file.js")).readFileTool(),
  list_dir: async () => (await import("./builtin/list-dir.js")).listDirTool(),
  view_image: async () => (await import("./builtin/view-image.js")).viewImageTool(),
  spawn_agent: agent("spawn_agent"),
  send_input: agent("send_input"),
  wait: agent("wait"),
  close_agent: agent("close_agent"),
  resume_agent: agent("resume_agent"),
  get_memory: async ({ home }) =>
    (await import("./builtin/get-memory.js")).getMemoryTool({ home: required(home, "a home", "get_memory") }),
} satisfies Record<string, Loader>;

export type BuiltinToolKey = keyof typeof BUILTIN_TOOLS;

/** The catalog's keys, in the order above. */
export const BUILTIN_TOOL_KEYS = Object.keys(BUILTIN_TOOLS) as BuiltinToolKey[];
