/**
 * Writing a verified plan, all or nothing. New contents are first staged in temp files next to
 * their targets (creating parent directories), then renamed into place, then deletions run. If
 * any step fails, finished steps are undone from the plan's snapshots and staged files and new
 * directories are removed, so the tree is left as it was. A plan whose files changed since it
 * was made (e.g. while awaiting approval) is re-planned against the current files first.
 * Every operation goes through FileOps (safe-fs.ts): with the native helper, no symlink on the
 * way to a written path is followed, so a directory swapped for a link meanwhile fails the
 * commit instead of redirecting it.
 *
 * With the client's editor (EditorFiles), files added or updated in place are written through
 * it instead, after the disk's staging and before its renames (so a refusal leaves the disk as
 * it was); moves and deletions stay on disk. See editor-writes.ts for what a refusal leaves.
 */
import { randomBytes } from "node:crypto";
import { basename, dirname, join } from "node:path";
import type { EditorFiles } from "../protocol/editor-files.js";
import { type EditorWrite, keptByEditor, writeThroughEditor } from "./editor-writes.js";
import { PatchWriteError } from "./errors.js";
import { type PatchPlan, planPatch, readFromEditor } from "./plan.js";
import { type FileOps, openFileOps } from "./safe-fs.js";
import { type FileSnapshot, stampOf } from "./snapshot.js";

interface WriteOp {
  kind: "write";
  path: string;
  target: string;
  text: string;
  mode: number | null;
  before: FileSnapshot;
  temp?: string | undefined;
}

interface DeleteOp {
  kind: "delete";
  path: string;
  before: FileSnapshot;
  /** The source of a move (only changes the error wording). */
  moved: boolean;
}

/** Options of commitPatch. */
export interface CommitOptions {
  /**
   * Called with the plan about to be written (re-planned or not), just before writing; throws
   * to refuse it. apply_patch checks that its real paths are still the ones approved.
   */
  verify?: (plan: PatchPlan) => Promise<void>;
  /** The file operations (default: the native helper's no-symlink ones when built). */
  fs?: FileOps;
  /**
   * The client's editor: new contents of added and updated files are written through it, and
   * files the plan read from it are read again to notice edits made since (the plan is remade
   * with it then). Give the one the plan was made with.
   */
  editorFiles?: EditorFiles | undefined;
}

/**
 * Write `plan` atomically; throws PatchWriteError (tree unchanged) or, when files changed since
 * planning and the patch no longer fits, PatchVerifyError. Returns the plan actually written:
 * `plan` itself, or a fresh one if files had changed.
 */
export async function commitPatch(plan: PatchPlan, options: CommitOptions = {}): Promise<PatchPlan> {
  const { editorFiles } = options;
  const current = (await isStale(plan, editorFiles))
    ? await planPatch(plan.patch, plan.cwd, editorFiles)
    : plan;
  await options.verify?.(current);
  const fs = options.fs ?? (await openFileOps());
  try {
    await write(current, fs, editorFiles);
  } finally {
    if (!options.fs) fs.close();
  }
  return current;
}

async function isStale(plan: PatchPlan, editor: EditorFiles | undefined): Promise<boolean> {
  const snapshots = [...plan.before.values()];
  const stamps = await Promise.all(snapshots.map((s) => stampOf(s.path)));
  if (stamps.some((stamp, i) => stamp !== snapshots[i]!.stamp)) return true;
  if (!editor) return false;
  // A buffer edited meanwhile changes no stamp on disk: ask the editor again.
  const asked = snapshots.filter((s) => s.editorText !== undefined);
  const texts = await Promise.all(asked.map((s) => readFromEditor(editor, s.path)));
  return texts.some((text, i) => text !== asked[i]!.editorText);
}

