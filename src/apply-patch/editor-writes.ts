/**
 * A commit's writes through the client's editor (EditorFiles): the new text of every file added
 * or updated in place goes to the editor, which the user sees in their buffers. The editor has no
 * undo call, so a refusal midway leaves the earlier files written; the error says which, and
 * carries that part of the plan so the turn diff shows what did change.
 */
import type { EditorFiles } from "../protocol/editor-files.js";
import { errorMessage } from "../util/errors.js";
import { PatchWriteError } from "./errors.js";
import type { PatchPlan } from "./plan.js";

/** A failed write after the editor took some files, which stay written: `written` is that part. */
export class PartlyWrittenError extends PatchWriteError {
  override name = "PartlyWrittenError";
  constructor(
    message: string,
    /** The part of the patch written through the editor before the failure. */
    readonly written: PatchPlan,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** One file written through the editor. */
export interface EditorWrite {
  path: string;
  text: string;
}

/**
 * Write each file in turn, pushing its path to `written` once the editor took it; throws
 * PatchWriteError (with the editor's reason) at the first refusal.
 */
export async function writeThroughEditor(
  editor: EditorFiles,
  writes: readonly EditorWrite[],
  written: string[],
): Promise<void> {
  for (const op of writes) {
    try {
      await editor.write(op.path, op.text);
    } catch (error) {
      throw new PatchWriteError(`Failed to write file ${op.path}: ${errorMessage(error)}`, { cause: error });
    }
    written.push(op.path);
  }
}

/**
 * `error` as the patch's failure once `written` (absolute paths) went through the editor: its
 * message lists them, and it carries that part of `plan`. Unchanged when nothing was written.
 */
export function keptByEditor(error: unknown, plan: PatchPlan, written: readonly string[]): unknown {
  if (written.length === 0) return error;
  const lines = written.map((path) => `${plan.changes[path]?.type === "add" ? "A" : "M"} ${path}`);
  const message = `${errorMessage(error)}\nThese files were already written through the editor and keep their new contents:\n${lines.join("\n")}`;
  return new PartlyWrittenError(message, planPart(plan, written), { cause: error });
}

/** The plan restricted to `paths` (no moves: those run on disk after the editor's writes). */
function planPart(plan: PatchPlan, paths: readonly string[]): PatchPlan {
  const keep = new Set(paths);
  const pick = <V>(map: ReadonlyMap<string, V>): Map<string, V> =>
    new Map([...map].filter(([path]) => keep.has(path)));
  return {
    ...plan,
    changes: Object.fromEntries(Object.entries(plan.changes).filter(([path]) => keep.has(path))),
    touchedPaths: plan.touchedPaths.filter((path) => keep.has(path)),
    before: pick(plan.before),
    after: pick(plan.after),
    moves: [],
    edits: pick(plan.edits),
  };
}
