/**
 * The developer message that tells the model which collaboration mode a turn runs in (Codex
 * records one when the mode changes). The opening lines are what the item tracker reads the
 * mode from (protocol/collaboration-mode.ts); the wording is ours.
 */
import {
  COLLABORATION_MODE_CLOSE,
  COLLABORATION_MODE_OPEN,
  type CollaborationMode,
} from "../protocol/collaboration-mode.js";
import { PLAN_CLOSE, PLAN_OPEN } from "../protocol/proposed-plan.js";

const PLAN_INSTRUCTIONS = [
  "You are planning with the user, not carrying the work out. Explore as much as you need to",
  "understand the task (read files, search, run commands that change nothing), ask the user about",
  "choices only they can make, and do not edit files or run anything that changes the workspace.",
  `When the plan is ready, write it once inside ${PLAN_OPEN} and ${PLAN_CLOSE} on lines of their own:`,
  "a short title, the steps in order, the files each step touches and how the result will be checked.",
  "Text outside the block is your message to the user; the block is shown to them as the plan.",
].join("\n");

const DEFAULT_INSTRUCTIONS = [
  "You are in default mode: carry out the work, not only plan it (any earlier planning mode has",
  "ended). Edit files and run commands as the task needs, within the permissions in force.",
].join("\n");

/** The mode message for `mode`: the client's instructions when it gave some, else ours. */
export function collaborationModeMessage(mode: CollaborationMode): string {
  const body =
    mode.developerInstructions ?? (mode.mode === "plan" ? PLAN_INSTRUCTIONS : DEFAULT_INSTRUCTIONS);
  return `${COLLABORATION_MODE_OPEN}\nMode: ${mode.mode}\n${body}\n${COLLABORATION_MODE_CLOSE}`;
}
