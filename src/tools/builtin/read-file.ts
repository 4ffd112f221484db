/**
 * `read_file`: numbered lines of a text file, either a slice (offset/limit) or, in indentation
 * mode, the code block around an anchor line (see files/indentation.ts). Output: `L{n}: {line}`
 * joined by `\n`, no final newline, lines cut at 500 bytes; errors as Codex's (reference
 * section 3). Reads stream: a slice near the top of a huge file reads only that far. With the
 * turn's editorFiles (an ACP client's buffers), the file is read as the editor holds it, unsaved
 * changes included, when the editor has it.
 */
import { isAbsolute } from "node:path";
import { z } from "zod";
import { describeIoError } from "../../apply-patch/errors.js";
import type { EditorFiles } from "../../protocol/editor-files.js";
import { defineFunctionTool, looseEnum, withSerde } from "../define-tool.js";
import { findBlock, type IndentedLine, isBlank } from "../files/indentation.js";
import { displayLine, scanLines } from "../files/lines.js";
import { truncateText } from "../truncate.js";
import { type ToolDefinition, ToolError } from "../types.js";

const DEFAULT_LIMIT = 2000;

const usize = (schema: z.ZodNumber) => withSerde(schema, { rust: "usize" });

const indentation = withSerde(
  z.object({
    anchor_line: usize(z.number().int().nonnegative())
      .optional()
      .describe("Line the block is built around (1-based); defaults to `offset`."),
    include_header: z
      .boolean()
      .optional()
      .describe("Also take comment lines directly above the block's opening line (default true)."),
    include_siblings: z
      .boolean()
      .optional()
      .describe("Also take neighbouring blocks at the same depth as the enclosing one (default false)."),
    max_levels: usize(z.number().int().nonnegative())
      .optional()
      .describe(
        "How many indentation levels above the anchor to widen to; 0 (default) climbs to the outermost block.",
      ),
    max_lines: usize(z.number().int().nonnegative())
      .optional()
      .describe("Cap on the lines returned (default: `limit`)."),
  }),
  { rust: "IndentationArgs" },
);

const parameters = withSerde(
  z.object({
    file_path: z.string().describe("Absolute path of the file to read."),
    indentation: indentation.optional(),
    limit: usize(z.number().int().nonnegative())
      .optional()
      .describe(`Most lines to return (default ${DEFAULT_LIMIT}).`),
    mode: looseEnum(["slice", "indentation"])
      .optional()
      .describe(
        '"slice" (default) returns lines from `offset` on; "indentation" returns the code block that contains line `offset`.',
      ),
    offset: usize(z.number().int().nonnegative())
      .optional()
      .describe("First line to return, counting from 1 (default 1). In indentation mode: the anchor line."),
  }),
  { rust: "ReadFileArgs" },
);

type Args = z.infer<typeof parameters>;

const DESCRIPTION =
  "Read a text file with line numbers (`L12: text`). Use `offset`/`limit` to page through long files, " +
  'or mode "indentation" to get the whole function, class or block around one line without reading the rest.';

/** The read_file tool. */
export function readFileTool(): ToolDefinition {
  return defineFunctionTool({
    name: "read_file",
    description: DESCRIPTION,
    parameters,
    supportsParallel: true,
    handle: async (args, inv) => {
      const lines = await readFileLines(args, inv.turn.editorFiles);
      return { content: truncateText(lines.join("\n"), inv.turn.truncation).text };
    },
  });
}

/** The formatted lines read_file answers with; throws ToolError (respond) for the model. */
export async function readFileLines(args: Args, editor?: EditorFiles): Promise<string[]> {
  const offset = args.offset ?? 1;
  const limit = args.limit ?? DEFAULT_LIMIT;
  if (offset === 0) throw ToolError.respond("offset must be a 1-indexed line number");
  if (limit === 0) throw ToolError.respond("limit must be greater than zero");
  if (!isAbsolute(args.file_path)) throw ToolError.respond("file_path must be an absolute path");
  try {
    const text = editor ? await editor.read(args.file_path) : null;
    const source = text === null ? args.file_path : Buffer.from(text, "utf8");
    if (args.mode === "indentation") return await readBlock(source, offset, limit, args.indentation ?? {});
    return await readSlice(source, offset, limit);
  } catch (error) {
    if (error instanceof ToolError) throw error;
    throw ToolError.respond(`failed to read file: ${describeIoError(error)}`, { cause: error });
  }
}

async function readSlice(source: string | Buffer, offset: number, limit: number): Promise<string[]> {
  const out: string[] = [];
  const seen = await scanLines(
    source,
    (bytes, number) => {
      out.push(`L${number}: ${displayLine(bytes)}`);
      return out.length < limit;
    },
    offset,
  );
  if (seen < offset) throw ToolError.respond("offset exceeds file length");
  return out;
}

async function readBlock(
  source: string | Buffer,
  offset: number,
  limit: number,
  options: NonNullable<Args["indentation"]>,
): Promise<string[]> {
  const anchorLine = options.anchor_line ?? offset;
  if (anchorLine === 0) throw ToolError.respond("anchor_line must be a 1-indexed line number");
  const maxLines = Math.min(limit, options.max_lines ?? limit);
  if (maxLines === 0) throw ToolError.respond("max_lines must be greater than zero");

  // Only lines within maxLines of the anchor can be in the answer: keep that window, stop
  // reading past it. Blank lines still need the indent of the line above, window or not.
  const windowStart = Math.max(1, anchorLine - maxLines + 1);
  const windowEnd = anchorLine + maxLines - 1;
  const window: (IndentedLine & { number: number })[] = [];
  let lastIndent = 0;
  const seen = await scanLines(source, (bytes, number) => {
    // Indents only need the bytes; decode just the window.
    const indent = blankBytes(bytes) ? lastIndent : indentOfBytes(bytes);
    lastIndent = indent;
    if (number >= windowStart) window.push({ text: bytes.toString("utf8"), indent, number });
    return number < windowEnd;
  });
  if (seen < anchorLine) throw ToolError.respond("anchor_line exceeds file length");

  const block = findBlock(window, {
    anchor: anchorLine - windowStart,
    maxLevels: options.max_levels ?? 0,
    includeSiblings: options.include_siblings ?? false,
    includeHeader: options.include_header ?? true,
    maxLines,
  });
  if (!block) return [];
  return window.slice(block[0], block[1] + 1).map((line) => `L${line.number}: ${displayLine(line.text)}`);
}

/** Leading spaces and tabs as columns (a tab is 4), as measureIndent on the decoded line. */
function indentOfBytes(bytes: Buffer): number {
  let width = 0;
  for (const byte of bytes) {
    if (byte === 0x20) width += 1;
    else if (byte === 0x09) width += 4;
    else break;
  }
  return width;
}

/** Only ASCII whitespace: the line is blank. (Other Unicode spaces are decoded to check.) */
function blankBytes(bytes: Buffer): boolean {
  for (const byte of bytes) {
    if (byte === 0x20 || byte === 0x09 || byte === 0x0d || byte === 0x0b || byte === 0x0c) continue;
    if (byte >= 0x80) return isBlank(bytes.toString("utf8"));
    return false;
  }
  return true;
}
