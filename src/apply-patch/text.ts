/**
 * Text helpers with Rust's semantics, so matching behaves exactly like Codex's engine:
 * `trim` strips Unicode White_Space (which differs from JS `trim`: no U+FEFF, plus U+0085).
 */

/** Unicode White_Space, the set Rust's `char::is_whitespace` uses. */
export function isRustWhitespace(code: number): boolean {
  if (code <= 0x20) return code === 0x20 || (code >= 0x09 && code <= 0x0d);
  if (code < 0x85) return false;
  return (
    code === 0x85 ||
    code === 0xa0 ||
    code === 0x1680 ||
    (code >= 0x2000 && code <= 0x200a) ||
    code === 0x2028 ||
    code === 0x2029 ||
    code === 0x202f ||
    code === 0x205f ||
    code === 0x3000
  );
}

/** Rust `str::trim_end`. */
export function trimEnd(text: string): string {
  let end = text.length;
  while (end > 0 && isRustWhitespace(text.charCodeAt(end - 1))) end--;
  return end === text.length ? text : text.slice(0, end);
}

/** Rust `str::trim`. */
export function trim(text: string): string {
  let start = 0;
  let end = text.length;
  while (start < end && isRustWhitespace(text.charCodeAt(start))) start++;
  while (end > start && isRustWhitespace(text.charCodeAt(end - 1))) end--;
  return start === 0 && end === text.length ? text : text.slice(start, end);
}

/**
 * Rust `str::lines`: split on `\n`, drop one `\r` before each `\n`, and do not yield an empty
 * final line after a trailing newline.
 */
export function rustLines(text: string): string[] {
  if (text === "") return [];
  const parts = text.split("\n");
  if (parts[parts.length - 1] === "") parts.pop();
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i]!;
    // Only a `\r` that preceded a `\n` is a line ending; the last piece had no `\n` after it.
    const hadNewline = i < parts.length - 1 || text.endsWith("\n");
    if (hadNewline && part.endsWith("\r")) parts[i] = part.slice(0, -1);
  }
  return parts;
}

/** Typographic punctuation and odd spaces folded to ASCII for the last, loosest match pass. */
const PUNCTUATION_FOLD: ReadonlyMap<number, string> = new Map([
  ...[0x2010, 0x2011, 0x2012, 0x2013, 0x2014, 0x2015, 0x2212].map((c) => [c, "-"] as const),
  ...[0x2018, 0x2019, 0x201a, 0x201b].map((c) => [c, "'"] as const),
  ...[0x201c, 0x201d, 0x201e, 0x201f].map((c) => [c, '"'] as const),
  ...[
    0xa0, 0x2002, 0x2003, 0x2004, 0x2005, 0x2006, 0x2007, 0x2008, 0x2009, 0x200a, 0x202f, 0x205f, 0x3000,
  ].map((c) => [c, " "] as const),
]);

const FOLDABLE = /[\u00a0\u2002-\u200a\u2010-\u2015\u2018-\u201f\u202f\u205f\u2212\u3000]/g;

/** Trim, then fold Unicode dashes, quotes and spaces to their ASCII look-alikes. */
export function foldPunctuation(text: string): string {
  return trim(text).replace(FOLDABLE, (ch) => PUNCTUATION_FOLD.get(ch.charCodeAt(0)) ?? ch);
}
