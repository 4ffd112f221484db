/**
 * The turn diff: one git-style unified diff of everything apply_patch changed during a turn,
 * relative to the start of the turn. Cheap by construction:
 * - a file's baseline is captured the first time a patch touches it, from the plan's snapshot,
 *   and its current content is what the last patch wrote: nothing is re-read, and only the
 *   files a patch wrote are hashed (for the `index` line);
 * - the line matching baseline → current is carried along from each patch's own replacements
 *   (composed across patches, gaps re-diffed locally), so a small edit of a big file costs no
 *   full diff; only renames and files edited by other means fall back to a full line diff;
 * - each file's rendered diff is cached until a patch touches that file again.
 *
 * Paths are shown relative to their git repository's root, or absolute outside one (giving
 * Codex's `a//tmp/x`). Edits made by other means (shell commands) between patches are not seen.
 */
import { createHash } from "node:crypto";
import { stat } from "node:fs/promises";
import { dirname, join, relative, sep } from "node:path";
import { matchRange } from "./line-diff.js";
import type { LineEdit, PatchPlan } from "./plan.js";
import type { FileSnapshot } from "./snapshot.js";
import { decodeUtf8 } from "./snapshot.js";
import { formatUnified, type TextLines, unifiedHunks } from "./unified.js";

const ZERO_OID = "0".repeat(40);
const DEFAULT_MODE = 0o644;

/** One side of a file's diff: text, or bytes when not UTF-8. */
interface Side {
  text: string | null;
  bytes: Buffer | null;
  mode: number;
  oid: string;
}

interface Entry {
  /** Path shown in the diff. */
  display: string;
  baseline: Side | null;
  current: Side | null;
  /**
   * Baseline lines → current lines when known from the patches (see LineEdit); `identity`
   * while the file is as it was at turn start; null when unknown (diffed at render).
   */
  match: Int32Array | "identity" | null;
  baselineLines: TextLines | null;
  currentLines: TextLines | null;
}

function textSide(text: string, mode: number | null): Side {
  const hash = createHash("sha1").update(`blob ${Buffer.byteLength(text, "utf8")}\0`);
  return { text, bytes: null, mode: mode ?? DEFAULT_MODE, oid: hash.update(text, "utf8").digest("hex") };
}

function snapshotSide(snapshot: FileSnapshot | undefined, knownText: string | undefined): Side | null {
  // Read through the editor: its text was the file's content, whatever the disk held.
  const editorText = snapshot?.editorText ?? undefined;
  if (snapshot && editorText !== undefined) return textSide(knownText ?? editorText, snapshot.mode);
  if (!snapshot?.bytes) return null;
  if (knownText !== undefined) return textSide(knownText, snapshot.mode);
  let text: string | null = null;
  try {
    text = decodeUtf8(snapshot.bytes);
  } catch {
    const hash = createHash("sha1").update(`blob ${snapshot.bytes.length}\0`).update(snapshot.bytes);
    return {
      text: null,
      bytes: snapshot.bytes,
      mode: snapshot.mode ?? DEFAULT_MODE,
      oid: hash.digest("hex"),
    };
  }
  return textSide(text, snapshot.mode);
}

export class TurnDiffTracker {
  private readonly entries = new Map<string, Entry>();
  /** Destination of a move in this turn → the path the content had at turn start. */
  private readonly renamedFrom = new Map<string, string>();
  /** Rendered diff per path (or per `origin\0dest` rename pair), valid until touched again. */
  private readonly rendered = new Map<string, string>();
  private readonly gitRoots = new Map<string, string | null>();

  /** Record a committed plan. Call once per successful patch, after it was written. */
  async record(plan: PatchPlan): Promise<void> {
    for (const [path, state] of plan.after) {
      const edit = plan.edits.get(path);
      const sameFile = edit !== undefined && edit.from === path;
      let entry = this.entries.get(path);
      if (entry === undefined) {
        const baseline = snapshotSide(plan.before.get(path), sameFile ? edit.beforeText : undefined);
        entry = {
          display: await this.displayPath(path),
          baseline,
          current: baseline,
          match: baseline?.text != null ? "identity" : null,
          baselineLines: null,
          currentLines: null,
        };
        this.entries.set(path, entry);
      }
      const previous = entry.current;
      entry.current = state === null ? null : textSide(state.text, state.mode);
      entry.match = sameFile && state !== null ? this.advance(entry, previous, edit) : null;
      this.invalidate(path);
    }
    for (const [from, to] of plan.moves) {
      const origin = this.renamedFrom.get(from) ?? from;
      this.renamedFrom.delete(from);
      if (origin !== to) this.renamedFrom.set(to, origin);
    }
  }

