/**
 * The built-in tools' specs (what the model sees), keyed by variant, so a thread can offer its
 * tools without loading their modules (and zod, which their parameter schemas are written in).
 * From source they are computed here from the tool modules; scripts/build.mjs replaces this
 * module's source with the computed table, so the bundle loads a tool's module only when the
 * model first calls it (tools/registry.ts). No spec depends on its factory's options: the
 * options below are placeholders the specs never read.
 */
import type { ToolSpec } from "../protocol/tool-spec.js";
import { type AgentCollab, agentTools } from "./builtin/agents.js";
import { applyPatchFreeformTool, applyPatchJsonTool } from "./builtin/apply-patch.js";
import { execCommandTool } from "./builtin/exec-command.js";
import { getMemoryTool } from "./builtin/get-memory.js";
import { grepFilesTool } from "./builtin/grep-files.js";
import { listDirTool } from "./builtin/list-dir.js";
import { mcpResourceTools } from "./builtin/mcp-resources.js";
import { readFileTool } from "./builtin/read-file.js";
import { requestUserInputTool } from "./builtin/request-user-input.js";
import { localShellTool, shellTool } from "./builtin/shell.js";
import { shellCommandTool } from "./builtin/shell-command.js";
import { updatePlanTool } from "./builtin/update-plan.js";
import { viewImageTool } from "./builtin/view-image.js";
import { writeStdinTool } from "./builtin/write-stdin.js";
import type { ToolDefinition, ToolKind } from "./types.js";

/** What a tool's definition shows before its module is loaded. */
export interface BuiltToolSpec {
  spec: ToolSpec;
  supportsParallel: boolean;
  /** Its handler's payload kinds. */
  kinds: readonly ToolKind[];
}

/** The variants: a tool's name, or name_variant where one name has two specs. */
export type BuiltinToolKey =
  | "shell"
  | "local_shell"
  | "shell_command"
  | "exec_command"
  | "write_stdin"
  | "list_mcp_resources"
  | "list_mcp_resource_templates"
  | "read_mcp_resource"
  | "update_plan"
  | "request_user_input"
  | "apply_patch_freeform"
  | "apply_patch_function"
  | "grep_files"
  | "read_file"
  | "list_dir"
  | "view_image"
  | "spawn_agent"
  | "send_input"
  | "wait"
  | "close_agent"
  | "resume_agent"
  | "get_memory";

/** Every built-in tool's spec, computed from the tool modules (the bundle carries the result). */
export function computeToolSpecs(): Record<BuiltinToolKey, BuiltToolSpec> {
  const entry = (tool: ToolDefinition): BuiltToolSpec => ({
    spec: tool.spec,
    supportsParallel: tool.supportsParallel,
    kinds: tool.handler.kinds,
  });
  const byName = (tools: ToolDefinition[], name: string): BuiltToolSpec => {
    const tool = tools.find((t) => t.spec.type === "function" && t.spec.name === name);
    if (!tool) throw new Error(`no built-in tool ${name}`);
    return entry(tool);
  };
  const mcp = mcpResourceTools(() => null);
  const agents = agentTools(specOnlyCollab);
  return {
    shell: entry(shellTool()),
    local_shell: entry(localShellTool()),
    shell_command: entry(shellCommandTool()),
    exec_command: entry(execCommandTool()),
    write_stdin: entry(writeStdinTool()),
    list_mcp_resources: byName(mcp, "list_mcp_resources"),
    list_mcp_resource_templates: byName(mcp, "list_mcp_resource_templates"),
    read_mcp_resource: byName(mcp, "read_mcp_resource"),
    update_plan: entry(updatePlanTool()),
    request_user_input: entry(requestUserInputTool()),
    apply_patch_freeform: entry(applyPatchFreeformTool()),
    apply_patch_function: entry(applyPatchJsonTool()),
    grep_files: entry(grepFilesTool()),
    read_file: entry(readFileTool()),
    list_dir: entry(listDirTool()),
    view_image: entry(viewImageTool()),
    spawn_agent: byName(agents, "spawn_agent"),
    send_input: byName(agents, "send_input"),
    wait: byName(agents, "wait"),
    close_agent: byName(agents, "close_agent"),
    resume_agent: byName(agents, "resume_agent"),
    get_memory: entry(getMemoryTool({ home: "" })),
  };
}

const notForCalls = (): never => {
  throw new Error("spec-only collab");
};
/** Agent tools built only to read their specs; never called. */
const specOnlyCollab: AgentCollab = {
  spawn: notForCalls,
  send: notForCalls,
  resume: notForCalls,
  wait: notForCalls,
  close: notForCalls,
};

/** The specs: computed on first use from source, the build's table in the bundle. */
export function builtToolSpecs(): Readonly<Record<BuiltinToolKey, BuiltToolSpec>> {
  computed ??= computeToolSpecs();
  return computed;
}

let computed: Record<BuiltinToolKey, BuiltToolSpec> | undefined;
