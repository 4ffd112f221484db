/**
 * `@` file completion in the composer, as Codex's: a word starting with `@` at the cursor
 * opens a menu of the cwd's files matching the rest of the word fuzzily (its letters in order);
 * Up/Down pick, Tab/Enter put the path in place of `@word`, Esc closes the menu for that word.
 * The file list is read once, on the first `@` (git's tracked and untracked-but-not-ignored
 * files; outside a repository a bounded walk that skips hidden directories and node_modules).
 */
import { readdir } from "node:fs/promises";
import { join, relative } from "node:path";
import type { Composer } from "./composer.js";
import { type Style, wrapLine } from "./style.js";

const MAX_FILES = 50_000;
const MENU_ROWS = 8;

export interface Mention {
  /** Index of the `@`. */
  start: number;
  /** The word's text after the `@`. */
  query: string;
}

/** The `@word` the cursor is in or right after, if any. */
export function mentionAt(text: string, cursor: number): Mention | null {
  const before = text.slice(0, cursor);
  const match = /(?:^|\s)@(\S*)$/.exec(before);
  if (!match) return null;
  const rest = text.slice(cursor);
  if (rest !== "" && !/^\s/.test(rest)) return null;
  return { start: cursor - (match[1]?.length ?? 0) - 1, query: match[1] ?? "" };
}

/** A path with what matching needs precomputed (once per file list, not per keystroke). */
interface Candidate {
  path: string;
  lower: string;
  nameStart: number;
}

function candidatesOf(paths: readonly string[]): Candidate[] {
  return paths.map((path) => ({ path, lower: path.toLowerCase(), nameStart: path.lastIndexOf("/") + 1 }));
}

/**
 * Paths holding the query's characters in order (case-insensitive), best first: matches in the
 * file name beat matches in directories, consecutive characters and word starts score higher,
 * then shorter paths.
 */
export function fuzzyMatch(query: string, paths: readonly string[], limit: number): string[] {
  return rankMatches(query.toLowerCase(), candidatesOf(paths), limit).best;
}

/** All candidates matching `needle` (lower case), and the `limit` best of them in order. */
function rankMatches(
  needle: string,
  candidates: readonly Candidate[],
  limit: number,
): { all: Candidate[]; best: string[] } {
  const all: Candidate[] = [];
  const top: { path: string; score: number }[] = [];
  const better = (a: { path: string; score: number }, b: { path: string; score: number }) =>
    a.score !== b.score
      ? a.score > b.score
      : a.path.length !== b.path.length
        ? a.path.length < b.path.length
        : a.path < b.path;
  for (const candidate of candidates) {
    const score = fuzzyScore(needle, candidate);
    if (score === null) continue;
    all.push(candidate);
    const entry = { path: candidate.path, score };
    if (top.length === limit && !better(entry, top[limit - 1] as (typeof top)[number])) continue;
    let at = Math.min(top.length, limit - 1);
    while (at > 0 && better(entry, top[at - 1] as (typeof top)[number])) at--;
    top.splice(at, 0, entry);
    if (top.length > limit) top.pop();
  }
  return { all, best: top.map((entry) => entry.path) };
}

const SEPARATORS = new Set(["/", ".", "_", "-"]);

function fuzzyScore(needle: string, { lower, nameStart }: Candidate): number | null {
  if (needle === "") return 0;
  let score = 0;
  let from = 0;
  let previous = -2;
  for (let n = 0; n < needle.length; n++) {
    const at = lower.indexOf(needle[n] as string, from);
    if (at < 0) return null;
    score += 1;
    if (at === previous + 1) score += 5;
    if (at >= nameStart) score += 2;
    if (at === 0 || at === nameStart || SEPARATORS.has(lower[at - 1] as string)) score += 3;
    previous = at;
    from = at + 1;
  }
  if (lower.startsWith(needle, nameStart)) score += 20;
  return score;
}

