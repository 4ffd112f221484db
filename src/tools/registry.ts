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
import { type AgentCollab, agentTools } from "./builtin/agents.js";
import { applyPatchFreeformTool, applyPatchJsonTool } from "./builtin/apply-patch.js";
import { execCommandTool } from "./builtin/exec-command.js";
import { grepFilesTool } from "./builtin/grep-files.js";
import { listDirTool } from "./builtin/list-dir.js";
import { type McpResourceSourceRef, mcpResourceTools } from "./builtin/mcp-resources.js";
import { readFileTool } from "./builtin/read-file.js";
import { requestUserInputTool } from "./builtin/request-user-input.js";
import { localShellTool, shellTool } from "./builtin/shell.js";
import { shellCommandTool } from "./builtin/shell-command.js";
import { updatePlanTool } from "./builtin/update-plan.js";
import { viewImageTool } from "./builtin/view-image.js";
import { webSearchTool } from "./builtin/web-search.js";
import { writeStdinTool } from "./builtin/write-stdin.js";
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

const FILE_TOOLS: Record<ExperimentalTool, () => ToolDefinition> = {
  grep_files: grepFilesTool,
  read_file: readFileTool,
  list_dir: listDirTool,
};

export function buildToolDefinitions(input: ToolSelectionInput): ToolDefinition[] {
  const selection = selectTools(input);
  const definitions: ToolDefinition[] = [];
  if (selection.unifiedExec) {
    definitions.push(execCommandTool({ shellPath: input.shellPath }), writeStdinTool());
  }
  if (selection.shellType === "shell_command")
    definitions.push(shellCommandTool({ shellPath: input.shellPath }));
  if (selection.shellType === "shell") definitions.push(shellTool());
  if (selection.shellType === "local_shell") definitions.push(localShellTool());
  definitions.push(...mcpResourceTools(input.mcpResources ?? (() => null)));
  if (selection.updatePlan) definitions.push(updatePlanTool());
  if (input.features.collaboration_modes === true) definitions.push(requestUserInputTool());
  if (selection.applyPatch === "freeform") definitions.push(applyPatchFreeformTool());
  if (selection.applyPatch === "function") definitions.push(applyPatchJsonTool());
  for (const name of selection.fileTools) definitions.push(FILE_TOOLS[name]());
  if (selection.webSearch) definitions.push(webSearchTool({ live: selection.webSearch === "live" }));
  if (selection.viewImage) definitions.push(viewImageTool());
  if (input.features.collab === true && input.collab) definitions.push(...agentTools(input.collab));
  return definitions;
}
