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
import { type BuiltinToolKey, builtToolSpecs } from "./built-tool-specs.js";
import type { AgentCollab } from "./builtin/agents.js";
import type { McpResourceSourceRef } from "./builtin/mcp-resources.js";
import { webSearchTool } from "./builtin/web-search.js";
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
 * kinds come from built-tool-specs.ts; `load` builds the real definition, whose handler then
 * prepares every call.
 */
function lazyTool(key: BuiltinToolKey, load: () => Promise<ToolDefinition>): ToolDefinition {
  const { spec, supportsParallel, kinds } = builtToolSpecs()[key];
  let loaded: Promise<ToolDefinition> | undefined;
  return {
    spec,
    supportsParallel,
    handler: {
      kinds,
      async prepare(invocation) {
        loaded ??= load();
        return (await loaded).handler.prepare(invocation);
      },
    },
  };
}

/** The one tool called `name` among several a module builds together. */
function named(name: string): (tools: ToolDefinition[]) => ToolDefinition {
  return (tools) => {
    const tool = tools.find((t) => t.spec.type === "function" && t.spec.name === name);
    if (!tool) throw new Error(`no built-in tool ${name}`);
    return tool;
  };
}

const FILE_TOOLS: Record<ExperimentalTool, () => ToolDefinition> = {
  grep_files: () =>
    lazyTool("grep_files", async () => (await import("./builtin/grep-files.js")).grepFilesTool()),
  read_file: () => lazyTool("read_file", async () => (await import("./builtin/read-file.js")).readFileTool()),
  list_dir: () => lazyTool("list_dir", async () => (await import("./builtin/list-dir.js")).listDirTool()),
};

const MCP_RESOURCE_TOOLS = [
  "list_mcp_resources",
  "list_mcp_resource_templates",
  "read_mcp_resource",
] as const;
const AGENT_TOOLS = ["spawn_agent", "send_input", "wait", "close_agent", "resume_agent"] as const;

export function buildToolDefinitions(input: ToolSelectionInput): ToolDefinition[] {
  const selection = selectTools(input);
  const { shellPath } = input;
  const definitions: ToolDefinition[] = [];
  if (selection.unifiedExec) {
    definitions.push(
      lazyTool("exec_command", async () =>
        (await import("./builtin/exec-command.js")).execCommandTool({ shellPath }),
      ),
      lazyTool("write_stdin", async () => (await import("./builtin/write-stdin.js")).writeStdinTool()),
    );
  }
  if (selection.shellType === "shell_command") {
    definitions.push(
      lazyTool("shell_command", async () =>
        (await import("./builtin/shell-command.js")).shellCommandTool({ shellPath }),
      ),
    );
  }
  if (selection.shellType === "shell")
    definitions.push(lazyTool("shell", async () => (await import("./builtin/shell.js")).shellTool()));
  if (selection.shellType === "local_shell")
    definitions.push(
      lazyTool("local_shell", async () => (await import("./builtin/shell.js")).localShellTool()),
    );
  const mcpResources = input.mcpResources ?? (() => null);
  for (const name of MCP_RESOURCE_TOOLS) {
    definitions.push(
      lazyTool(name, async () =>
        named(name)((await import("./builtin/mcp-resources.js")).mcpResourceTools(mcpResources)),
      ),
    );
  }
  if (selection.updatePlan)
    definitions.push(
      lazyTool("update_plan", async () => (await import("./builtin/update-plan.js")).updatePlanTool()),
    );
  if (input.features.collaboration_modes === true)
    definitions.push(
      lazyTool("request_user_input", async () =>
        (await import("./builtin/request-user-input.js")).requestUserInputTool(),
      ),
    );
  if (selection.applyPatch === "freeform")
    definitions.push(
      lazyTool("apply_patch_freeform", async () =>
        (await import("./builtin/apply-patch.js")).applyPatchFreeformTool(),
      ),
    );
  if (selection.applyPatch === "function")
    definitions.push(
      lazyTool("apply_patch_function", async () =>
        (await import("./builtin/apply-patch.js")).applyPatchJsonTool(),
      ),
    );
  for (const name of selection.fileTools) definitions.push(FILE_TOOLS[name]());
  if (selection.webSearch) definitions.push(webSearchTool({ live: selection.webSearch === "live" }));
  if (selection.viewImage)
    definitions.push(
      lazyTool("view_image", async () => (await import("./builtin/view-image.js")).viewImageTool()),
    );
  const collab = input.collab;
  if (input.features.collab === true && collab) {
    for (const name of AGENT_TOOLS) {
      definitions.push(
        lazyTool(name, async () => named(name)((await import("./builtin/agents.js")).agentTools(collab))),
      );
    }
  }
  return definitions;
}

/** `get_memory`, offered when the thread has memories (see prompt/memories.ts). */
export function memoryTool(home: string): ToolDefinition {
  return lazyTool("get_memory", async () =>
    (await import("./builtin/get-memory.js")).getMemoryTool({ home }),
  );
}
