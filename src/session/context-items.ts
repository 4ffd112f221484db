/**
 * The context a turn opens with: the first turn's initial context (instructions, permissions,
 * environment), and for a later turn that changed them, the new permissions message or
 * environment context. Pure apart from reading the project's instruction files.
 */
import {
  buildInitialContext,
  collaborationModeMessage,
  environmentContext,
  permissionsMessage,
} from "../prompt/index.js";
import { developerMessage, type ResponseItem, userMessage } from "../protocol/items.js";
import { tmpdirOf } from "../protocol/permission-paths.js";
import type { ThreadServices } from "./services.js";
import { applyTurnOverrides, permissionsOf, type ThreadSettings, type TurnOverrides } from "./settings.js";

/** The settings after `overrides`, and the context items to record before the user's message. */
export async function turnContextItems(
  settings: ThreadSettings,
  services: ThreadServices,
  first: boolean,
  overrides: TurnOverrides | undefined,
): Promise<{ settings: ThreadSettings; items: ResponseItem[] }> {
  if (first) {
    const next = overrides ? applyTurnOverrides(settings, overrides) : settings;
    const items = await buildInitialContext({
      cwd: next.cwd,
      permissions: permissionsOf(next, tmpdirOf(services)),
      developerInstructions: services.developerInstructions,
      memories: services.memories,
      skills: services.skills?.message,
      projectDocMaxBytes: services.projectDocMaxBytes,
      userInstructions: services.userInstructions,
      shellPath: services.shellPath,
    });
    return { settings: next, items: [...items, ...modeMessages(settings, next, true)] };
  }
  if (!overrides) return { settings, items: [] };
  const next = applyTurnOverrides(settings, overrides);
  const items: ResponseItem[] = [];
  const before = permissionsMessage(permissionsOf(settings, tmpdirOf(services)));
  const after = permissionsMessage(permissionsOf(next, tmpdirOf(services)));
  if (after !== before) items.push(developerMessage(after));
  if (next.cwd !== settings.cwd) items.push(userMessage(environmentContext(next.cwd, services.shellPath)));
  items.push(...modeMessages(settings, next, false));
  return { settings: next, items };
}

/**
 * The mode message when the mode changed. A first turn needs none for plain default; a later
 * turn without a known mode (a resumed thread's history may hold any) always gets one.
 */
function modeMessages(before: ThreadSettings, after: ThreadSettings, first: boolean): ResponseItem[] {
  const mode = after.collaborationMode;
  if (!mode) return [];
  const previous = first ? undefined : before.collaborationMode;
  const unchanged = previous
    ? previous.mode === mode.mode && previous.developerInstructions === mode.developerInstructions
    : first && mode.mode === "default" && mode.developerInstructions === null;
  return unchanged ? [] : [developerMessage(collaborationModeMessage(mode))];
}
