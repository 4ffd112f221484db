/**
 * Model-facing names of MCP tools: `mcp__{server}__{tool}`. The Responses API takes names
 * matching `^[a-zA-Z0-9_-]+$` of at most 64 characters, so other characters become `_` (Codex
 * does this for `.` and space) and a long name is cut, ending in a short hash of the full name
 * so two long names with one prefix stay apart.
 */
import { createHash } from "node:crypto";

export const MCP_TOOL_PREFIX = "mcp__";
const SEPARATOR = "__";
export const MAX_TOOL_NAME_LENGTH = 64;
const HASH_LENGTH = 8;

/** `name` with every character outside `[a-zA-Z0-9_-]` replaced by `_`. */
export function sanitizeNamePart(name: string): string {
  const cleaned = name.replace(/[^a-zA-Z0-9_-]/g, "_");
  return cleaned === "" ? "_" : cleaned;
}

function shortHash(text: string): string {
  return createHash("sha1").update(text).digest("hex").slice(0, HASH_LENGTH);
}

/** The qualified name as the model sees it, before any collision handling. */
export function qualifiedToolName(server: string, tool: string): string {
  const full = `${MCP_TOOL_PREFIX}${sanitizeNamePart(server)}${SEPARATOR}${sanitizeNamePart(tool)}`;
  if (full.length <= MAX_TOOL_NAME_LENGTH) return full;
  // The hash covers the raw names, so the cut name is stable and tells distinct tools apart.
  const suffix = `_${shortHash(`${server}\u0000${tool}`)}`;
  return full.slice(0, MAX_TOOL_NAME_LENGTH - suffix.length) + suffix;
}

/** One server tool and the unique model-facing name it got. */
export interface NamedTool<T> {
  name: string;
  server: string;
  tool: string;
  value: T;
}

/**
 * Names for every (server, tool), unique and sorted by name. A name that sanitizing made
 * collide with an earlier one (`a.b` vs `a_b`) gets a hash suffix instead of shadowing it.
 */
export function assignToolNames<T>(tools: { server: string; tool: string; value: T }[]): NamedTool<T>[] {
  const ordered = [...tools].sort((a, b) => compare(a.server, b.server) || compare(a.tool, b.tool));
  const used = new Set<string>();
  const named: NamedTool<T>[] = [];
  for (const entry of ordered) {
    let name = qualifiedToolName(entry.server, entry.tool);
    if (used.has(name)) {
      const suffix = `_${shortHash(`${entry.server}\u0000${entry.tool}`)}`;
      name = name.slice(0, MAX_TOOL_NAME_LENGTH - suffix.length) + suffix;
    }
    if (used.has(name)) continue;
    used.add(name);
    named.push({ name, ...entry });
  }
  return named.sort((a, b) => compare(a.name, b.name));
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
