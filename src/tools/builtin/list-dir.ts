/**
 * `list_dir`: a directory tree, `depth` levels deep, as `Absolute path: {dir}` then one line per
 * entry (2 spaces of indent per level; `/` after directories, `@` after symlinks, `?` after
 * other special files), paged with offset/limit and `More than {limit} entries found` when
 * cut (reference section 3).
 *
 * Entries come in tree order: each directory's children sorted by name (byte order), right
 * after it. The walk stops once the requested page is known, so listing the top of a huge
 * tree costs only that page.
 */
import type { Dirent } from "node:fs";
import { readdir } from "node:fs/promises";
import { isAbsolute, join } from "node:path";
import { z } from "zod";
import { describeIoError } from "../../apply-patch/errors.js";
import { defineFunctionTool, withSerde } from "../define-tool.js";
import { cutToBytes } from "../files/lines.js";
import { truncateText } from "../truncate.js";
import { type ToolDefinition, ToolError } from "../types.js";

const DEFAULT_LIMIT = 25;
const DEFAULT_DEPTH = 2;
const MAX_NAME_BYTES = 500;
const INDENT = "  ";

const usize = (schema: z.ZodNumber) => withSerde(schema, { rust: "usize" });

const parameters = withSerde(
  z.object({
    depth: usize(z.number().int().nonnegative())
      .optional()
      .describe(`Levels to descend: 1 lists only the directory itself (default ${DEFAULT_DEPTH}).`),
    dir_path: z.string().describe("Absolute path of the directory to list."),
    limit: usize(z.number().int().nonnegative())
      .optional()
      .describe(`Most entries to return (default ${DEFAULT_LIMIT}).`),
    offset: usize(z.number().int().nonnegative())
      .optional()
      .describe("First entry to return, counting from 1 (default 1); use it to page through long listings."),
  }),
  { rust: "ListDirArgs" },
);

type Args = z.infer<typeof parameters>;

const DESCRIPTION =
  "List a directory as an indented tree: directories end in `/`, symlinks in `@`. " +
  "Raise `depth` to see further down, and page with `offset`/`limit` when the listing says there are more.";

/** The list_dir tool. */
export function listDirTool(): ToolDefinition {
  return defineFunctionTool({
    name: "list_dir",
    description: DESCRIPTION,
    parameters,
    supportsParallel: true,
    handle: async (args, inv) => {
      const text = await listDir(args);
      return { content: truncateText(text, inv.turn.truncation).text };
    },
  });
}

/** The list_dir answer; throws ToolError (respond) for the model. */
export async function listDir(args: Args): Promise<string> {
  const offset = args.offset ?? 1;
  const limit = args.limit ?? DEFAULT_LIMIT;
  const depth = args.depth ?? DEFAULT_DEPTH;
  if (offset === 0) throw ToolError.respond("offset must be a 1-indexed entry number");
  if (limit === 0) throw ToolError.respond("limit must be greater than zero");
  if (depth === 0) throw ToolError.respond("depth must be greater than zero");
  if (!isAbsolute(args.dir_path)) throw ToolError.respond("dir_path must be an absolute path");

  const root = await readSorted(args.dir_path).catch((error: unknown) => {
    throw ToolError.respond(`failed to read directory: ${describeIoError(error)}`, { cause: error });
  });
  // One entry past the page tells whether there are more.
  const wanted = offset - 1 + limit + 1;
  const entries: string[] = [];
  await walk(args.dir_path, root, 0, depth, entries, wanted);

  const lines = [`Absolute path: ${args.dir_path}`];
  if (entries.length > 0) {
    if (offset > entries.length) throw ToolError.respond("offset exceeds directory entry count");
    const page = entries.slice(offset - 1, offset - 1 + limit);
    lines.push(...page);
    if (entries.length > offset - 1 + limit) lines.push(`More than ${page.length} entries found`);
  }
  return lines.join("\n");
}

/** Depth-first, children right after their directory, until `wanted` lines are collected. */
async function walk(
  dir: string,
  children: Dirent[],
  level: number,
  depth: number,
  out: string[],
  wanted: number,
): Promise<void> {
  for (const entry of children) {
    if (out.length >= wanted) return;
    out.push(INDENT.repeat(level) + cutToBytes(entry.name, MAX_NAME_BYTES) + suffix(entry));
    if (entry.isDirectory() && level + 1 < depth) {
      const path = join(dir, entry.name);
      // An unreadable subdirectory is listed without its contents rather than failing the call.
      const grandchildren = await readSorted(path).catch(() => []);
      await walk(path, grandchildren, level + 1, depth, out, wanted);
    }
  }
}

async function readSorted(dir: string): Promise<Dirent[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  // Byte order of the UTF-8 names, as Codex sorts (JS string order differs past U+FFFF).
  const keyed = entries.map((entry) => ({ entry, key: Buffer.from(entry.name, "utf8") }));
  keyed.sort((a, b) => Buffer.compare(a.key, b.key));
  return keyed.map(({ entry }) => entry);
}

function suffix(entry: Dirent): string {
  if (entry.isSymbolicLink()) return "@";
  if (entry.isDirectory()) return "/";
  if (entry.isFile()) return "";
  return "?";
}
