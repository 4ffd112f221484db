/**
 * The apply_patch tool: a freeform (grammar) custom tool for models trained on it, or a JSON
 * function `{input}` for the others; the handler takes both payload kinds. Also the native path
 * for `apply_patch <<'EOF'` heredocs that shell tools intercept.
 *
 * Flow: prepare = parse + plan (everything verified; failures go back to the model as text,
 * nothing written) and describe the real paths for the gate → run = patch_apply_begin → commit
 * (atomic; re-planned if files changed meanwhile) → patch_apply_end → turn_diff.
 * With the turn's editorFiles (an ACP client's buffers), files to update are read from the
 * editor and added/updated files are written through it, after the same approval.
 */
import { z } from "zod";
import {
  APPLY_PATCH_LARK_GRAMMAR,
  approvalPaths,
  commitPatch,
  PartlyWrittenError,
  PatchError,
  type PatchPlan,
  PatchWriteError,
  parsePatch,
  planPatch,
  VERIFICATION_PREFIX,
} from "../../apply-patch/index.js";
import type { EditorFiles } from "../../protocol/editor-files.js";
import { errorMessage } from "../../util/errors.js";
import { parseFunctionArguments } from "../define-tool.js";
import { formatWallTime } from "../exec-output.js";
import { toParametersSchema } from "../json-schema.js";
import {
  type ApprovalOutcome,
  type ApprovalRequest,
  type ToolDefinition,
  ToolError,
  type ToolHandler,
  type ToolInvocation,
} from "../types.js";

const FORMAT_GUIDE = `A patch starts with the line \`*** Begin Patch\`, ends with the line \`*** End Patch\`, and holds one or more file sections in between:

*** Add File: <path>      create a file (an existing one is replaced); every content line follows, each starting with \`+\`
*** Delete File: <path>   remove an existing file; nothing follows
*** Update File: <path>   edit an existing file; optionally followed at once by \`*** Move to: <new path>\` to rename it

An Update section holds one or more change blocks. Start each block with a line \`@@\`, or \`@@ <text>\` where <text> is a line copied exactly from the file above the change (such as the enclosing function or class header) that narrows down where the block applies. Every other line of a block starts with one marker character:
  (a space)  context: an unchanged line, copied exactly from the file
  -          a line to remove, copied exactly from the file
  +          a line to add
Include about 3 lines of unchanged context before and after each change so its place is unambiguous. Blocks must follow the order of the file. For a change at the very end of the file, finish the block with the line \`*** End of File\`.

Paths are relative to the working directory, or absolute. The patch is checked as a whole before anything is written: if any block does not match the file, no file changes and the error names what was not found, so re-read the file and send a corrected patch.

Example: create a file, edit a function while renaming its file, and delete a file:

*** Begin Patch
*** Add File: notes/todo.md
+# Todo
+- write the release notes
*** Update File: lib/math_utils.js
*** Move to: lib/math.js
@@ function clamp(value, low, high) {
   if (value < low) return low;
-  if (value > high) return low;
+  if (value > high) return high;
   return value;
*** Delete File: lib/unused.js
*** End Patch`;

const FREEFORM_DESCRIPTION = `Create, edit, rename and delete files by sending a patch. Send the patch text itself as the input: no JSON, no quoting, no code fences.

${FORMAT_GUIDE}`;

const JSON_DESCRIPTION = `Create, edit, rename and delete files by sending a patch in the \`input\` argument.

${FORMAT_GUIDE}`;

const ArgsSchema = z.object({
  input: z.string().describe("The whole patch, from `*** Begin Patch` to `*** End Patch`."),
});

/** The freeform custom tool, its format the Lark grammar. */
export function applyPatchFreeformTool(): ToolDefinition {
  return {
    spec: {
      type: "custom",
      name: "apply_patch",
      description: FREEFORM_DESCRIPTION,
      format: { type: "grammar", syntax: "lark", definition: APPLY_PATCH_LARK_GRAMMAR },
    },
    handler,
    supportsParallel: false,
  };
}

/** The JSON function variant: `apply_patch {input: string}`. */
export function applyPatchJsonTool(): ToolDefinition {
  return {
    spec: {
      type: "function",
      name: "apply_patch",
      description: JSON_DESCRIPTION,
      strict: false,
      parameters: toParametersSchema(ArgsSchema),
    },
    handler,
    supportsParallel: false,
  };
}