async function write(plan: PatchPlan, fs: FileOps, editor: EditorFiles | undefined): Promise<void> {
  const sources = new Set(plan.moves.map(([from]) => from));
  const destinations = new Set(plan.moves.map(([, to]) => to));
  const writes: WriteOp[] = [];
  const editorWrites: EditorWrite[] = [];
  const deletes: DeleteOp[] = [];
  for (const [path, state] of plan.after) {
    const before = plan.before.get(path)!;
    if (state !== null && editor && !destinations.has(path)) {
      editorWrites.push({ path, text: state.text });
    } else if (state !== null) {
      writes.push({
        kind: "write",
        path,
        target: before.writeTarget,
        text: state.text,
        mode: state.mode,
        before,
      });
    } else if (before.exists) {
      deletes.push({ kind: "delete", path, before, moved: sources.has(path) });
    }
  }

  const createdDirs: string[] = [];
  // The editor is given absolute paths; their directories are made here, as for a disk write.
  const staged = await Promise.allSettled([
    ...writes.map((op) => stage(op, createdDirs, fs)),
    ...editorWrites.map((op) => makeParent(op.path, createdDirs, fs)),
  ]);
  const targets = [...writes.map((op) => op.target), ...editorWrites.map((op) => op.path)];
  const stageFailure = staged.find((r) => r.status === "rejected");
  if (stageFailure) {
    await cleanUp(writes, targets, createdDirs, fs);
    throw stageFailure.reason;
  }

  const written: string[] = [];
  if (editor) {
    try {
      await writeThroughEditor(editor, editorWrites, written);
    } catch (error) {
      await cleanUp(writes, targets, createdDirs, fs);
      throw keptByEditor(error, plan, written);
    }
  }

  const done: (WriteOp | DeleteOp)[] = [];
  try {
    for (const op of writes) {
      await fs
        .rename(op.temp!, op.target)
        .catch((error: unknown) => fail(`Failed to write file ${op.path}`, error));
      op.temp = undefined;
      done.push(op);
    }
    for (const op of deletes) {
      const what = op.moved ? "Failed to remove original" : "Failed to delete file";
      await fs.unlink(op.path).catch((error: unknown) => fail(`${what} ${op.path}`, error));
      done.push(op);
    }
  } catch (error) {
    for (const op of done.reverse()) await undo(op, fs).catch(() => undefined);
    await cleanUp(writes, targets, createdDirs, fs);
    throw keptByEditor(error, plan, written);
  }
}

function fail(message: string, cause: unknown): never {
  throw new PatchWriteError(message, { cause });
}

function tempPathFor(target: string): string {
  return join(dirname(target), `.${basename(target)}.${process.pid}-${randomBytes(4).toString("hex")}.tmp`);
}

/** Create the missing directories above `path`, noting the first one made. */
async function makeParent(path: string, createdDirs: string[], fs: FileOps, target = path): Promise<void> {
  const made = await fs
    .mkdirp(dirname(target))
    .catch((error: unknown) => fail(`Failed to create parent directories for ${path}`, error));
  if (made !== undefined) createdDirs.push(made);
}

async function stage(op: WriteOp, createdDirs: string[], fs: FileOps): Promise<void> {
  await makeParent(op.path, createdDirs, fs, op.target);
  const temp = tempPathFor(op.target);
  op.temp = temp;
  try {
    // A rewrite keeps the file's permissions (set explicitly: the umask would mask them).
    await fs.create(temp, op.text, op.mode);
  } catch (error) {
    fail(`Failed to write file ${op.path}`, error);
  }
}

/** Put back what a finished step replaced or removed. */
async function undo(op: WriteOp | DeleteOp, fs: FileOps): Promise<void> {
  const { before } = op;
  if (op.kind === "write" && before.bytes === null) {
    await fs.unlink(op.target);
    // A dangling link that the write replaced comes back too.
    if (before.linkTarget !== null) await fs.symlink(before.linkTarget, op.path);
    return;
  }
  if (op.kind === "delete" && before.linkTarget !== null) {
    await fs.symlink(before.linkTarget, op.path);
    return;
  }
  if (before.bytes === null) return;
  const target = op.kind === "write" ? op.target : op.path;
  const temp = tempPathFor(target);
  await fs.create(temp, before.bytes, before.mode);
  await fs.rename(temp, target);
}

/**
 * Remove staged temp files that were not renamed, and the directories this commit created above
 * `targets` (every written path) that are still empty.
 */
async function cleanUp(
  writes: readonly WriteOp[],
  targets: readonly string[],
  createdDirs: readonly string[],
  fs: FileOps,
): Promise<void> {
  for (const op of writes) if (op.temp) await fs.unlink(op.temp).catch(() => undefined);
  // Every directory from a staged file's up to the first one this commit created, deepest
  // first; only empty ones go (rmdir), so nothing this commit did not create is removed.
  const dirs = new Set<string>();
  for (const top of createdDirs) {
    for (const target of targets) {
      for (let dir = dirname(target); dir === top || dir.startsWith(`${top}/`); dir = dirname(dir)) {
        dirs.add(dir);
        if (dir === top) break;
      }
    }
  }
  for (const dir of [...dirs].sort((x, y) => y.length - x.length)) await fs.rmdir(dir).catch(() => undefined);
}
