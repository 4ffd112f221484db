/**
 * The apply_patch engine: the patch language, matching, atomic application, shell heredoc
 * detection and the per-turn diff. Pure file logic; the tool glue is tools/builtin/apply-patch.ts.
 *
 * Flow: parsePatch(text) → planPatch(patch, cwd) (reads and verifies everything; approval looks
 * at approvalPaths(plan) and plan.changes) → commitPatch(plan) (temp files + renames, rolled
 * back on failure; returns the plan written) → turn.diffTracker.record(written).
 */
export { type ApplyPatchResult, applyPatch } from "./apply.js";
export { type CommitOptions, commitPatch } from "./commit.js";
export { PartlyWrittenError } from "./editor-writes.js";
export {
  describeIoError,
  PatchError,
  PatchParseError,
  PatchRejectedError,
  PatchVerifyError,
  PatchWriteError,
  VERIFICATION_PREFIX,
} from "./errors.js";
export { APPLY_PATCH_LARK_GRAMMAR } from "./grammar.js";
export {
  type ExtractedPatch,
  extractHeredocPatch,
  IMPLICIT_INVOCATION_MESSAGE,
  isImplicitPatchInvocation,
} from "./heredoc.js";
export { type Hunk, type ParsedPatch, parsePatch, type UpdateChunk } from "./parser.js";
export {
  type AffectedPaths,
  type FinalState,
  formatSummary,
  type LineEdit,
  type PatchPlan,
  planPatch,
} from "./plan.js";
export { approvalPaths } from "./real-paths.js";
export { LineIndex, seekSequence } from "./seek-sequence.js";
export type { FileSnapshot } from "./snapshot.js";
export { TurnDiffTracker } from "./turn-diff.js";
export { type TextLines, unifiedHunks } from "./unified.js";