/** A verified patch: what it would change (for the gate) and how to apply it. */
export interface PreparedPatch {
  approval: ApprovalRequest;
  apply(approved: ApprovalOutcome): Promise<{ output: string; exitCode: 0 | 1 }>;
}

/** Parse, verify and plan `patch` relative to `cwd`; throws ToolError.respond when it does not. */
export async function preparePatch(
  patch: string,
  cwd: string,
  invocation: ToolInvocation,
): Promise<PreparedPatch> {
  const plan = await verify(patch, cwd, invocation.turn.editorFiles);
  const paths = await approvalPaths(plan);
  return {
    approval: { kind: "patch", changes: plan.changes, paths },
    apply: (approved) => execute(plan, invocation, approved, new Set(paths)),
  };
}

const handler: ToolHandler = {
  kinds: ["custom", "function"],
  async prepare(invocation) {
    const patch = await preparePatch(patchText(invocation), invocation.turn.cwd, invocation);
    return {
      approval: patch.approval,
      async run(approved) {
        const started = performance.now();
        const { output, exitCode } = await patch.apply(approved);
        const wallTime = formatWallTime(performance.now() - started);
        return {
          content: `Exit code: ${exitCode}\nWall time: ${wallTime} seconds\nOutput:\n${output}`,
          success: exitCode === 0,
        };
      },
    };
  },
};

function patchText(invocation: ToolInvocation): string {
  const { payload } = invocation;
  if (payload.kind === "custom") return payload.input;
  return parseFunctionArguments("apply_patch", invocation, ArgsSchema).input;
}

/** Parse and plan; every failure becomes text for the model. */
async function verify(text: string, cwd: string, editor: EditorFiles | undefined): Promise<PatchPlan> {
  try {
    return await planPatch(parsePatch(text), cwd, editor);
  } catch (error) {
    if (error instanceof PatchError) throw ToolError.respond(error.message, { cause: error });
    // An unexpected I/O failure while reading is still the model's to handle, not the turn's end.
    const message = errorMessage(error);
    throw ToolError.respond(`${VERIFICATION_PREFIX}${message}`, { cause: error });
  }
}

/**
 * The gate approved real paths; a directory swapped for a symlink since then (or a re-plan
 * after files changed) would write elsewhere. Checked again right before writing.
 */
async function stillApproved(plan: PatchPlan, approved: ReadonlySet<string>): Promise<void> {
  const moved = (await approvalPaths(plan)).filter((path) => !approved.has(path));
  if (moved.length > 0) {
    throw new PatchWriteError(
      `patch not applied: where it writes changed since it was checked (${moved.slice(0, 3).join(", ")}); re-read the files and send the patch again`,
    );
  }
}

/** Commit with begin/end events, then publish the turn diff. */
async function execute(
  plan: PatchPlan,
  invocation: ToolInvocation,
  approved: ApprovalOutcome,
  approvedPaths: ReadonlySet<string>,
): Promise<{ output: string; exitCode: 0 | 1 }> {
  const { turn, callId } = invocation;
  turn.emit({
    type: "patch_apply_begin",
    call_id: callId,
    turn_id: turn.turnId,
    // Only a human's approval makes a patch not auto-approved.
    auto_approved: !approved.asked,
    changes: plan.changes,
  });
  let applied: PatchPlan;
  try {
    applied = await commitPatch(plan, {
      verify: (current) => stillApproved(current, approvedPaths),
      editorFiles: turn.editorFiles,
    });
  } catch (error) {
    const message = errorMessage(error);
    // Files the editor took before refusing one stay written: the turn diff shows them.
    const written = error instanceof PartlyWrittenError ? error.written : null;
    turn.emit({
      type: "patch_apply_end",
      call_id: callId,
      turn_id: turn.turnId,
      stdout: "",
      stderr: `${message}\n`,
      success: false,
      changes: plan.changes,
    });
    if (written) await publishDiff(turn, written);
    return { output: `${message}\n`, exitCode: 1 };
  }
  turn.emit({
    type: "patch_apply_end",
    call_id: callId,
    turn_id: turn.turnId,
    stdout: applied.summary,
    stderr: "",
    success: true,
    changes: applied.changes,
  });
  await publishDiff(turn, applied);
  return { output: applied.summary, exitCode: 0 };
}

async function publishDiff(turn: ToolInvocation["turn"], written: PatchPlan): Promise<void> {
  await turn.diffTracker.record(written);
  turn.emit({ type: "turn_diff", unified_diff: turn.diffTracker.unifiedDiff() });
}
