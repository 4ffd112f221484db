/**
 * read_file's indentation mode, as a pure function over lines: the block of code around an
 * anchor line, found from indentation alone (no parser, so it works for any language).
 *
 * Model (Codex's read_file semantics, kept exactly: models are trained on them):
 * - Each line has an indent (spaces, a tab counting 4). A blank line takes the indent of the
 *   nearest non-blank line above it, so blank lines inside a block stay in the block.
 * - The block reaches out to `floor` = anchor indent − 4·max_levels (0 = no limit: the floor is
 *   column 0). A line indented less than the floor ends the block on that side; lines deeper
 *   than the floor are always taken.
 * - Lines exactly at the floor are the block's boundaries. Going up, the first one is the
 *   header (`def f():`, `fn f() {`), and floor-level comments above it come along when
 *   `include_header`. Going down, the first one is the closer (`}`, `end`). Any other line at
 *   the floor stops that side, unless `include_siblings`.
 * - The walk grows one line up, then one line down, until `maxLines` lines are taken, so a
 *   capped read stays centred on the anchor. Blank lines at either end are dropped.
 */

/** Spaces a tab counts for. */
const TAB_WIDTH = 4;
const COMMENT_PREFIXES = ["#", "//", "--"];

export interface BlockOptions {
  /** Index of the anchor line in `lines`. */
  anchor: number;
  /** Indent levels (of 4 columns) the block may climb above the anchor; 0: up to column 0. */
  maxLevels: number;
  includeSiblings: boolean;
  includeHeader: boolean;
  /** At most this many lines (≥ 1). */
  maxLines: number;
}

/** One line of the window the block is looked for in. */
export interface IndentedLine {
  /** The decoded text, for blank / comment checks. */
  text: string;
  /** Indent used by the walk (a blank line's is the one above it). */
  indent: number;
}

/** Indent of a line: leading spaces and tabs, a tab counting TAB_WIDTH columns. */
export function measureIndent(text: string): number {
  let width = 0;
  for (const char of text) {
    if (char === " ") width += 1;
    else if (char === "\t") width += TAB_WIDTH;
    else break;
  }
  return width;
}

export function isBlank(text: string): boolean {
  return text.trim() === "";
}

function isComment(text: string): boolean {
  const trimmed = text.trim();
  return COMMENT_PREFIXES.some((prefix) => trimmed.startsWith(prefix));
}

/**
 * The block around `options.anchor`, as a [first, last] index range into `lines` (inclusive),
 * or null when only blank lines were taken.
 */
export function findBlock(lines: readonly IndentedLine[], options: BlockOptions): [number, number] | null {
  const { anchor, maxLines } = options;
  const anchorLine = lines[anchor];
  if (!anchorLine) return null;
  // A one-line budget is the anchor itself, blank or not.
  if (maxLines <= 1 || lines.length === 1) return [anchor, anchor];
  const floor = options.maxLevels === 0 ? 0 : Math.max(0, anchorLine.indent - options.maxLevels * TAB_WIDTH);

  let first = anchor;
  let last = anchor;
  let upOpen = true;
  let downOpen = true;
  let headersSeen = 0;
  let closersSeen = 0;
  const taken = () => last - first + 1;

  while (taken() < maxLines && (upOpen || downOpen)) {
    if (upOpen) {
      const line = lines[first - 1];
      if (!line || line.indent < floor) {
        upOpen = false;
      } else if (line.indent === floor && !options.includeSiblings) {
        // The header, then only comments directly above it (when asked for).
        if (headersSeen === 0 || (options.includeHeader && isComment(line.text))) {
          headersSeen += 1;
          first -= 1;
        } else {
          upOpen = false;
        }
      } else {
        first -= 1;
      }
      if (taken() >= maxLines) break;
    }
    if (downOpen) {
      const line = lines[last + 1];
      if (!line || line.indent < floor) {
        downOpen = false;
      } else if (line.indent === floor && !options.includeSiblings) {
        // The closer; a second line at the floor is a sibling.
        if (closersSeen === 0) {
          closersSeen += 1;
          last += 1;
        } else {
          downOpen = false;
        }
      } else {
        last += 1;
      }
    }
  }

  while (first <= last && isBlank(lines[first]?.text ?? "")) first += 1;
  while (last >= first && isBlank(lines[last]?.text ?? "")) last -= 1;
  return first <= last ? [first, last] : null;
}
