/**
 * Planning: read every path a patch names, verify every hunk, and compute the final content of
 * each file, all before anything is written. The plan is what approval looks at (touchedPaths,
 * changes) and what commitPatch writes.
 *
 * Each hunk is verified against the files as they are on disk, as Codex does (or, with the
 * client's EditorFiles, a file to update as the editor holds it) (so "add X, then
 * delete X" fails: X is not on disk yet). When several hunks touch one path, the later ones are
 * also applied on top of the earlier ones' result, so the written content is their combination.
 */
import { resolve } from "node:path";
import type { EditorFiles } from "../protocol/editor-files.js";
import type { FileChange } from "../protocol/events.js";
import { errorMessage } from "../util/errors.js";
import { deriveUpdate, deriveUpdatedText } from "./derive.js";
import { describeIoError, PatchRejectedError, PatchVerifyError } from "./errors.js";
import type { Hunk, ParsedPatch } from "./parser.js";
import { decodeUtf8, type FileSnapshot, readSnapshot } from "./snapshot.js";
import { formatUnified, type TextLines, unifiedHunks } from "./unified.js";

/** Paths as written in the patch, by kind, in patch order (a move is listed as its destination). */
export interface AffectedPaths {
  added: string[];
  modified: string[];
  deleted: string[];
}

/** The final state of one path: its new text (and mode to keep), or deleted. */
export type FinalState = { text: string; mode: number | null } | null;

/**
 * How a file's new lines relate to its lines before the patch, known from the replacements
 * made, so diffs of big files need no full line diff.
 */
export interface LineEdit {
  /** The path whose content before the patch `before` is (the source, for a move). */
  readonly from: string;
  /** That content as text. */
  readonly beforeText: string;
  readonly before: TextLines;
  readonly after: TextLines;
  /** `match[i]`: index in `after.lines` of `before.lines[i]`, or -1. */
  readonly match: Int32Array;
}

export interface PatchPlan {
  readonly patch: ParsedPatch;
  /** Directory relative paths were resolved against. */
  readonly cwd: string;
  /** Per absolute path, as patch_apply_begin/end carry them (an update is keyed by its source). */
  readonly changes: Record<string, FileChange>;
  /**
   * Every absolute path the patch writes or deletes: sources and destinations of moves, and
   * the real targets of symlinked files. The policy layer decides approval from this list.
   */
  readonly touchedPaths: readonly string[];
  readonly affected: AffectedPaths;
  /** `Success. Updated the following files:` … as printed after a successful commit. */
  readonly summary: string;
  /** State before the patch of every path in `after`. */
  readonly before: ReadonlyMap<string, FileSnapshot>;
  /** State after the patch of every path it touches. */
  readonly after: ReadonlyMap<string, FinalState>;
  /** Renames done by the patch, source to destination (absolute). */
  readonly moves: readonly (readonly [string, string])[];
  /** Line edits by the path holding the result, for files changed by one Update only. */
  readonly edits: ReadonlyMap<string, LineEdit>;
}

/** Codex's success text: added, then modified, then deleted paths, as written in the patch. */
export function formatSummary(affected: AffectedPaths): string {
  let text = "Success. Updated the following files:\n";
  for (const path of affected.added) text += `A ${path}\n`;
  for (const path of affected.modified) text += `M ${path}\n`;
  for (const path of affected.deleted) text += `D ${path}\n`;
  return text;
}

/**
 * Read and verify; throws PatchRejectedError for a patch without hunks and PatchVerifyError
 * when a hunk does not fit. Never writes. With `editor`, the current text of a file to update
 * is the editor's when it has one (see FileSnapshot.editorText).
 */
