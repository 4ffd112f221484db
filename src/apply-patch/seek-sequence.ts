/**
 * Finding a chunk's old lines in a file, with Codex's rules: search from `start` onward, try
 * exact equality first, then ignoring trailing whitespace, then ignoring surrounding whitespace,
 * then with Unicode punctuation folded; the first position matching in the strictest pass wins.
 * Normalised copies of the file's lines are built once per pass and per file, not per probe.
 */
import { foldPunctuation, trim, trimEnd } from "./text.js";

type Normalise = (line: string) => string;

/** Loosening passes after the exact one, in order. */
const PASSES: readonly Normalise[] = [trimEnd, trim, foldPunctuation];

/** A file's lines plus lazily built normalised views of them. */
export class LineIndex {
  private readonly views: (string[] | undefined)[] = [];

  constructor(readonly lines: readonly string[]) {}

  /**
   * Index of the first match of `pattern` at or after `start`, or -1. With `eof`, only the
   * position that ends at the last line is tried. An empty pattern matches at `start`.
   */
  seek(pattern: readonly string[], start: number, eof: boolean): number {
    const { lines } = this;
    if (pattern.length === 0) return start;
    if (pattern.length > lines.length) return -1;
    const last = lines.length - pattern.length;
    const from = eof ? last : start;
    if (from > last) return -1;
    const exact = scan(lines, pattern, from, last);
    if (exact !== -1) return exact;
    for (let p = 0; p < PASSES.length; p++) {
      const normalise = PASSES[p]!;
      const found = scan(this.view(p, normalise), pattern.map(normalise), from, last);
      if (found !== -1) return found;
    }
    return -1;
  }

  private view(pass: number, normalise: Normalise): readonly string[] {
    let view = this.views[pass];
    if (view === undefined) {
      view = this.lines.map(normalise);
      this.views[pass] = view;
    }
    return view;
  }
}

function scan(lines: readonly string[], pattern: readonly string[], from: number, last: number): number {
  const head = pattern[0];
  const n = pattern.length;
  outer: for (let i = from; i <= last; i++) {
    if (lines[i] !== head) continue;
    for (let k = 1; k < n; k++) if (lines[i + k] !== pattern[k]) continue outer;
    return i;
  }
  return -1;
}

/** Stand-alone form of {@link LineIndex.seek} for one-off searches. */
export function seekSequence(
  lines: readonly string[],
  pattern: readonly string[],
  start: number,
  eof: boolean,
): number {
  return new LineIndex(lines).seek(pattern, start, eof);
}
