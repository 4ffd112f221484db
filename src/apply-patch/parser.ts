/**
 * Parser for the apply_patch language (grammar: grammar.ts). It is as lenient as Codex's:
 * whitespace around the envelope and around hunk headers, CRLF line ends, a `<<'EOF'` … `EOF`
 * wrapper, an Add with no lines, a first Update chunk without `@@`, blank lines between chunks.
 * Errors carry Codex's exact wording and 1-based line numbers.
 */
import { PatchParseError } from "./errors.js";
import { rustLines, trim } from "./text.js";

/** One `@@` section of an Update: `oldLines` (context and `-`) become `newLines` (context and `+`). */
export interface UpdateChunk {
  /** The text after `@@ `: a line to find first, narrowing where the chunk applies. */
  context: string | null;
  oldLines: string[];
  newLines: string[];
  /** `*** End of File`: the old lines must be the file's last lines. */
  isEndOfFile: boolean;
}

export type Hunk =
  | { type: "add"; path: string; contents: string }
  | { type: "delete"; path: string }
  | { type: "update"; path: string; movePath: string | null; chunks: UpdateChunk[] };

/** A parsed patch. Paths are as written (relative to the cwd, or absolute). */
export interface ParsedPatch {
  hunks: Hunk[];
}

const BEGIN_PATCH = "*** Begin Patch";
const END_PATCH = "*** End Patch";
const ADD_FILE = "*** Add File: ";
const DELETE_FILE = "*** Delete File: ";
const UPDATE_FILE = "*** Update File: ";
const MOVE_TO = "*** Move to: ";
const END_OF_FILE = "*** End of File";
const CONTEXT_PREFIX = "@@ ";
const EMPTY_CONTEXT = "@@";
const HEREDOC_OPENERS = new Set(["<<EOF", "<<'EOF'", '<<"EOF"']);

/** Parse patch text; throws PatchParseError. A patch with no hunks parses (planPatch rejects it). */
export function parsePatch(text: string): ParsedPatch {
  const lines = envelopeBody(rustLines(trim(text)));
  const hunks: Hunk[] = [];
  // Line numbers count from the `*** Begin Patch` line, which is line 1.
  let index = 0;
  while (index < lines.length) {
    const consumed = parseHunk(lines, index, index + 2, hunks);
    index += consumed;
  }
  return { hunks };
}

/** Check the envelope (falling back to a heredoc wrapper) and return the lines inside it. */
function envelopeBody(lines: string[]): string[] {
  const strictError = checkEnvelope(lines);
  if (strictError === null) return lines.slice(1, -1);
  const first = lines[0];
  const last = lines[lines.length - 1];
  if (lines.length >= 4 && first !== undefined && HEREDOC_OPENERS.has(first) && last?.endsWith("EOF")) {
    const inner = lines.slice(1, -1);
    const innerError = checkEnvelope(inner);
    if (innerError !== null) throw innerError;
    return inner.slice(1, -1);
  }
  throw strictError;
}

function checkEnvelope(lines: readonly string[]): PatchParseError | null {
  const first = lines.length > 0 ? trim(lines[0]!) : undefined;
  const last = lines.length > 0 ? trim(lines[lines.length - 1]!) : undefined;
  if (first === BEGIN_PATCH && last === END_PATCH && lines.length >= 2) return null;
  if (first !== undefined && first !== BEGIN_PATCH) {
    return PatchParseError.invalidPatch("The first line of the patch must be '*** Begin Patch'");
  }
  return PatchParseError.invalidPatch("The last line of the patch must be '*** End Patch'");
}

