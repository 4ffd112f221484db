/**
 * A session's approval presets (ACP modes, codex-acp's ids) and its config options (mode, model,
 * reasoning effort). A mode is an approval policy and a sandbox mode, applied from the next turn;
 * a permission profile in force stays in force until a mode names another sandbox.
 */
import type { SessionConfigOption, SessionModeState } from "@agentclientprotocol/sdk";
import { knownModelSlugs, reasoningEfforts } from "../../model/family.js";
import type { ApprovalPolicy, SandboxMode } from "../../protocol/policy.js";

export interface ModePreset {
  id: string;
  name: string;
  description: string;
  approvalPolicy: ApprovalPolicy;
  sandboxMode: SandboxMode;
}

/** codex-acp's ids (its `agent` mode is auto review there; here it asks the user). */
export const MODES: readonly ModePreset[] = [
  {
    id: "read-only",
    name: "Read-only",
    description: "Reads and answers; asks before changing anything or using the network.",
    approvalPolicy: "on-request",
    sandboxMode: "read-only",
  },
  {
    id: "agent",
    name: "Agent",
    description: "Edits and runs commands in the workspace; asks before going outside it or online.",
    approvalPolicy: "on-request",
    sandboxMode: "workspace-write",
  },
  {
    id: "agent-full-access",
    name: "Full access",
    description: "Runs anything without asking, with the network and the whole disk.",
    approvalPolicy: "never",
    sandboxMode: "danger-full-access",
  },
];

export const DEFAULT_MODE = "agent";

export function modePreset(id: string): ModePreset | undefined {
  return MODES.find((mode) => mode.id === id);
}

/** The mode a configured policy pair reads as, when one matches exactly. */
export function modeOf(approvalPolicy: ApprovalPolicy, sandboxMode: SandboxMode): string {
  return (
    MODES.find((mode) => mode.approvalPolicy === approvalPolicy && mode.sandboxMode === sandboxMode)?.id ??
    DEFAULT_MODE
  );
}

export function modeState(current: string): SessionModeState {
  return {
    currentModeId: current,
    availableModes: MODES.map(({ id, name, description }) => ({ id, name, description })),
  };
}

/** What a session's options say now. */
export interface SessionChoices {
  mode: string;
  model: string;
  /** null: the model takes no reasoning effort. */
  effort: string | null;
}

/** The session's config options: mode, model (the configured one first), reasoning effort. */
export function configOptions(choices: SessionChoices, configuredModel: string): SessionConfigOption[] {
  const models = [...new Set([configuredModel, choices.model, ...knownModelSlugs()])];
  const options: SessionConfigOption[] = [
    {
      id: "mode",
      name: "Approval mode",
      category: "mode",
      type: "select",
      currentValue: choices.mode,
      options: MODES.map(({ id, name, description }) => ({ value: id, name, description })),
    },
    {
      id: "model",
      name: "Model",
      category: "model",
      type: "select",
      currentValue: choices.model,
      options: models.map((slug) => ({ value: slug, name: slug })),
    },
  ];
  const efforts = reasoningEfforts(choices.model);
  if (efforts.length > 0 && choices.effort)
    options.push({
      id: "reasoning_effort",
      name: "Reasoning effort",
      category: "thought_level",
      type: "select",
      currentValue: choices.effort,
      options: efforts.map((effort) => ({ value: effort, name: effort })),
    });
  return options;
}
