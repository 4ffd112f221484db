/**
 * The reviewer's read-only checks: before it answers, the reviewer may read a file, list a
 * directory or search file contents, to see what an action would touch. Read-only by construction:
 * plain reads of the filesystem and ripgrep with fixed arguments (no shell, no writes, no network),
 * each answer bounded, a few rounds at most; a failure is an answer the reviewer reads.
 */
import { readdir, readFile, stat } from "node:fs/promises";
import { isAbsolute, resolve } from "node:path";
import type { FunctionToolSpec } from "../../protocol/tool-spec.js";
import { runRipgrep } from "../../tools/files/ripgrep.js";
import { errorMessage } from "../../util/errors.js";

/** Rounds of checks before the reviewer must answer (the last request offers no tools). */
export const MAX_CHECK_ROUNDS = 3;
const MAX_READ_BYTES = 20_000;
const MAX_LINES = 200;
const SEARCH_TIMEOUT_MS = 5_000;

const pathParameter = {
  type: "string",
  description: "A path, absolute or relative to the working directory.",
};

export const CHECK_TOOLS: FunctionToolSpec[] = [
  {
    type: "function",
    name: "read_file",
    description: "Read a text file (its first 200 lines, or from `offset`, 1-based).",
    strict: false,
    parameters: {
      type: "object",
      properties: { path: pathParameter, offset: { type: "integer", minimum: 1 } },
      required: ["path"],
    },
  },
  {
    type: "function",
    name: "list_dir",
    description: "List a directory's entries (directories end with /).",
    strict: false,
    parameters: { type: "object", properties: { path: pathParameter }, required: ["path"] },
  },
  {
    type: "function",
    name: "search_files",
    description:
      "Search file contents for a regular expression (ripgrep), under `path` (default: the working directory).",
    strict: false,
    parameters: {
      type: "object",
      properties: { pattern: { type: "string" }, path: pathParameter },
      required: ["pattern"],
    },
  },
];

/** Runs one check the reviewer asked for; its answer as text (errors included). */
export async function runCheck(
  name: string,
  rawArguments: string,
  cwd: string,
  signal: AbortSignal,
): Promise<string> {
  let args: Record<string, unknown>;
  try {
    const parsed: unknown = JSON.parse(rawArguments || "{}");
    args = typeof parsed === "object" && parsed !== null ? (parsed as Record<string, unknown>) : {};
  } catch {
    return `invalid arguments for ${name}: not JSON`;
  }
  const path = (value: unknown) =>
    typeof value === "string" && value ? (isAbsolute(value) ? value : resolve(cwd, value)) : cwd;
  try {
    switch (name) {
      case "read_file":
        return await readLines(path(args.path), typeof args.offset === "number" ? args.offset : 1);
      case "list_dir":
        return await listDir(path(args.path));
      case "search_files":
        if (typeof args.pattern !== "string" || args.pattern === "") return "search_files needs a `pattern`";
        return await search(args.pattern, path(args.path), cwd, signal);
      default:
        return `unknown check ${name}: only read_file, list_dir and search_files are available`;
    }
  } catch (error) {
    return `${name} failed: ${errorMessage(error)}`;
  }
}

async function readLines(file: string, offset: number): Promise<string> {
  if ((await stat(file)).isDirectory()) return `${file} is a directory: use list_dir`;
  const text = (await readFile(file)).subarray(0, 4 * MAX_READ_BYTES).toString("utf8");
  const lines = text.split("\n").slice(Math.max(0, offset - 1), Math.max(0, offset - 1) + MAX_LINES);
  const shown = lines.map((line, index) => `${offset + index}: ${line}`).join("\n");
  return shown.length > MAX_READ_BYTES ? `${shown.slice(0, MAX_READ_BYTES)}\n[cut]` : shown;
}

async function listDir(dir: string): Promise<string> {
  const entries = await readdir(dir, { withFileTypes: true });
  const names = entries.map((entry) => (entry.isDirectory() ? `${entry.name}/` : entry.name)).sort();
  const shown = names.slice(0, MAX_LINES).join("\n");
  return names.length > MAX_LINES ? `${shown}\n[${names.length - MAX_LINES} more]` : shown || "(empty)";
}

async function search(pattern: string, path: string, cwd: string, signal: AbortSignal): Promise<string> {
  const lines: string[] = [];
  await runRipgrep(
    ["--line-number", "--no-heading", "--color=never", "--max-columns=300", "-e", pattern, "--", path],
    {
      cwd,
      timeoutMs: SEARCH_TIMEOUT_MS,
      signal,
      onLine: (line) => {
        lines.push(line);
        return lines.length < MAX_LINES;
      },
    },
  );
  return lines.length === 0 ? "no matches" : lines.join("\n");
}
