/**
 * Tool selection: which tools a thread offers, from the model family, `[tools]` and
 * `[features]` config, and the wire API. Order follows Codex's request (reference
 * section 2): shell tool, update_plan, apply_patch.
 */
import type { ApplyPatchType, ModelFamily, ShellType } from "../model/family.js";
import type { WireApi } from "../model/types.js";
import { applyPatchFreeformTool, applyPatchJsonTool } from "./builtin/apply-patch.js";
import { localShellTool, shellTool } from "./builtin/shell.js";
import { shellCommandTool } from "./builtin/shell-command.js";
import { updatePlanTool } from "./builtin/update-plan.js";
import type { ToolDefinition } from "./types.js";

export interface ToolSelectionInput {
  family: ModelFamily;
  wireApi: WireApi;
  /** `[tools]` config. */
  tools: { shell_type?: ShellType | undefined; apply_patch?: ApplyPatchType | undefined };
  /** `[features]` config (Codex's names): shell_tool, apply_patch_freeform. */
  features: Record<string, boolean>;
  shellPath: string;
}

export interface ToolSelection {
  shellType: ShellType;
  applyPatch: ApplyPatchType;
}

export function selectTools(input: ToolSelectionInput): ToolSelection {
  let shellType: ShellType = input.tools.shell_type ?? input.family.shellType;
  if (input.features.shell_tool === false && !input.tools.shell_type) shellType = "none";
  let applyPatch: ApplyPatchType = input.tools.apply_patch ?? input.family.applyPatch;
  if (input.features.apply_patch_freeform === true && !input.tools.apply_patch) applyPatch = "freeform";
  // The chat wire has no custom or local_shell tools. Codex silently drops them (leaving a
  // codex model unable to edit files); we offer the function forms instead.
  if (input.wireApi === "chat") {
    if (applyPatch === "freeform") applyPatch = "function";
    if (shellType === "local_shell") shellType = "shell";
  }
  return { shellType, applyPatch };
}

export function buildToolDefinitions(input: ToolSelectionInput): ToolDefinition[] {
  const { shellType, applyPatch } = selectTools(input);
  const definitions: ToolDefinition[] = [];
  if (shellType === "shell_command") definitions.push(shellCommandTool({ shellPath: input.shellPath }));
  if (shellType === "shell") definitions.push(shellTool());
  if (shellType === "local_shell") definitions.push(localShellTool());
  definitions.push(updatePlanTool());
  if (applyPatch === "freeform") definitions.push(applyPatchFreeformTool());
  if (applyPatch === "function") definitions.push(applyPatchJsonTool());
  return definitions;
}
