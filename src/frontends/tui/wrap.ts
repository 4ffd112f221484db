/**
 * Column-true word wrap for styled rows. The screen's differential renderer counts one string
 * per terminal row, so a row wider than the terminal (a wide CJK character counted as one
 * column) would make the terminal wrap it and the diff draw on the wrong rows. Rows break at
 * spaces, as Codex's do; a word longer than a row is cut. A continuation row is indented under
 * the first row's text (the hanging indent of `• `, `  • `, `› `), so prose reads as Codex's:
 *
 *     • Yesterday fourteen talented engineers quietly reviewed seventeen complicated
 *       changes. Afterward everybody discussed possible improvements regarding
 */

const ANSI = new RegExp(`${"\u001b"}\\[[0-9;?]*[A-Za-z]`, "g");
const LEADING_ANSI = new RegExp(`^${"\u001b"}\\[[0-9;?]*[A-Za-z]`);
/** Printable ASCII only: one column a character, the common case. */
const NARROW = /^[\x20-\x7e]*$/;
/** Where a continuation row starts: leading spaces plus a list or transcript marker. */
const HANG = /^(\s*)(?:(?:[•›□✔✓✗■│-]|\d{1,3}[.)])\s+)?/;
/** Codes that end every style the UI opens (reset, bold/dim, italic, inverse, colour off). */
const CLOSES_STYLE = /\[(0|22|23|27|39)?m$/;

/** Terminal columns of one code point: 0 for combining marks and joiners, 2 for wide (East Asian, emoji). */
export function codePointWidth(cp: number): number {
  if (cp < 0x300) return 1;
  if ((cp >= 0x300 && cp <= 0x36f) || (cp >= 0x200b && cp <= 0x200f) || (cp >= 0xfe00 && cp <= 0xfe0f))
    return 0;
  if (
    (cp >= 0x1100 && cp <= 0x115f) ||
    (cp >= 0x2e80 && cp <= 0x303e) ||
    (cp >= 0x3041 && cp <= 0xa4cf) ||
    (cp >= 0xac00 && cp <= 0xd7a3) ||
    (cp >= 0xf900 && cp <= 0xfaff) ||
    (cp >= 0xfe30 && cp <= 0xfe4f) ||
    (cp >= 0xff00 && cp <= 0xff60) ||
    (cp >= 0xffe0 && cp <= 0xffe6) ||
    (cp >= 0x1f300 && cp <= 0x1f64f) ||
    (cp >= 0x1f900 && cp <= 0x1f9ff) ||
    (cp >= 0x20000 && cp <= 0x3fffd)
  )
    return 2;
  return 1;
}

/** The columns a string takes once its escape codes are removed. */
export function visibleWidth(text: string): number {
  const bare = text.includes("\x1b") ? text.replace(ANSI, "") : text;
  if (NARROW.test(bare)) return bare.length;
  let columns = 0;
  for (const char of bare) columns += codePointWidth(char.codePointAt(0) ?? 0);
  return columns;
}

type Token = { text: string; columns: number; space: boolean; escape: boolean };

function tokenize(line: string): Token[] {
  const tokens: Token[] = [];
  for (let i = 0; i < line.length; ) {
    if (line[i] === "\x1b") {
      const match = LEADING_ANSI.exec(line.slice(i, i + 16));
      if (match) {
        tokens.push({ text: match[0], columns: 0, space: false, escape: true });
        i += match[0].length;
        continue;
      }
    }
    const cp = line.codePointAt(i) ?? 0;
    const text = String.fromCodePoint(cp);
    tokens.push({ text, columns: codePointWidth(cp), space: text === " ", escape: false });
    i += text.length;
  }
  return tokens;
}

export interface WrapOptions {
  /** Columns a continuation row is indented; default: under the first row's text (see HANG). */
  indent?: number;
}

/**
 * Breaks one styled line into rows of at most `width` columns, at spaces where it can. Escape
 * codes do not count, and the style active at a break is reopened on the next row, so colours
 * survive wrapping.
 */
export function wrapLine(line: string, width: number, options: WrapOptions = {}): string[] {
  if (width < 1 || visibleWidth(line) <= width) return [line];
  const tokens = tokenize(line);
  // The style open before each token, to reopen it on a continuation row.
  const activeBefore: string[] = [];
  let active = "";
  for (const token of tokens) {
    activeBefore.push(active);
    if (token.escape) active = CLOSES_STYLE.test(token.text) ? "" : active + token.text;
  }
  const bare = line.replace(ANSI, "");
  let hang = options.indent ?? visibleWidth(HANG.exec(bare)?.[0] ?? "");
  if (hang > width / 2) hang = 0;
  const rows: string[] = [];
  let start = 0;
  while (start < tokens.length) {
    const first = rows.length === 0;
    const room = first ? width : width - hang;
    // The first row's leading indent and marker are not a place to break.
    const contentFrom = first ? hang : 0;
    let seenContent = false;
    let columns = 0;
    let end = start;
    let lastSpace = -1;
    for (; end < tokens.length; end++) {
      const token = tokens[end] as Token;
      if (token.escape) continue;
      if (columns + token.columns > room) break;
      if (token.space) {
        if (seenContent) lastSpace = end;
      } else if (columns >= contentFrom) seenContent = true;
      columns += token.columns;
    }
    if (end >= tokens.length) {
      rows.push(rowText(tokens, activeBefore, start, tokens.length, first ? 0 : hang));
      break;
    }
    let cut: number;
    if ((tokens[end] as Token).space && seenContent) cut = end;
    else if (lastSpace > start) cut = lastSpace;
    else cut = Math.max(end, start + 1);
    // Trailing spaces stay off the row; leading ones off the next.
    let rowEnd = cut;
    while (rowEnd > start && (tokens[rowEnd - 1] as Token).space) rowEnd--;
    rows.push(rowText(tokens, activeBefore, start, rowEnd, first ? 0 : hang));
    start = cut;
    while (start < tokens.length && (tokens[start] as Token).space) start++;
  }
  return rows;
}

function rowText(tokens: Token[], activeBefore: string[], from: number, to: number, indent: number): string {
  let text = " ".repeat(indent) + (activeBefore[from] ?? "");
  let open = activeBefore[from] ?? "";
  for (let i = from; i < to; i++) {
    const token = tokens[i] as Token;
    text += token.text;
    if (token.escape) open = CLOSES_STYLE.test(token.text) ? "" : open + token.text;
  }
  return open ? `${text}\x1b[0m` : text;
}
