/**
 * Collaboration modes: collaborationMode/list (the presets a client offers) and what turn/start's
 * `collaborationMode` changes. Codex 0.169: the mode's model and reasoning effort win over the
 * turn's own fields, and its developer instructions (null: ours) are what the model is told.
 */
import type { TurnOverrides } from "../../../session/thread.js";
import type { ResultOf } from "../protocol/client-requests.js";
import type { CollaborationModeParam } from "../protocol/collaboration-requests.js";

/** The presets: each keeps the thread's model and effort (null) and sets only the mode. */
export async function collaborationModeList(): Promise<ResultOf<"collaborationMode/list">> {
  return {
    data: [
      { name: "Plan", mode: "plan", model: null, reasoning_effort: null },
      { name: "Default", mode: "default", model: null, reasoning_effort: null },
    ],
  };
}

/** The overrides turn/start's `collaborationMode` stands for (none when it has none). */
export function collaborationOverrides(mode: CollaborationModeParam | null | undefined): TurnOverrides {
  if (!mode) return {};
  const { model, reasoning_effort: effort, developer_instructions: instructions } = mode.settings;
  return {
    collaborationMode: { mode: mode.mode, developerInstructions: instructions ?? null },
    ...(model ? { model } : {}),
    ...(effort ? { effort } : {}),
  };
}