export async function planPatch(patch: ParsedPatch, cwd: string, editor?: EditorFiles): Promise<PatchPlan> {
  if (patch.hunks.length === 0) throw new PatchRejectedError("empty patch");
  const before = await readAll(patch.hunks, cwd, editor);
  const snapshot = (path: string): FileSnapshot => before.get(path)!;
  const after = new Map<string, FinalState>();
  const changes: Record<string, FileChange> = {};
  const affected: AffectedPaths = { added: [], modified: [], deleted: [] };
  const moves: [string, string][] = [];
  const edits = new Map<string, LineEdit>();

  for (const hunk of patch.hunks) {
    const path = resolve(cwd, hunk.path);
    if (hunk.type === "add") {
      changes[path] = { type: "add", content: hunk.contents };
      after.set(path, { text: hunk.contents, mode: currentMode(after, snapshot(path)) });
      edits.delete(path);
      affected.added.push(hunk.path);
      continue;
    }
    if (hunk.type === "delete") {
      const { bytes, readError } = snapshot(path);
      if (bytes === null) throw new PatchVerifyError(`Failed to read ${path}: ${describeIoError(readError)}`);
      // A binary file may be deleted; the event shows it decoded leniently.
      changes[path] = { type: "delete", content: bytes.toString("utf8") };
      after.set(path, null);
      edits.delete(path);
      affected.deleted.push(hunk.path);
      continue;
    }
    const source = snapshot(path);
    const onDisk = readText(source, `Failed to read file to update ${path}`);
    const derived = deriveUpdate(onDisk, hunk.chunks, path);
    const earlier = after.get(path);
    let newText = derived.text;
    let unifiedDiff: string;
    let edit: LineEdit | undefined;
    if (earlier === undefined) {
      edit = {
        from: path,
        beforeText: onDisk,
        before: { lines: derived.oldLines, missingNewline: onDisk !== "" && !onDisk.endsWith("\n") },
        after: { lines: derived.newLines, missingNewline: false },
        match: derived.match,
      };
      unifiedDiff = formatUnified(edit.before, edit.after, edit.match, 1);
    } else {
      // An earlier hunk of this patch changed the file: build on its result.
      if (earlier === null) {
        throw new PatchVerifyError(
          `Failed to read file to update ${path}: No such file or directory (os error 2)`,
        );
      }
      newText = deriveUpdatedText(earlier.text, hunk.chunks, path);
      unifiedDiff = unifiedHunks(earlier.text, newText, 1);
    }
    const mode = currentMode(after, source);
    const dest = hunk.movePath === null ? null : resolve(cwd, hunk.movePath);
    changes[path] = { type: "update", unified_diff: unifiedDiff, move_path: dest };
    const target = dest ?? path;
    if (target !== path) {
      after.set(path, null);
      edits.delete(path);
      moves.push([path, target]);
    }
    after.set(target, { text: newText, mode });
    if (edit) edits.set(target, edit);
    else edits.delete(target);
    affected.modified.push(hunk.movePath ?? hunk.path);
  }

  const touched = new Set<string>();
  for (const path of after.keys()) {
    touched.add(path);
    touched.add(snapshot(path).writeTarget);
  }
  return {
    patch,
    cwd,
    changes,
    touchedPaths: [...touched],
    affected,
    summary: formatSummary(affected),
    before,
    after,
    moves,
    edits,
  };
}

/** Snapshot every path the hunks name, in parallel; files to update also from the editor. */
async function readAll(
  hunks: readonly Hunk[],
  cwd: string,
  editor: EditorFiles | undefined,
): Promise<Map<string, FileSnapshot>> {
  const paths = new Set<string>();
  const updated = new Set<string>();
  for (const hunk of hunks) {
    paths.add(resolve(cwd, hunk.path));
    if (hunk.type === "update") updated.add(resolve(cwd, hunk.path));
    if (hunk.type === "update" && hunk.movePath !== null) paths.add(resolve(cwd, hunk.movePath));
  }
  const snapshots = await Promise.all(
    [...paths].map(async (path) => {
      const snapshot = await readSnapshot(path);
      if (!editor || !updated.has(path)) return snapshot;
      return { ...snapshot, editorText: await readFromEditor(editor, path) };
    }),
  );
  return new Map(snapshots.map((s) => [s.path, s]));
}

/** The editor's text of `path` (null: read the disk); a failed read fails the patch. */
export async function readFromEditor(editor: EditorFiles, path: string): Promise<string | null> {
  try {
    return await editor.read(path);
  } catch (error) {
    throw new PatchVerifyError(`Failed to read file to update ${path}: ${errorMessage(error)}`, {
      cause: error,
    });
  }
}

function readText(snapshot: FileSnapshot, context: string): string {
  if (typeof snapshot.editorText === "string") return snapshot.editorText;
  if (snapshot.bytes === null)
    throw new PatchVerifyError(`${context}: ${describeIoError(snapshot.readError)}`);
  try {
    return decodeUtf8(snapshot.bytes);
  } catch (error) {
    throw new PatchVerifyError(`${context}: ${describeIoError(error)}`, { cause: error });
  }
}

/** Mode a rewrite of `snapshot.path` keeps: the latest planned one, else the file's own. */
function currentMode(after: ReadonlyMap<string, FinalState>, snapshot: FileSnapshot): number | null {
  const planned = after.get(snapshot.path);
  return planned ? planned.mode : snapshot.mode;
}
