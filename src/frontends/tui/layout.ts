/**
 * One frame: the transcript's rows (each block laid out once per version and width, so a
 * token re-lays out only the block it lands in), then a pending question, the composer and the
 * status line at the bottom.
 */
import { visibleLine, visibleText } from "../common/terminal-text.js";
import { renderBlock } from "./render-blocks.js";
import { type Style, wrapLine } from "./style.js";
import type { Block } from "./transcript.js";

type Cached = { version: number; width: number; rows: string[] };

export class TranscriptLayout {
  private readonly cache = new Map<string, Cached>();

  constructor(private readonly style: Style) {}

  rows(blocks: readonly Block[], width: number): string[] {
    const rows: string[] = [];
    const seen = new Set<string>();
    for (const block of blocks) {
      seen.add(block.id);
      let cached = this.cache.get(block.id);
      if (!cached || cached.version !== block.version || cached.width !== width) {
        cached = { version: block.version, width, rows: renderBlock(block, width, this.style) };
        this.cache.set(block.id, cached);
      }
      for (const row of cached.rows) rows.push(row);
    }
    if (seen.size !== this.cache.size)
      for (const id of this.cache.keys()) if (!seen.has(id)) this.cache.delete(id);
    return rows;
  }
}

/** The composer's rows: a rule, the text with a drawn cursor, a hint when empty. */
export function composerRows(
  text: string,
  cursor: number,
  width: number,
  style: Style,
  hint: string,
): string[] {
  const rows = [style.dim("─".repeat(Math.max(1, width)))];
  const cursorChar = (char: string | undefined) =>
    style.enabled ? style.inverse(char === undefined ? " " : visibleLine(char)) : "▏";
  if (text === "") {
    rows.push(`${style.bold(style.cyan("›"))} ${cursorChar(undefined)}${style.dim(hint)}`);
    return rows;
  }
  // Pasted text can hold anything (escapes copied from a web page): shown visibly.
  const withCursor =
    visibleText(text.slice(0, cursor)) +
    (text[cursor] === "\n" || cursor === text.length
      ? `${cursorChar(undefined)}${text[cursor] === "\n" ? "\n" : ""}`
      : cursorChar(text[cursor])) +
    visibleText(text.slice(cursor + 1));
  withCursor.split("\n").forEach((line, i) => {
    for (const row of wrapLine(`${i === 0 ? style.bold(style.cyan("›")) : " "} ${line}`, width))
      rows.push(row);
  });
  return rows;
}
