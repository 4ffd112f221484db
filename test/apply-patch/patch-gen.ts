/**
 * Random trees and random edits turned into apply_patch text, for the property tests.
 * The generator is independent of the engine: it places hunks by its own naive search and
 * widens context until each hunk's old lines first occur, searching forward, where intended.
 */

/** Deterministic PRNG (mulberry32). */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export class Random {
  constructor(readonly next: () => number) {}
  int(n: number): number {
    return Math.floor(this.next() * n);
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)]!;
  }
}

/** Small vocabulary so files have repeated lines (the matcher must cope with duplicates). */
const WORDS = [
  "foo",
  "bar",
  "baz",
  "}",
  "{",
  "",
  "  return x;",
  "\tindent",
  "x = 1",
  "// note",
  "end",
  "*ptr",
  "-dash",
];

export function randomLine(r: Random): string {
  if (r.chance(0.5)) return r.pick(WORDS);
  return `${r.pick(WORDS)} ${r.int(1000)}`;
}

export function randomLines(r: Random, max: number): string[] {
  return Array.from({ length: r.int(max + 1) }, () => randomLine(r));
}

/** File text for `lines`; a file whose last line is empty must end with a newline to keep it. */
export function textOf(lines: readonly string[], finalNewline: boolean): string {
  if (lines.length === 0) return "";
  const newline = finalNewline || lines[lines.length - 1] === "";
  return lines.join("\n") + (newline ? "\n" : "");
}

type Op = { kind: "equal" | "delete"; a: number } | { kind: "insert"; line: string };

/** A random edit script over `a`. */
function randomEdits(r: Random, a: readonly string[]): Op[] {
  const ops: Op[] = [];
  for (let i = 0; i <= a.length; i++) {
    if (r.chance(0.15))
      for (let k = r.int(3) + 1; k > 0; k--) ops.push({ kind: "insert", line: randomLine(r) });
    if (i === a.length) break;
    ops.push({ kind: r.chance(0.2) ? "delete" : "equal", a: i });
  }
  if (!ops.some((op) => op.kind !== "equal")) ops.push({ kind: "insert", line: randomLine(r) });
  return ops;
}

function firstMatch(lines: readonly string[], pattern: readonly string[], from: number): number {
  for (let i = from; i + pattern.length <= lines.length; i++) {
    let ok = true;
    for (let k = 0; k < pattern.length && ok; k++) ok = lines[i + k] === pattern[k];
    if (ok) return i;
  }
  return -1;
}

interface Group {
  start: number;
  end: number;
  body: string[];
  oldLines: string[];
}

/** Hunks for `ops` with `context` lines, or null if some hunk would be found at the wrong place. */
function groups(a: readonly string[], ops: readonly Op[], context: number): Group[] | null {
  // Clusters: maximal runs of non-equal ops, as [from, to) in a-coordinates.
  const clusterOf = new Int32Array(ops.length).fill(-1);
  const clusters: { from: number; to: number }[] = [];
  let pos = 0;
  ops.forEach((op, k) => {
    if (op.kind === "equal") {
      pos++;
      return;
    }
    const prev = k > 0 ? ops[k - 1]! : undefined;
    if (!prev || prev.kind === "equal") clusters.push({ from: pos, to: pos });
    clusterOf[k] = clusters.length - 1;
    if (op.kind === "delete") {
      pos++;
      clusters[clusters.length - 1]!.to = pos;
    }
  });
  // Groups of clusters whose context windows touch.
  const groupOf: number[] = [];
  const windows: { start: number; end: number }[] = [];
  clusters.forEach((c, i) => {
    const last = windows[windows.length - 1];
    if (last && c.from - context <= last.end) {
      last.end = Math.min(a.length, c.to + context);
    } else {
      windows.push({ start: Math.max(0, c.from - context), end: Math.min(a.length, c.to + context) });
    }
    groupOf[i] = windows.length - 1;
  });
  const out: Group[] = windows.map((w) => ({ ...w, body: [], oldLines: [] }));
  ops.forEach((op, k) => {
    if (op.kind === "equal") {
      const g = out.find((w) => op.a >= w.start && op.a < w.end);
      if (g) {
        g.body.push(` ${a[op.a]}`);
        g.oldLines.push(a[op.a]!);
      }
      return;
    }
    const g = out[groupOf[clusterOf[k]!]!]!;
    if (op.kind === "insert") g.body.push(`+${op.line}`);
    else {
      g.body.push(`-${a[op.a]}`);
      g.oldLines.push(a[op.a]!);
    }
  });
  let cursor = 0;
  for (const g of out) {
    if (g.oldLines.length === 0 && a.length > 0) return null; // a pure addition appends: needs context
    if (g.oldLines.length > 0 && firstMatch(a, g.oldLines, cursor) !== g.start) return null;
    cursor = g.end;
  }
  return out;
}

/** Update-file section turning `a` into the result of `ops`. */
function updateSection(r: Random, a: readonly string[], ops: readonly Op[]): string[] {
  for (let context = r.int(4); ; context++) {
    const found = groups(a, ops, context);
    if (found === null) continue;
    const lines: string[] = [];
    let cursor = 0;
    found.forEach((group, i) => {
      const header = headerFor(r, a, cursor, group.start);
      if (i === 0 && header === null && r.chance(0.3)) {
        // The first chunk may omit `@@`.
      } else lines.push(header === null ? "@@" : `@@ ${header}`);
      lines.push(...group.body);
      if (group.end === a.length && group.oldLines.length > 0 && r.chance(0.5)) lines.push("*** End of File");
      cursor = group.end;
    });
    return lines;
  }
}

