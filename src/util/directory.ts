import { statSync } from "node:fs";
import { stat } from "node:fs/promises";
import { dirname, isAbsolute } from "node:path";

/**
 * Why `path` cannot be a working directory (it must be absolute, exist, and be a directory),
 * or undefined when it can. `what` names it in the message, e.g. "-C" or "cwd".
 */
export async function workingDirectoryProblem(path: string, what: string): Promise<string | undefined> {
  if (!isAbsolute(path)) return `${what} ${path} is not an absolute path`;
  try {
    const info = await stat(path);
    return info.isDirectory() ? undefined : `${what} ${path} is not a directory`;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return `${what} ${path} does not exist`;
    return `${what} ${path} cannot be used: ${code ?? String(error)}`;
  }
}

/**
 * The process's working directory, or undefined when it was deleted under the process (Node's
 * `process.cwd()` then throws `ENOENT ... uv_cwd`).
 */
export function currentDirectory(): string | undefined {
  try {
    return process.cwd();
  } catch {
    return undefined;
  }
}

/** Why a file cannot be written at `path` (its directory is missing or not one), or undefined. */
export async function outputFileProblem(path: string, what: string): Promise<string | undefined> {
  const directory = dirname(path);
  try {
    const info = await stat(directory);
    return info.isDirectory() ? undefined : `${what} ${path}: ${directory} is not a directory`;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return `${what} ${path}: directory ${directory} does not exist`;
    return `${what} ${path}: ${directory} cannot be used: ${code ?? String(error)}`;
  }
}

/** workingDirectoryProblem, checked synchronously (for an API that must refuse at once). */
export function workingDirectoryProblemSync(path: string, what: string): string | undefined {
  if (!isAbsolute(path)) return `${what} ${path} is not an absolute path`;
  try {
    return statSync(path).isDirectory() ? undefined : `${what} ${path} is not a directory`;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return `${what} ${path} does not exist`;
    return `${what} ${path} cannot be used: ${code ?? String(error)}`;
  }
}
