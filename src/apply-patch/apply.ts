/**
 * One-call patch application: parse, plan (verify everything), commit (atomic write).
 */
import type { FileChange } from "../protocol/events.js";
import { commitPatch } from "./commit.js";
import { parsePatch } from "./parser.js";
import { type AffectedPaths, planPatch } from "./plan.js";

export interface ApplyPatchResult {
  /** `Success. Updated the following files:\n` then `A|M|D path` lines. */
  summary: string;
  /** Per absolute path, as in patch_apply_begin/end. */
  changes: Record<string, FileChange>;
  /** Paths as written in the patch. */
  affected: AffectedPaths;
}

/**
 * Apply patch text relative to `cwd`. Throws a PatchError subclass (PatchParseError,
 * PatchRejectedError, PatchVerifyError, PatchWriteError) whose message is the text to show;
 * on any throw the tree is unchanged.
 */
export async function applyPatch(text: string, cwd: string): Promise<ApplyPatchResult> {
  const plan = await commitPatch(await planPatch(parsePatch(text), cwd));
  return { summary: plan.summary, changes: plan.changes, affected: plan.affected };
}