/** Sometimes a `@@ line` header: a line before the hunk that is its own first occurrence. */
function headerFor(r: Random, a: readonly string[], cursor: number, start: number): string | null {
  if (start <= cursor || !r.chance(0.3)) return null;
  const k = cursor + r.int(start - cursor);
  return firstMatch(a, [a[k]!], cursor) === k ? a[k]! : null;
}

export function applyOps(a: readonly string[], ops: readonly Op[]): string[] {
  return ops.flatMap((op) => (op.kind === "insert" ? [op.line] : op.kind === "equal" ? [a[op.a]!] : []));
}

export interface Scenario {
  before: Record<string, string>;
  after: Record<string, string>;
  patch: string;
}

/** The lines the engine sees in a file's text. */
export function linesOf(text: string): string[] {
  if (text === "") return [];
  const lines = text.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  return lines;
}

/** A random tree, a random set of file operations, and the patch that performs them. */
export function randomScenario(r: Random): Scenario {
  const before: Record<string, string> = {};
  const fileCount = r.int(4) + 1;
  for (let i = 0; i < fileCount; i++) {
    const path = r.chance(0.3) ? `d${i}/f${i}.txt` : `f${i}.txt`;
    before[path] = textOf(randomLines(r, 30), r.chance(0.8));
  }
  return randomPatchFor(r, before, "n");
}

/** Random operations on the files of `before`; new files are named `new/{prefix}{i}.txt`. */
export function randomPatchFor(r: Random, before: Record<string, string>, prefix: string): Scenario {
  const after: Record<string, string> = { ...before };
  const sections: string[][] = [];
  for (const path of Object.keys(before)) {
    const roll = r.int(10);
    if (roll < 2) continue;
    if (roll < 3) {
      sections.push([`*** Delete File: ${path}`]);
      delete after[path];
      continue;
    }
    const a = linesOf(before[path]!);
    const ops = randomEdits(r, a);
    const b = applyOps(a, ops);
    const header = [`*** Update File: ${path}`];
    let dest = path;
    if (roll === 9) {
      dest = `moved/${path.replaceAll("/", "_")}`;
      header.push(`*** Move to: ${dest}`);
      delete after[path];
    }
    after[dest] = b.length === 0 ? "" : `${b.join("\n")}\n`;
    sections.push([...header, ...updateSection(r, a, ops)]);
  }
  for (let i = r.int(3); i > 0; i--) {
    const path = `new/${prefix}${i}.txt`;
    const lines = randomLines(r, 5);
    sections.push([`*** Add File: ${path}`, ...lines.map((line) => `+${line}`)]);
    after[path] = lines.length === 0 ? "" : `${lines.join("\n")}\n`;
  }
  if (sections.length === 0) {
    const path = `new/${prefix}-only.txt`;
    sections.push([`*** Add File: ${path}`, "+x"]);
    after[path] = "x\n";
  }
  // Any order: sections touch distinct paths.
  for (let i = sections.length - 1; i > 0; i--) {
    const j = r.int(i + 1);
    [sections[i], sections[j]] = [sections[j]!, sections[i]!];
  }
  const patch = `${["*** Begin Patch", ...sections.flat(), "*** End Patch"].join("\n")}${r.chance(0.5) ? "\n" : ""}`;
  return { before, after, patch };
}

/** Structural lines garbage patches splice in; paths stay relative and inside the tree. */
const NOISE = [
  "@@",
  "@@ foo",
  "*** End of File",
  "*** Update File: f0.txt",
  "*** Delete File: f1.txt",
  "*** Add File: g.txt",
  "*** Move to: h.txt",
  "*** End Patch",
  "*** Begin Patch",
  "+added",
  "-foo",
  " bar",
  "",
  "garbage",
];
const SAFE_CHARS = "abcz019 +-@*\t";

/** A valid patch damaged in a few random ways (never introducing `/` or `.`). */
export function mutatePatch(r: Random, patch: string): string {
  const lines = patch.split("\n");
  for (let n = r.int(3) + 1; n > 0; n--) {
    const i = r.int(lines.length);
    switch (r.int(6)) {
      case 0:
        lines.splice(i, 1);
        break;
      case 1:
        lines.splice(i, 0, lines[i] ?? "");
        break;
      case 2:
        lines.splice(i, 0, r.pick(NOISE));
        break;
      case 3: {
        const j = r.int(lines.length);
        [lines[i], lines[j]] = [lines[j] ?? "", lines[i] ?? ""];
        break;
      }
      case 4: {
        const line = lines[i] ?? "";
        const at = r.int(line.length + 1);
        lines[i] = line.slice(0, at) + r.pick([...SAFE_CHARS]) + line.slice(at + (r.chance(0.5) ? 1 : 0));
        break;
      }
      default:
        lines.length = Math.max(1, i);
    }
  }
  return lines.join("\n");
}
