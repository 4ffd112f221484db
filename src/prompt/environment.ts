/** `<environment_context>`: where the agent is and which shell runs its commands. */
import { basename } from "node:path";

export function userShellPath(env: NodeJS.ProcessEnv = process.env): string {
  const shell = env.SHELL;
  if (shell && /\/(bash|zsh|sh)$/.test(shell)) return shell;
  return "/bin/bash";
}

export function environmentContext(cwd: string, shellPath: string): string {
  return `<environment_context>\n  <cwd>${cwd}</cwd>\n  <shell>${basename(shellPath)}</shell>\n</environment_context>`;
}
