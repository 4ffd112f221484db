/**
 * Prompt assembly.
 * Responsibilities: the base instructions, and the context items that open a thread's
 * history, in Codex's order: permissions (developer), developer instructions (developer,
 * when given), the memories' summaries (developer, ours, when there are memories), AGENTS.md
 * (user, when found), environment context (user). The user's
 * prompt follows as its own message.
 */
import { developerMessage, type ResponseItem, userMessage } from "../protocol/items.js";
import { loadProjectDocs, projectDocsMessage } from "./agents-md.js";
import { environmentContext } from "./environment.js";
import { type PermissionsInput, permissionsMessage } from "./permissions.js";

export { loadBaseInstructions } from "./base-instructions.js";
export { environmentContext, userShellPath } from "./environment.js";
export { ImageInputError, imageFileToDataUrl } from "./images.js";
export { type PermissionsInput, permissionsMessage } from "./permissions.js";

export interface InitialContextInput {
  cwd: string;
  permissions: PermissionsInput;
  developerInstructions?: string | undefined;
  /** The memories message (prompt/memories.ts), when the thread has memories. */
  memories?: string | null | undefined;
  projectDocMaxBytes: number;
  shellPath: string;
}

export async function buildInitialContext(input: InitialContextInput): Promise<ResponseItem[]> {
  const items: ResponseItem[] = [developerMessage(permissionsMessage(input.permissions))];
  if (input.developerInstructions) items.push(developerMessage(input.developerInstructions));
  if (input.memories) items.push(developerMessage(input.memories));
  const docs = await loadProjectDocs(input.cwd, input.projectDocMaxBytes);
  if (docs) items.push(userMessage(projectDocsMessage(input.cwd, docs)));
  items.push(userMessage(environmentContext(input.cwd, input.shellPath)));
  return items;
}
