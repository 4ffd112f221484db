/**
 * Tool selection: which tools a thread offers, from the model family, `[tools]` and
 * `[features]` config, and the wire API. Order follows Codex's requests (reference section 2,
 * tool-specs/index.json):
 *
 *   shell tool | exec_command + write_stdin, list_mcp_resources, list_mcp_resource_templates,
 *   read_mcp_resource, update_plan, request_user_input, apply_patch, grep_files, read_file,
 *   list_dir, web_search, view_image, spawn_agent, send_input, wait, close_agent, resume_agent,
 *   then the MCP servers' `mcp__…` tools and the client tools (per turn; see tools/tool-set.ts)
 *
 * The definitions are lazy: their specs come from built-tool-specs.ts, and a tool's module (with
 * zod, its parameter schema's language) is loaded when the model first calls it, so a turn that
 * calls no tool loads none of them.
 *
 * Switches (Codex's feature names, set by `--enable NAME` / `--disable NAME`):
 * - `unified_exec`: exec_command + write_stdin replace the shell tool.
 * - `shell_tool = false`: no shell tool at all.
 * - `apply_patch_freeform`: the freeform (grammar) apply_patch.
 * - `web_search_request` (live) / `web_search_cached`: the provider's web_search tool;
 *   `[tools] web_search = true` works too. Responses wire only.
 * - the file tools: on when the model's metadata lists them (`experimental_supported_tools`),
 *   or with our `file_tools` feature; `[tools] read_file|list_dir|grep_files = bool` decide
 *   one by one.
 * - view_image: on unless `[tools] view_image = false`.
 * - `collaboration_modes`: request_user_input. `collab`: the sub-agent tools (when the thread
 *   can host children: `collab` below).
 */
import {
  type ApplyPatchType,
  EXPERIMENTAL_TOOLS,
  type ExperimentalTool,
  type ModelFamily,
  type ShellType,
} from "../model/family.js";
import type { WireApi } from "../model/types.js";
import { builtToolSpecs } from "./built-tool-specs.js";
import type { AgentCollab } from "./builtin/agents.js";
import type { McpResourceSourceRef } from "./builtin/mcp-resources.js";
import { webSearchTool } from "./builtin/web-search.js";
import { BUILTIN_TOOLS, type BuiltinToolContext, type BuiltinToolKey } from "./catalog.js";
import type { ToolDefinition } from "./types.js";

/** The `[tools]` keys tool selection reads. */
export interface ToolsSwitches {
  shell_type?: ShellType | undefined;
  apply_patch?: ApplyPatchType | undefined;
  web_search?: boolean | undefined;
  view_image?: boolean | undefined;
  update_plan?: boolean | undefined;
  read_file?: boolean | undefined;
  list_dir?: boolean | undefined;
  grep_files?: boolean | undefined;
}

export interface ToolSelectionInput {
  family: ModelFamily;
  wireApi: WireApi;
  /** `[tools]` config. */
  tools: ToolsSwitches;
  /** `[features]` config (see the header for the names read here). */
  features: Record<string, boolean>;
  shellPath: string;
  /** The thread's MCP servers, for the resource tools (absent: no servers, empty lists). */
  mcpResources?: McpResourceSourceRef;
  /** The thread's sub-agent control, when it can host children (feature `collab`). */
  collab?: AgentCollab | undefined;
}

export interface ToolSelection {
  /** The classic shell tool; "none" when there is none (also when unified exec replaces it). */
  shellType: ShellType;
  /** exec_command + write_stdin are offered (in the shell tool's place). */
  unifiedExec: boolean;
  applyPatch: ApplyPatchType;
  /** The provider's web_search tool: live, cached-only, or not offered. */
  webSearch: "live" | "cached" | null;
  /** The experimental file tools offered, in Codex's order. */
  fileTools: ExperimentalTool[];
  viewImage: boolean;
  updatePlan: boolean;
}

