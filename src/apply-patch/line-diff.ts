/**
 * Line diff used for FileChange diffs and the turn diff. Large files must diff in a few ms, so:
 * common prefix and suffix are stripped by plain string comparison, the rest is interned to
 * integers once, lines unique on both sides anchor the diff (patience diff), and only small gaps
 * between anchors that still share lines go to Myers (the `diff` package). Matches are recorded
 * in a typed array, so nothing is allocated per line and nothing needs sorting.
 */
import { diffArrays } from "diff";

/** Above this edit distance a gap is reported as replaced wholesale instead of diffed. */
const MAX_MYERS_EDITS = 2000;

/**
 * A longest-common-subsequence-style matching of `oldLines` to `newLines`: `match[i]` is the
 * index in `newLines` of old line `i`, or -1 when it was removed. Matched indexes increase.
 */
export function matchLines(oldLines: readonly string[], newLines: readonly string[]): Int32Array {
  const n = oldLines.length;
  const m = newLines.length;
  let prefix = 0;
  while (prefix < n && prefix < m && oldLines[prefix] === newLines[prefix]) prefix++;
  let suffix = 0;
  while (
    suffix < n - prefix &&
    suffix < m - prefix &&
    oldLines[n - 1 - suffix] === newLines[m - 1 - suffix]
  ) {
    suffix++;
  }
  const match = new Int32Array(n).fill(-1);
  for (let i = 0; i < prefix; i++) match[i] = i;
  for (let k = 1; k <= suffix; k++) match[n - k] = m - k;
  if (prefix + suffix < n && prefix + suffix < m) {
    new Matcher(oldLines, newLines, prefix, n - suffix, prefix, m - suffix, match).run();
  }
  return match;
}

/**
 * Match old lines [aLo, aHi) to new lines [bLo, bHi) into `match` (absolute indexes), leaving
 * the rest of `match` alone. Used to refine the gaps of a matching built another way.
 */
export function matchRange(
  oldLines: readonly string[],
  newLines: readonly string[],
  aLo: number,
  aHi: number,
  bLo: number,
  bHi: number,
  match: Int32Array,
): void {
  while (aLo < aHi && bLo < bHi && oldLines[aLo] === newLines[bLo]) match[aLo++] = bLo++;
  while (aLo < aHi && bLo < bHi && oldLines[aHi - 1] === newLines[bHi - 1]) match[--aHi] = --bHi;
  if (aLo === aHi || bLo === bHi || (aHi - aLo === 1 && bHi - bLo === 1)) return;
  new Matcher(oldLines, newLines, aLo, aHi, bLo, bHi, match).run();
}

class Matcher {
  private readonly a: Int32Array;
  private readonly b: Int32Array;
  /** Per line id: occurrences in the current a-range, in the b-range, and last b index. */
  private readonly countA: Int32Array;
  private readonly countB: Int32Array;
  private readonly posB: Int32Array;
  private readonly work: number[];
  /** The interned slices start at these indexes of the full line lists. */
  private readonly offsetA: number;
  private readonly offsetB: number;

  constructor(
    oldLines: readonly string[],
    newLines: readonly string[],
    aLo: number,
    aHi: number,
    bLo: number,
    bHi: number,
    private readonly match: Int32Array,
  ) {
    const ids = new Map<string, number>();
    const intern = (line: string): number => {
      let id = ids.get(line);
      if (id === undefined) {
        id = ids.size;
        ids.set(line, id);
      }
      return id;
    };
    this.a = new Int32Array(aHi - aLo);
    for (let i = aLo; i < aHi; i++) this.a[i - aLo] = intern(oldLines[i]!);
    this.b = new Int32Array(bHi - bLo);
    for (let j = bLo; j < bHi; j++) this.b[j - bLo] = intern(newLines[j]!);
    this.countA = new Int32Array(ids.size);
    this.countB = new Int32Array(ids.size);
    this.posB = new Int32Array(ids.size);
    this.offsetA = aLo;
    this.offsetB = bLo;
    this.work = [0, aHi - aLo, 0, bHi - bLo];
  }