/** The cwd's files, relative to it. */
export async function listFiles(cwd: string): Promise<string[]> {
  const fromGit = await gitFiles(cwd);
  if (fromGit) return fromGit;
  const files: string[] = [];
  const walk = async (dir: string): Promise<void> => {
    const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
    for (const entry of entries) {
      if (files.length >= MAX_FILES) return;
      if (entry.name.startsWith(".") || entry.name === "node_modules") continue;
      const path = join(dir, entry.name);
      if (entry.isDirectory()) await walk(path);
      else files.push(relative(cwd, path));
    }
  };
  await walk(cwd);
  return files;
}

/** Loaded on the first `@`, not on the way to the first screen. */
async function gitFiles(cwd: string): Promise<string[] | null> {
  const { execFile } = await import("node:child_process");
  return new Promise((resolve) => {
    execFile(
      "git",
      ["ls-files", "--cached", "--others", "--exclude-standard", "-z"],
      { cwd, maxBuffer: 32 * 1024 * 1024 },
      (error, stdout) => {
        if (error) resolve(null);
        else resolve([...new Set(stdout.split("\0").filter(Boolean))].slice(0, MAX_FILES));
      },
    );
  });
}

/** The menu's state: which word it is for, what matches, which one is picked. */
export class MentionMenu {
  private files: Candidate[] | null = null;
  private loading: Promise<void> | null = null;
  private matches: string[] = [];
  /** All matches of the last query: a longer query only narrows them (typing stays cheap). */
  private pool: { query: string; candidates: Candidate[] } | null = null;
  private selected = 0;
  private key = "";
  /** The `@` position whose menu Esc closed (until the word changes place). */
  private dismissed = -1;

  constructor(
    private readonly cwd: string,
    private readonly onLoaded: () => void,
  ) {}

  /** Re-reads the composer; true while the menu is open. */
  update(composer: Composer): boolean {
    const mention = mentionAt(composer.text, composer.cursor);
    if (!mention || mention.start === this.dismissed) {
      if (!mention) this.dismissed = -1;
      this.matches = [];
      return false;
    }
    if (!this.files) {
      this.loading ??= listFiles(this.cwd).then((files) => {
        this.files = candidatesOf(files);
        this.pool = null;
        this.key = "";
        this.onLoaded();
      });
      return false;
    }
    const key = `${mention.start}:${mention.query}`;
    if (key !== this.key) {
      this.key = key;
      const query = mention.query.toLowerCase();
      const narrower = this.pool && query.startsWith(this.pool.query);
      const ranked = rankMatches(query, narrower && this.pool ? this.pool.candidates : this.files, MENU_ROWS);
      this.pool = { query, candidates: ranked.all };
      this.matches = ranked.best;
      this.selected = 0;
    }
    return this.matches.length > 0;
  }

  get open(): boolean {
    return this.matches.length > 0;
  }

  move(step: 1 | -1): void {
    const count = this.matches.length;
    if (count > 0) this.selected = (this.selected + step + count) % count;
  }

  /** Replaces `@word` with the picked path (quoted if it has spaces) and a space. */
  accept(composer: Composer): void {
    const mention = mentionAt(composer.text, composer.cursor);
    const path = this.matches[this.selected];
    if (!mention || !path) return;
    const inserted = `${/\s/.test(path) ? JSON.stringify(path) : path} `;
    composer.text = composer.text.slice(0, mention.start) + inserted + composer.text.slice(composer.cursor);
    composer.cursor = mention.start + inserted.length;
    this.matches = [];
    this.key = "";
  }

  dismiss(composer: Composer): void {
    this.dismissed = mentionAt(composer.text, composer.cursor)?.start ?? -1;
    this.matches = [];
    this.key = "";
  }

  rows(style: Style, width: number): string[] {
    return this.matches.map((path, i) => {
      const row = i === this.selected ? style.bold(style.cyan(`› ${path}`)) : `  ${style.dim(path)}`;
      return wrapLine(row, width)[0] ?? "";
    });
  }
}
