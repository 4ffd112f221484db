/** Small file-system questions several layers ask: is it executable, where is it on $PATH, what does it say. */
import { access, constants, readFile } from "node:fs/promises";
import { delimiter, join } from "node:path";

export async function isExecutable(path: string): Promise<boolean> {
  try {
    await access(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The first executable `name` in $PATH, then in `fallbackDirs`; null when there is none. */
export async function findOnPath(name: string, fallbackDirs: readonly string[] = []): Promise<string | null> {
  const dirs = (process.env.PATH ?? "").split(delimiter).filter(Boolean);
  for (const dir of [...dirs, ...fallbackDirs]) {
    const path = join(dir, name);
    if (await isExecutable(path)) return path;
  }
  return null;
}

/** The file's text, or "" when it does not exist (other errors are thrown). */
export async function readTextOrEmpty(path: string): Promise<string> {
  try {
    return await readFile(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return "";
    throw error;
  }
}