  run(): void {
    const { work } = this;
    // Explicit stack instead of recursion: nested gaps can be deep on big files.
    while (work.length > 0) {
      const bHi = work.pop()!;
      const bLo = work.pop()!;
      const aHi = work.pop()!;
      const aLo = work.pop()!;
      this.range(aLo, aHi, bLo, bHi);
    }
  }

  private record(i: number, j: number): void {
    this.match[this.offsetA + i] = this.offsetB + j;
  }

  private range(aLo: number, aHi: number, bLo: number, bHi: number): void {
    const { a, b } = this;
    while (aLo < aHi && bLo < bHi && a[aLo] === b[bLo]) this.record(aLo++, bLo++);
    while (aLo < aHi && bLo < bHi && a[aHi - 1] === b[bHi - 1]) this.record(--aHi, --bHi);
    // One side empty, or a single line each that differ: a pure replacement.
    if (aLo === aHi || bLo === bHi || (aHi - aLo === 1 && bHi - bLo === 1)) return;

    const { countA, countB, posB } = this;
    for (let i = aLo; i < aHi; i++) countA[a[i]!]!++;
    let shared = false;
    for (let j = bLo; j < bHi; j++) {
      const id = b[j]!;
      countB[id]!++;
      posB[id] = j;
      if (countA[id]! > 0) shared = true;
    }
    const pairs: number[] = [];
    if (shared) {
      for (let i = aLo; i < aHi; i++) {
        const id = a[i]!;
        if (countA[id] === 1 && countB[id] === 1) pairs.push(i, posB[id]!);
      }
    }
    for (let i = aLo; i < aHi; i++) countA[a[i]!] = 0;
    for (let j = bLo; j < bHi; j++) countB[b[j]!] = 0;
    if (!shared) return;

    const anchors = longestIncreasing(pairs);
    if (anchors.length === 0) {
      this.myers(aLo, aHi, bLo, bHi);
      return;
    }
    let pa = aLo;
    let pb = bLo;
    for (let k = 0; k < anchors.length; k += 2) {
      const ia = anchors[k]!;
      const ib = anchors[k + 1]!;
      this.record(ia, ib);
      if (ia > pa && ib > pb) this.work.push(pa, ia, pb, ib);
      pa = ia + 1;
      pb = ib + 1;
    }
    if (aHi > pa && bHi > pb) this.work.push(pa, aHi, pb, bHi);
  }

  private myers(aLo: number, aHi: number, bLo: number, bHi: number): void {
    const changes = diffArrays(Array.from(this.a.subarray(aLo, aHi)), Array.from(this.b.subarray(bLo, bHi)), {
      maxEditLength: MAX_MYERS_EDITS,
    });
    if (changes === undefined) return; // too costly: the gap is reported as a replacement
    let i = aLo;
    let j = bLo;
    for (const change of changes) {
      if (change.added) j += change.count;
      else if (change.removed) i += change.count;
      else for (let k = 0; k < change.count; k++) this.record(i++, j++);
    }
  }
}

/**
 * Longest subsequence of `pairs` (flat [a0, b0, a1, b1, …], increasing a) with increasing b,
 * by patience sorting; returned flat as well.
 */
function longestIncreasing(pairs: readonly number[]): number[] {
  const count = pairs.length / 2;
  if (count <= 1) return pairs.slice();
  const tails: number[] = [];
  const prev = new Int32Array(count);
  for (let k = 0; k < count; k++) {
    const bk = pairs[2 * k + 1]!;
    let lo = 0;
    let hi = tails.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (pairs[2 * tails[mid]! + 1]! < bk) lo = mid + 1;
      else hi = mid;
    }
    prev[k] = lo > 0 ? tails[lo - 1]! : -1;
    tails[lo] = k;
  }
  const picked: number[] = [];
  for (let k = tails[tails.length - 1]!; k >= 0; k = prev[k]!) picked.push(k);
  const out: number[] = [];
  for (let p = picked.length - 1; p >= 0; p--) out.push(pairs[2 * picked[p]!]!, pairs[2 * picked[p]! + 1]!);
  return out;
}
