/**
 * apply_patch calls as the model streams them: the changes a call's input describes so far, for
 * front-ends that show a patch while it is written (the app-server's
 * `item/fileChange/patchUpdated`). Only complete lines count, closed with `*** End Patch` and
 * read by the real parser; a prefix it cannot read yet (a hunk header without lines) waits for
 * more input. Nothing here applies anything.
 */
import { resolve } from "node:path";
// The modules themselves, not the apply-patch barrel: a one-turn exec must not load turn-diff.ts.
import { type Hunk, parsePatch } from "../apply-patch/parser.js";
import { unifiedHunks } from "../apply-patch/unified.js";
import type { FileChange } from "../protocol/events.js";
import type { ResponseItem } from "../protocol/items.js";

interface Streaming {
  callId: string;
  input: string;
  /** The changes last reported, serialized (reported again only when they differ). */
  last: string;
}

export class PatchStreams {
  private readonly calls = new Map<string, Streaming>();

  constructor(private readonly cwd: string) {}

  /** A new output item: an apply_patch custom tool call starts streaming. */
  added(item: ResponseItem): void {
    if (item.type === "custom_tool_call" && item.name === "apply_patch" && item.id)
      this.calls.set(item.id, { callId: item.call_id, input: item.input, last: "" });
  }

  /** A piece of item `itemId`'s input: its call and changes when they changed, else null. */
  delta(itemId: string, delta: string): { callId: string; changes: Record<string, FileChange> } | null {
    const call = this.calls.get(itemId);
    if (!call) return null;
    call.input += delta;
    if (!delta.includes("\n")) return null;
    const changes = changesSoFar(call.input, this.cwd);
    if (!changes) return null;
    const serialized = JSON.stringify(changes);
    if (serialized === call.last) return null;
    call.last = serialized;
    return { callId: call.callId, changes };
  }

  /** A failed attempt's streams are gone (the retry streams them again). */
  clear(): void {
    this.calls.clear();
  }
}

/** The changes of `input`'s complete lines, or null when they do not read as a patch yet. */
function changesSoFar(input: string, cwd: string): Record<string, FileChange> | null {
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
