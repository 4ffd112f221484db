/**
 * The files and directories under some roots, for fuzzy file search: ripgrep lists the files
 * (hidden ones included, .gitignore'd and `.git` left out, as Codex's file search walks), and
 * their parent directories become directory entries. Bounded: at most MAX_ENTRIES per search,
 * and a listing that takes longer than LIST_TIMEOUT_MS stops with what it has.
 */
import { resolve } from "node:path";
import { runRipgrep } from "../../tools/files/ripgrep.js";
import { type FuzzyMatch, fuzzyMatch } from "../../util/fuzzy-match.js";

export interface IndexedEntry {
  root: string;
  /** Relative to root, `/`-separated. */
  path: string;
  kind: "file" | "directory";
}

export interface FileSearchResult {
  root: string;
  path: string;
  match_type: "file" | "directory";
  file_name: string;
  score: number;
  indices: number[] | null;
}

const MAX_ENTRIES = 200_000;
const LIST_TIMEOUT_MS = 30_000;
/** Codex returns this many matches. */
export const MATCH_LIMIT = 50;

/** Every entry under `roots` (resolved against the server's cwd); a root that cannot be read adds nothing. */
export async function indexRoots(roots: readonly string[], signal?: AbortSignal): Promise<IndexedEntry[]> {
  const entries: IndexedEntry[] = [];
  for (const given of roots) {
    if (signal?.aborted || entries.length >= MAX_ENTRIES) break;
    const root = resolve(given);
    const directories = new Set<string>();
    const listing = runRipgrep(["--files", "--hidden", "--glob", "!.git", "--no-messages"], {
      cwd: root,
      timeoutMs: LIST_TIMEOUT_MS,
      ...(signal ? { signal } : {}),
      onLine(line) {
        const path = line.startsWith("./") ? line.slice(2) : line;
        entries.push({ root, path, kind: "file" });
        for (let slash = path.lastIndexOf("/"); slash > 0; slash = path.lastIndexOf("/", slash - 1)) {
          const directory = path.slice(0, slash);
          if (directories.has(directory)) break;
          directories.add(directory);
          entries.push({ root, path: directory, kind: "directory" });
        }
        return entries.length < MAX_ENTRIES;
      },
    });
    // A missing root, a timeout or an interrupt: keep what was listed.
    await listing.catch(() => undefined);
  }
  return entries;
}

/** The best MATCH_LIMIT entries for `query`, by score (then path); none for an empty query. */
export function searchIndex(entries: readonly IndexedEntry[], query: string): FileSearchResult[] {
  if (query.trim() === "") return [];
  const matched: { entry: IndexedEntry; match: FuzzyMatch }[] = [];
  for (const entry of entries) {
    const match = fuzzyMatch(query, entry.path);
    if (match) matched.push({ entry, match });
  }
  matched.sort((a, b) => b.match.score - a.match.score || compare(a.entry.path, b.entry.path));
  return matched.slice(0, MATCH_LIMIT).map(({ entry, match }) => ({
    root: entry.root,
    path: entry.path,
    match_type: entry.kind,
    file_name: entry.path.slice(entry.path.lastIndexOf("/") + 1),
    score: match.score,
    indices: match.indices,
  }));
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
