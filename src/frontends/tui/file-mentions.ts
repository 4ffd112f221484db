/**
 * `@` file completion in the composer, as Codex's: a word starting with `@` at the cursor
 * opens a menu of the thread's files matching the rest of the word fuzzily. The server finds
 * them (file-search.ts), so a UI attached with `--remote` lists the server's files, not its own
 * directory's. Up/Down pick, Tab/Enter put the path in place of `@word`, Esc closes the menu for
 * that word.
 */
import { visibleLine } from "../common/terminal-text.js";
import type { Composer } from "./composer.js";
import { type Style, wrapLine } from "./style.js";

const MENU_ROWS = 8;

/** Finds the files matching `query` (best first); null when a newer search superseded it. */
export type FileSearch = (query: string) => Promise<string[] | null>;

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

/** The menu's state: which word it is for, what matches, which one is picked. */
export class MentionMenu {
  private matches: string[] = [];
  private selected = 0;
  /** The `@word` (position and query) the shown matches are for, or were asked for. */
  private key = "";
  /** The `@` position whose menu Esc closed (until the word changes place). */
  private dismissed = -1;

  constructor(
    private readonly search: FileSearch,
    /** Called when matches arrive (the screen redraws). */
    private readonly onResults: () => void,
  ) {}

  /** Re-reads the composer (asking the server when the word changed); true while the menu is open. */
  update(composer: Composer): boolean {
    const mention = mentionAt(composer.text, composer.cursor);
    if (!mention || mention.start === this.dismissed || mention.query === "") {
      if (!mention) this.dismissed = -1;
      this.matches = [];
      this.key = "";
      return false;
    }
    const key = `${mention.start}:${mention.query}`;
    if (key !== this.key) {
      this.key = key;
      // The last matches stay on screen until the new ones arrive: no flicker while typing.
      this.search(mention.query).then(
        (paths) => {
          if (paths === null || this.key !== key) return;
          this.matches = paths.slice(0, MENU_ROWS);
          this.selected = 0;
          this.onResults();
        },
        () => {},
      );
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
    return this.matches.map((match, i) => {
      // A file name may hold any character but / and NUL: shown visibly.
      const path = visibleLine(match);
      const row = i === this.selected ? style.bold(style.cyan(`› ${path}`)) : `  ${style.dim(path)}`;
      return wrapLine(row, width)[0] ?? "";
    });
  }
}
