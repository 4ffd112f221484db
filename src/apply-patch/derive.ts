/**
 * Pure core of an Update: locate every chunk in the original text and build the new text.
 * Matches Codex: chunks search forward from the end of the previous match, `@@ ctx` first finds
 * the line `ctx`, a chunk with no old lines appends at the end, and a trailing empty old line
 * (the file's final newline) is dropped on a second try. The result always ends with `\n` (or is
 * empty).
 */
import { PatchVerifyError } from "./errors.js";
import { matchLines, matchRange } from "./line-diff.js";
import type { UpdateChunk } from "./parser.js";
import { LineIndex } from "./seek-sequence.js";

/** Replace `oldLength` lines at `start` with `lines`. */
interface Replacement {
  start: number;
  oldLength: number;
  lines: readonly string[];
}

/** Split file text into lines the way the engine sees them (no empty line after a final `\n`). */
export function splitFileLines(text: string): string[] {
  const lines = text.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  return lines;
}

/** An Update's result, with the line matching the FileChange and turn diffs are built from. */
export interface DerivedUpdate {
  /** The new file text. */
  text: string;
  /** The original's lines (splitFileLines). */
  oldLines: string[];
  /** The new text's lines (no empty piece after the final newline). */
  newLines: string[];
  /** `match[i]`: index in newLines of old line i, or -1 (see matchLines). */
  match: Int32Array;
}

/**
 * Apply `chunks` to `original`; throws PatchVerifyError with Codex's message when a chunk's
 * context or old lines are not found. `absPath` is only used in messages.
 */
export function deriveUpdate(
  original: string,
  chunks: readonly UpdateChunk[],
  absPath: string,
): DerivedUpdate {
  const oldLines = splitFileLines(original);
  const replacements = computeReplacements(new LineIndex(oldLines), chunks, absPath);
  const { lines: newLines, match } = applyReplacements(oldLines, replacements);
  // Terminate the last line. Codex skips this when the last line is empty, which eats a
  // trailing blank line on every edit of such a file; we keep it (a deliberate difference).
  const text = newLines.length === 0 ? "" : `${newLines.join("\n")}\n`;
  return { text, oldLines, newLines, match };
}

/** deriveUpdate's text only. */
export function deriveUpdatedText(original: string, chunks: readonly UpdateChunk[], absPath: string): string {
  return deriveUpdate(original, chunks, absPath).text;
}

function computeReplacements(
  index: LineIndex,
  chunks: readonly UpdateChunk[],
  absPath: string,
): Replacement[] {
  const { lines } = index;
  const replacements: Replacement[] = [];
  let cursor = 0;
  for (const chunk of chunks) {
    if (chunk.context !== null) {
      const at = index.seek([chunk.context], cursor, false);
      if (at === -1) throw new PatchVerifyError(`Failed to find context '${chunk.context}' in ${absPath}`);
      cursor = at + 1;
    }
    if (chunk.oldLines.length === 0) {
      // Pure addition: append, but before a final empty line if the file ends with one.
      const end = lines.length > 0 && lines[lines.length - 1] === "" ? lines.length - 1 : lines.length;
      replacements.push({ start: end, oldLength: 0, lines: chunk.newLines });
      continue;
    }
    let pattern: readonly string[] = chunk.oldLines;
    let replacement: readonly string[] = chunk.newLines;
    let found = index.seek(pattern, cursor, chunk.isEndOfFile);
    if (found === -1 && pattern[pattern.length - 1] === "") {
      // The trailing empty old line stands for the file's final newline, which splitFileLines dropped.
      pattern = pattern.slice(0, -1);
      if (replacement[replacement.length - 1] === "") replacement = replacement.slice(0, -1);
      found = index.seek(pattern, cursor, chunk.isEndOfFile);
    }
    if (found === -1) {
      throw new PatchVerifyError(
        `Failed to find expected lines in ${absPath}:\n${chunk.oldLines.join("\n")}`,
      );
    }
    replacements.push({ start: found, oldLength: pattern.length, lines: replacement });
    cursor = found + pattern.length;
  }
  // Stable, like Rust's sort_by: equal starts keep chunk order.
  return replacements.sort((x, y) => x.start - y.start);
}

/**
 * Build the new lines in one forward pass, matching unchanged lines one to one and lines inside
 * each replaced block by a small diff (the block's context lines). Overlapping replacements take
 * Codex's splice path and a full diff.
 */
function applyReplacements(
  lines: readonly string[],
  replacements: readonly Replacement[],
): { lines: string[]; match: Int32Array } {
  let end = 0;
  let overlapping = false;
  for (const r of replacements) {
    if (r.start < end) overlapping = true;
    end = r.start + r.oldLength;
  }
  if (overlapping) {
    const out = spliceReplacements(lines, replacements);
    return { lines: out, match: matchLines(lines, out) };
  }
  const out: string[] = [];
  const match = new Int32Array(lines.length).fill(-1);
  let pos = 0;
  for (const r of replacements) {
    for (; pos < r.start; pos++) match[pos] = out.push(lines[pos]!) - 1;
    const blockStart = out.length;
    for (const line of r.lines) out.push(line);
    pos = r.start + r.oldLength;
    matchRange(lines, out, r.start, pos, blockStart, out.length, match);
  }
  for (; pos < lines.length; pos++) match[pos] = out.push(lines[pos]!) - 1;
  return { lines: out, match };
}

/**
 * Codex's original algorithm (last replacement first, remove then insert). Only reached when a
 * pure addition lands inside a replaced block, where the two orders differ.
 */
function spliceReplacements(lines: readonly string[], replacements: readonly Replacement[]): string[] {
  const out = lines.slice();
  for (let i = replacements.length - 1; i >= 0; i--) {
    const r = replacements[i]!;
    out.splice(r.start, r.oldLength, ...r.lines);
  }
  return out;
}
