/**
 * Prompt assembly.
 * Responsibilities: the base instructions, and the context items that open a thread's
 * history, in Codex's order: permissions (developer), developer instructions (developer,
 * when given), the memories' summaries (developer, ours, when there are memories), AGENTS.md
 * (user, when found), environment context (user). The user's
 * prompt follows as its own message.
 */
import { developerMessage, type ResponseItem, userMessage } from "../protocol/items.js";
import { loadProjectDocs, type ProjectDocs, projectDocsMessage } from "./agents-md.js";
import { environmentContext } from "./environment.js";
import { type PermissionsInput, permissionsMessage } from "./permissions.js";

export { loadBaseInstructions } from "./base-instructions.js";
export { collaborationModeMessage } from "./collaboration-mode.js";
export { environmentContext, userShellPath } from "./environment.js";
export { ImageInputError, imageFileToDataUrl } from "./images.js";
export { type PermissionsInput, permissionsMessage } from "./permissions.js";

export interface InitialContextInput {
  cwd: string;
  permissions: PermissionsInput;
  developerInstructions?: string | undefined;
  /** The memories message (prompt/memories.ts), when the thread has memories. */
  memories?: string | null | undefined;
  /** The `<skills_instructions>` message (prompt/skills.ts), when there are skills. */
  skills?: string | null | undefined;
  projectDocMaxBytes: number;
  /** The user's global AGENTS.md: first in the AGENTS.md message, before the project's docs. */
  userInstructions?: string | undefined;
  shellPath: string;
}

/** Codex's joining of the global instructions and the project docs in one message. */
function withUserInstructions(user: string | undefined, project: ProjectDocs | null): ProjectDocs | null {
  if (!user?.trim()) return project;
  const text = user.replace(/\n+$/, "");
  if (!project) return { text, files: [] };
  return { text: `${text}\n\n--- project-doc ---\n\n${project.text}`, files: project.files };
}

export async function buildInitialContext(input: InitialContextInput): Promise<ResponseItem[]> {
  const items: ResponseItem[] = [developerMessage(permissionsMessage(input.permissions))];
  if (input.developerInstructions) items.push(developerMessage(input.developerInstructions));
  if (input.memories) items.push(developerMessage(input.memories));
  if (input.skills) items.push(developerMessage(input.skills));
  const project = await loadProjectDocs(input.cwd, input.projectDocMaxBytes);
  const docs = withUserInstructions(input.userInstructions, project);
  if (docs) items.push(userMessage(projectDocsMessage(input.cwd, docs)));
  items.push(userMessage(environmentContext(input.cwd, input.shellPath)));
  return items;
}