  /** The whole turn's diff, files sorted by path; "" when nothing differs from turn start. */
  unifiedDiff(): string {
    const parts: [string, string][] = [];
    const paired = new Set<string>();
    for (const [dest, origin] of this.renamedFrom) {
      const from = this.entries.get(origin);
      const to = this.entries.get(dest);
      if (!from || !to || from.current !== null || from.baseline === null || to.baseline !== null) continue;
      paired.add(origin).add(dest);
      const text = this.cached(`${origin}\0${dest}`, () =>
        renderFile(from.display, from.baseline, to.display, to.current, null),
      );
      parts.push([to.display, text]);
    }
    for (const [path, entry] of this.entries) {
      if (paired.has(path)) continue;
      const text = this.cached(path, () =>
        renderFile(entry.display, entry.baseline, entry.display, entry.current, knownHunks(entry)),
      );
      parts.push([entry.display, text]);
    }
    parts.sort((x, y) => (x[0] < y[0] ? -1 : x[0] > y[0] ? 1 : 0));
    return parts.map(([, text]) => text).join("");
  }

  /**
   * The baseline → new current matching after `edit`, by composing the entry's matching with
   * the patch's; null (full diff at render) when the patch did not start from our current.
   */
  private advance(entry: Entry, previous: Side | null, edit: LineEdit): Int32Array | null {
    const known = entry.match;
    if (known === null || previous === null || previous.text !== edit.beforeText) return null;
    entry.currentLines = edit.after;
    if (known === "identity") {
      entry.baselineLines = edit.before;
      return edit.match;
    }
    const baselineLines = entry.baselineLines;
    if (baselineLines === null) return null;
    const composed = new Int32Array(known.length);
    for (let i = 0; i < known.length; i++) {
      const mid = known[i]!;
      composed[i] = mid >= 0 ? edit.match[mid]! : -1;
    }
    refineGaps(baselineLines.lines, edit.after.lines, composed);
    return composed;
  }

  private cached(key: string, render: () => string): string {
    let text = this.rendered.get(key);
    if (text === undefined) {
      text = render();
      this.rendered.set(key, text);
    }
    return text;
  }

  private invalidate(path: string): void {
    this.rendered.delete(path);
    for (const key of this.rendered.keys()) {
      if (key.includes("\0") && key.split("\0").includes(path)) this.rendered.delete(key);
    }
  }

  private async displayPath(path: string): Promise<string> {
    const root = await this.gitRoot(dirname(path));
    if (root === null) return path;
    return relative(root, path).split(sep).join("/");
  }

  /** Nearest ancestor holding `.git`, cached per directory (a few stats per new directory). */
  private async gitRoot(dir: string): Promise<string | null> {
    const known = this.gitRoots.get(dir);
    if (known !== undefined) return known;
    const found = await stat(join(dir, ".git")).then(
      () => true,
      () => false,
    );
    const parent = dirname(dir);
    const root = found ? dir : parent === dir ? null : await this.gitRoot(parent);
    this.gitRoots.set(dir, root);
    return root;
  }
}

/** Re-diff each gap between matched pairs, so lines changed and changed back match again. */
function refineGaps(oldLines: readonly string[], newLines: readonly string[], match: Int32Array): void {
  let i0 = -1;
  let j0 = -1;
  for (let i = 0; i <= match.length; i++) {
    const j = i < match.length ? match[i]! : newLines.length;
    if (j < 0) continue;
    if (i - i0 > 1 && j - j0 > 1) matchRange(oldLines, newLines, i0 + 1, i, j0 + 1, j, match);
    i0 = i;
    j0 = j;
  }
}

/** Hunks from the carried matching, or null to let renderFile diff the texts. */
function knownHunks(entry: Entry): (() => string) | null {
  const { match, baselineLines, currentLines, baseline, current } = entry;
  if (!(match instanceof Int32Array) || !baselineLines || !currentLines || !baseline || !current) return null;
  return () => formatUnified(baselineLines, currentLines, match, 3);
}

function fileMode(mode: number): string {
  return mode & 0o111 ? "100755" : "100644";
}

/** One file's `diff --git` section; "" when both sides are equal. */
function renderFile(
  leftName: string,
  left: Side | null,
  rightName: string,
  right: Side | null,
  hunks: (() => string) | null,
): string {
  if (left === null && right === null) return "";
  const leftMode = left ? fileMode(left.mode) : "";
  const rightMode = right ? fileMode(right.mode) : "";
  if (left && right && left.oid === right.oid && leftMode === rightMode && leftName === rightName) return "";
  let out = `diff --git a/${leftName} b/${rightName}\n`;
  if (left === null) out += `new file mode ${rightMode}\n`;
  else if (right === null) out += `deleted file mode ${leftMode}\n`;
  else if (leftMode !== rightMode) out += `old mode ${leftMode}\nnew mode ${rightMode}\n`;
  const leftOid = left?.oid ?? ZERO_OID;
  const rightOid = right?.oid ?? ZERO_OID;
  if (leftOid === rightOid) return out;
  out += `index ${leftOid}..${rightOid}\n`;
  const oldLabel = left ? `a/${leftName}` : "/dev/null";
  const newLabel = right ? `b/${rightName}` : "/dev/null";
  const oldText = left ? left.text : "";
  const newText = right ? right.text : "";
  if (oldText === null || newText === null) return `${out}Binary files ${oldLabel} and ${newLabel} differ\n`;
  const body = hunks ? hunks() : unifiedHunks(oldText, newText, 3);
  // Like git, an empty file added or removed has no hunks and no ---/+++ lines.
  return body === "" ? out : `${out}--- ${oldLabel}\n+++ ${newLabel}\n${body}`;
}