export function selectTools(input: ToolSelectionInput): ToolSelection {
  const { tools, features } = input;
  let shellType: ShellType = tools.shell_type ?? input.family.shellType;
  if (features.shell_tool === false && !tools.shell_type) shellType = "none";
  const unifiedExec = features.unified_exec === true && shellType !== "none";
  if (unifiedExec) shellType = "none";
  let applyPatch: ApplyPatchType = tools.apply_patch ?? input.family.applyPatch;
  if (features.apply_patch_freeform === true && !tools.apply_patch) applyPatch = "freeform";
  let webSearch: ToolSelection["webSearch"] = null;
  if (features.web_search_request === true || tools.web_search === true) webSearch = "live";
  else if (features.web_search_cached === true) webSearch = "cached";
  // The chat wire has no custom, local_shell or provider tools. Codex silently drops them
  // (leaving a codex model unable to edit files); we offer the function forms instead.
  if (input.wireApi === "chat") {
    if (applyPatch === "freeform") applyPatch = "function";
    if (shellType === "local_shell") shellType = "shell";
    webSearch = null;
  }
  const modelTools = new Set(input.family.experimentalSupportedTools ?? []);
  const fileTools = EXPERIMENTAL_TOOLS.filter(
    (name) => tools[name] ?? features.file_tools ?? modelTools.has(name),
  );
  return {
    shellType,
    unifiedExec,
    applyPatch,
    webSearch,
    fileTools,
    viewImage: tools.view_image ?? true,
    updatePlan: tools.update_plan ?? true,
  };
}

/**
 * A built-in tool whose module is loaded on its first call: the spec, parallelism and payload
 * kinds come from built-tool-specs.ts; the catalog's loader builds the real definition, whose
 * handler then prepares every call.
 */
function lazyTool(key: BuiltinToolKey, context: BuiltinToolContext): ToolDefinition {
  const { spec, supportsParallel, kinds } = builtToolSpecs()[key];
  let loaded: Promise<ToolDefinition> | undefined;
  return {
    spec,
    supportsParallel,
    handler: {
      kinds,
      async prepare(invocation) {
        loaded ??= BUILTIN_TOOLS[key](context);
        return (await loaded).handler.prepare(invocation);
      },
    },
  };
}

const MCP_RESOURCE_TOOLS = [
  "list_mcp_resources",
  "list_mcp_resource_templates",
  "read_mcp_resource",
] as const satisfies readonly BuiltinToolKey[];
const AGENT_TOOLS = [
  "spawn_agent",
  "send_input",
  "wait",
  "close_agent",
  "resume_agent",
] as const satisfies readonly BuiltinToolKey[];

export function buildToolDefinitions(input: ToolSelectionInput): ToolDefinition[] {
  const selection = selectTools(input);
  const context: BuiltinToolContext = {
    shellPath: input.shellPath,
    mcpResources: input.mcpResources,
    collab: input.collab,
  };
  const keys: BuiltinToolKey[] = [];
  if (selection.unifiedExec) keys.push("exec_command", "write_stdin");
  if (selection.shellType === "shell_command") keys.push("shell_command");
  if (selection.shellType === "shell") keys.push("shell");
  if (selection.shellType === "local_shell") keys.push("local_shell");
  keys.push(...MCP_RESOURCE_TOOLS);
  if (selection.updatePlan) keys.push("update_plan");
  if (input.features.collaboration_modes === true) keys.push("request_user_input");
  if (selection.applyPatch === "freeform") keys.push("apply_patch_freeform");
  if (selection.applyPatch === "function") keys.push("apply_patch_function");
  keys.push(...selection.fileTools);
  const definitions = keys.map((key) => lazyTool(key, context));
  // web_search is the provider's tool: a spec with no handler module to load.
  if (selection.webSearch) definitions.push(webSearchTool({ live: selection.webSearch === "live" }));
  if (selection.viewImage) definitions.push(lazyTool("view_image", context));
  if (input.features.collab === true && input.collab) {
    for (const key of AGENT_TOOLS) definitions.push(lazyTool(key, context));
  }
  return definitions;
}

/** `get_memory`, offered when the thread has memories (see prompt/memories.ts). */
export function memoryTool(home: string): ToolDefinition {
  return lazyTool("get_memory", { home });
}
