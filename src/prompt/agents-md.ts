/**
 * AGENTS.md discovery: every directory from the git root down to cwd may hold project
 * instructions; `AGENTS.override.md` wins over `AGENTS.md` in its directory. The joined
 * text is cut (UTF-8 safe) at `project_doc_max_bytes`.
 */
import { readFile } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { gitRootOf } from "../config/layers.js";

const CANDIDATES = ["AGENTS.override.md", "AGENTS.md"];

export interface ProjectDocs {
  text: string;
  files: string[];
}

/**
 * Nearest directory at or above `cwd` that holds this user's `.git` (dir or file), or null. The
 * same walk as the config layers' (config/layers.ts gitRootOf): another user's `/tmp/.git` must
 * not pull their `/tmp/AGENTS.md` into the prompt of a session in `/tmp/<dir>`.
 */
export async function findGitRoot(cwd: string): Promise<string | null> {
  return gitRootOf(cwd);
}

export async function loadProjectDocs(cwd: string, maxBytes: number): Promise<ProjectDocs | null> {
  if (maxBytes <= 0) return null;
  const root = (await findGitRoot(cwd)) ?? resolve(cwd);
  const dirs = directoriesBetween(root, resolve(cwd));
  const found = await Promise.all(dirs.map(readDocIn));
  const files: string[] = [];
  const parts: string[] = [];
  for (const doc of found) {
    if (!doc || doc.text.trim() === "") continue;
    files.push(doc.path);
    parts.push(doc.text.endsWith("\n") ? doc.text : `${doc.text}\n`);
  }
  if (parts.length === 0) return null;
  return { text: cutUtf8(parts.join("\n"), maxBytes), files };
}

/** The message body Codex sends for project docs. */
export function projectDocsMessage(cwd: string, docs: ProjectDocs): string {
  return `# AGENTS.md instructions for ${cwd}\n\n<INSTRUCTIONS>\n${docs.text}\n</INSTRUCTIONS>`;
}

function directoriesBetween(root: string, cwd: string): string[] {
  const dirs: string[] = [];
  let dir = cwd;
  while (true) {
    dirs.unshift(dir);
    if (dir === root) break;
    const parent = dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  return dirs;
}

async function readDocIn(dir: string): Promise<{ path: string; text: string } | null> {
  for (const name of CANDIDATES) {
    const path = join(dir, name);
    try {
      return { path, text: await readFile(path, "utf8") };
    } catch {
      // absent: try the next name
    }
  }
  return null;
}

function cutUtf8(text: string, maxBytes: number): string {
  const bytes = Buffer.from(text, "utf8");
  if (bytes.length <= maxBytes) return text;
  let end = maxBytes;
  // Step back over continuation bytes so the cut never splits a character.
  while (end > 0 && ((bytes[end] ?? 0) & 0xc0) === 0x80) end--;
  return bytes.subarray(0, end).toString("utf8");
}
