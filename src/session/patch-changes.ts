/**
 * The changes an apply_patch input describes so far (patch-stream.ts loads this module when a
 * call starts streaming, so a turn without apply_patch never loads the parser).
 */
import { resolve } from "node:path";
// The modules themselves, not the apply-patch barrel: it would bring turn-diff.ts too.
import { type Hunk, parsePatch } from "../apply-patch/parser.js";
import { unifiedHunks } from "../apply-patch/unified.js";
import type { FileChange } from "../protocol/events.js";

/** The changes of `input`'s complete lines, or null when they do not read as a patch yet. */
export function changesSoFar(input: string, cwd: string): Record<string, FileChange> | null {
  const complete = input.slice(0, input.lastIndexOf("\n") + 1);
  const body = complete.replace(/\*\*\* End Patch\s*$/, "");
  let hunks: Hunk[];
  try {
    hunks = parsePatch(`${body}*** End Patch\n`).hunks;
  } catch {
    return null;
  }
  if (hunks.length === 0) return null;
  const changes: Record<string, FileChange> = {};
  for (const hunk of hunks) changes[resolve(cwd, hunk.path)] = changeOf(hunk, cwd);
  return changes;
}

function changeOf(hunk: Hunk, cwd: string): FileChange {
  switch (hunk.type) {
    case "add":
      return { type: "add", content: hunk.contents };
    case "delete":
      return { type: "delete", content: "" };
    case "update": {
      // Each chunk's lines as a diff of their own (line numbers count from the chunk: the file
      // is read only when the patch applies).
      const text = (lines: string[]) => (lines.length === 0 ? "" : `${lines.join("\n")}\n`);
      const diff = hunk.chunks
        .map((chunk) => unifiedHunks(text(chunk.oldLines), text(chunk.newLines), 3))
        .join("");
      return {
        type: "update",
        unified_diff: diff,
        move_path: hunk.movePath === null ? null : resolve(cwd, hunk.movePath),
      };
    }
  }
}