/** Parse the hunk starting at `lines[start]` (patch line `lineNumber`); returns lines consumed. */
function parseHunk(lines: readonly string[], start: number, lineNumber: number, out: Hunk[]): number {
  const header = trim(lines[start]!);
  if (header.startsWith(ADD_FILE)) {
    let contents = "";
    let i = start + 1;
    while (i < lines.length && lines[i]!.startsWith("+")) {
      contents += `${lines[i]!.slice(1)}\n`;
      i++;
    }
    out.push({ type: "add", path: header.slice(ADD_FILE.length), contents });
    return i - start;
  }
  if (header.startsWith(DELETE_FILE)) {
    out.push({ type: "delete", path: header.slice(DELETE_FILE.length) });
    return 1;
  }
  if (header.startsWith(UPDATE_FILE)) {
    const path = header.slice(UPDATE_FILE.length);
    let i = start + 1;
    let movePath: string | null = null;
    if (i < lines.length && lines[i]!.startsWith(MOVE_TO)) {
      movePath = lines[i]!.slice(MOVE_TO.length);
      i++;
    }
    const chunks: UpdateChunk[] = [];
    while (i < lines.length) {
      const line = lines[i]!;
      if (trim(line) === "") {
        i++;
        continue;
      }
      // Any `*` line (`*** Add File:` …) ends this file's chunks.
      if (line.startsWith("*")) break;
      i += parseChunk(lines, i, lineNumber + (i - start), chunks.length === 0, chunks);
    }
    if (chunks.length === 0) {
      throw PatchParseError.invalidHunk(lineNumber, `Update file hunk for path '${path}' is empty`);
    }
    out.push({ type: "update", path, movePath, chunks });
    return i - start;
  }
  throw PatchParseError.invalidHunk(
    lineNumber,
    `'${header}' is not a valid hunk header. Valid hunk headers: '*** Add File: {path}', '*** Delete File: {path}', '*** Update File: {path}'`,
  );
}

/** Parse one chunk at `lines[start]` (patch line `lineNumber`); returns lines consumed. */
function parseChunk(
  lines: readonly string[],
  start: number,
  lineNumber: number,
  allowMissingContext: boolean,
  out: UpdateChunk[],
): number {
  const first = lines[start]!;
  let context: string | null = null;
  let bodyStart = start;
  if (first === EMPTY_CONTEXT) {
    bodyStart = start + 1;
  } else if (first.startsWith(CONTEXT_PREFIX)) {
    context = first.slice(CONTEXT_PREFIX.length);
    bodyStart = start + 1;
  } else if (!allowMissingContext) {
    throw PatchParseError.invalidHunk(
      lineNumber,
      `Expected update hunk to start with a @@ context marker, got: '${first}'`,
    );
  }
  if (bodyStart >= lines.length) {
    throw PatchParseError.invalidHunk(lineNumber + 1, "Update hunk does not contain any lines");
  }
  const chunk: UpdateChunk = { context, oldLines: [], newLines: [], isEndOfFile: false };
  let parsed = 0;
  for (let i = bodyStart; i < lines.length; i++) {
    const line = lines[i]!;
    if (line === END_OF_FILE) {
      if (parsed === 0) {
        throw PatchParseError.invalidHunk(lineNumber + 1, "Update hunk does not contain any lines");
      }
      chunk.isEndOfFile = true;
      parsed++;
      break;
    }
    const marker = line.charAt(0);
    if (marker === "") {
      // A bare empty line is an empty context line (editors strip the lone space).
      chunk.oldLines.push("");
      chunk.newLines.push("");
    } else if (marker === " ") {
      chunk.oldLines.push(line.slice(1));
      chunk.newLines.push(line.slice(1));
    } else if (marker === "+") {
      chunk.newLines.push(line.slice(1));
    } else if (marker === "-") {
      chunk.oldLines.push(line.slice(1));
    } else {
      if (parsed === 0) {
        throw PatchParseError.invalidHunk(
          lineNumber + 1,
          `Unexpected line found in update hunk: '${line}'. Every line should start with ' ' (context line), '+' (added line), or '-' (removed line)`,
        );
      }
      // Anything else starts the next chunk or hunk.
      break;
    }
    parsed++;
  }
  out.push(chunk);
  return parsed + (bodyStart - start);
}
