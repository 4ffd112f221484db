/**
 * Collaboration modes (Codex's `ModeKind`): "plan" asks the model to plan and propose, not act;
 * "default" is ordinary work. A turn that enters or leaves a mode records a developer message
 * opening with COLLABORATION_MODE_OPEN and a `Mode: <kind>` line; the item tracker reads the mode
 * back from that message, so a live thread and a replayed one agree on which turns planned.
 */
import { type MessageItem, messageText } from "./items.js";

export type ModeKind = "plan" | "default";
export const MODE_KINDS: readonly ModeKind[] = ["plan", "default"];

export interface CollaborationMode {
  mode: ModeKind;
  /** The client's own instructions for the mode; null: ours (prompt/collaboration-mode.ts). */
  developerInstructions: string | null;
}

export const COLLABORATION_MODE_OPEN = "<collaboration_mode>";
export const COLLABORATION_MODE_CLOSE = "</collaboration_mode>";

const MODE_LINE = /^<collaboration_mode>\s*Mode: (plan|default)\b/;

/** The mode a recorded developer message switches to; null when it is not a mode message. */
export function collaborationModeOf(item: MessageItem): ModeKind | null {
  if (item.role !== "developer") return null;
  const match = MODE_LINE.exec(messageText(item));
  return match ? (match[1] as ModeKind) : null;
}
