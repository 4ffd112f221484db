/**
 * Unified diff hunks (`@@ -a,b +c,d @@` and ` `/`-`/`+` lines) in the usual GNU/git shape: a
 * count of 1 is omitted, an empty range names the line before it, and a last line without a
 * newline is followed by `\ No newline at end of file`. Hunks are formatted from a line
 * matching, which callers either have already (a patch knows what it replaced) or compute.
 */
import { matchLines } from "./line-diff.js";

/** A text as lines, without the empty piece after a final newline. */
export interface TextLines {
  readonly lines: readonly string[];
  /** The text does not end with `\n` (its last line is unterminated). */
  readonly missingNewline: boolean;
}

export function toTextLines(text: string): TextLines {
  if (text === "") return { lines: [], missingNewline: false };
  const lines = text.split("\n");
  const missingNewline = lines[lines.length - 1] !== "";
  if (!missingNewline) lines.pop();
  return { lines, missingNewline };
}

/** A change: old lines [aStart, aEnd) became new lines [bStart, bEnd). */
interface Change {
  aStart: number;
  aEnd: number;
  bStart: number;
  bEnd: number;
}

const NO_NEWLINE = "\\ No newline at end of file\n";

/** The hunks of a unified diff from `oldText` to `newText` with `context` lines; "" if equal. */
export function unifiedHunks(oldText: string, newText: string, context: number): string {
  if (oldText === newText) return "";
  const a = toTextLines(oldText);
  const b = toTextLines(newText);
  return formatUnified(a, b, matchLines(a.lines, b.lines), context);
}

/** Hunks from a matching of `a`'s lines to `b`'s (see matchLines); "" when nothing changed. */
export function formatUnified(a: TextLines, b: TextLines, match: Int32Array, context: number): string {
  const changes = changesOf(a, b, fixEndOfFile(a, b, match));
  let out = "";
  let group: Change[] = [];
  for (const change of changes) {
    const last = group[group.length - 1];
    if (last && change.aStart - last.aEnd > 2 * context) {
      out += formatHunk(group, a, b, context);
      group = [];
    }
    group.push(change);
  }
  if (group.length > 0) out += formatHunk(group, a, b, context);
  return out;
}

/** An unterminated last line only equals an unterminated last line. */
function fixEndOfFile(a: TextLines, b: TextLines, match: Int32Array): Int32Array {
  const n = a.lines.length;
  const m = b.lines.length;
  let fixed = match;
  const unmatch = (i: number): void => {
    if (fixed === match) fixed = match.slice();
    fixed[i] = -1;
  };
  if (a.missingNewline && match[n - 1]! >= 0 && !(b.missingNewline && match[n - 1] === m - 1)) unmatch(n - 1);
  if (b.missingNewline) {
    let i = n - 1;
    while (i >= 0 && fixed[i]! < 0) i--;
    if (i >= 0 && fixed[i] === m - 1 && !(a.missingNewline && i === n - 1)) unmatch(i);
  }
  return fixed;
}

function changesOf(a: TextLines, b: TextLines, match: Int32Array): Change[] {
  const n = a.lines.length;
  const changes: Change[] = [];
  let i = 0;
  let j = 0;
  for (let k = 0; k <= n; k++) {
    // Position n is a sentinel matched to the end of b.
    const to = k < n ? match[k]! : b.lines.length;
    if (to < 0) continue;
    if (k > i || to > j) changes.push({ aStart: i, aEnd: k, bStart: j, bEnd: to });
    i = k + 1;
    j = to + 1;
  }
  return changes;
}

function formatHunk(group: readonly Change[], a: TextLines, b: TextLines, context: number): string {
  const first = group[0]!;
  const last = group[group.length - 1]!;
  const aFrom = Math.max(0, first.aStart - context);
  const bFrom = first.bStart - (first.aStart - aFrom);
  const aTo = Math.min(a.lines.length, last.aEnd + context);
  const bTo = last.bEnd + (aTo - last.aEnd);
  let body = "";
  const emit = (prefix: string, side: TextLines, index: number): void => {
    body += `${prefix}${side.lines[index]}\n`;
    if (side.missingNewline && index === side.lines.length - 1) body += NO_NEWLINE;
  };
  let pos = aFrom;
  for (const change of group) {
    for (; pos < change.aStart; pos++) emit(" ", a, pos);
    for (let k = change.aStart; k < change.aEnd; k++) emit("-", a, k);
    for (let k = change.bStart; k < change.bEnd; k++) emit("+", b, k);
    pos = change.aEnd;
  }
  for (; pos < aTo; pos++) emit(" ", a, pos);
  return `@@ -${range(aFrom, aTo - aFrom)} +${range(bFrom, bTo - bFrom)} @@\n${body}`;
}

function range(start: number, count: number): string {
  if (count === 1) return String(start + 1);
  return `${count === 0 ? start : start + 1},${count}`;
}
