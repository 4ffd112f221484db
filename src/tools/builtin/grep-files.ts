/**
 * `grep_files`: the files whose contents match a regex, newest first (modification time), as
 * absolute paths one per line, or `No matches found.` (reference section 3). Search by ripgrep
 * (so .gitignore and hidden-file rules apply), under `path` (default: the turn's cwd).
 *
 * Two-step search, for speed on big trees: rg's own mtime sort makes it single-threaded, so
 * we first search in parallel and sort the matches ourselves; only when there are more than
 * PARALLEL_SORT_MAX matches (stat-ing them all would cost more) do we rerun rg sorted and stop
 * it as soon as `limit` paths have come out.
 */
import { stat } from "node:fs/promises";
import { resolve } from "node:path";
import { z } from "zod";
import { describeIoError } from "../../apply-patch/errors.js";
import { defineFunctionTool, withSerde } from "../define-tool.js";
import { RipgrepAbortedError, RipgrepTimeoutError, ripgrepPath, runRipgrep } from "../files/ripgrep.js";
import { truncateText } from "../truncate.js";
import { type ToolDefinition, ToolError } from "../types.js";

const DEFAULT_LIMIT = 100;
const MAX_LIMIT = 2000;
const TIMEOUT_MS = 30_000;
/** Most matches we sort by stat-ing them; past this, rg sorts (see the header). */
const PARALLEL_SORT_MAX = 1000;
const STAT_CONCURRENCY = 32;

const parameters = withSerde(
  z.object({
    include: z
      .string()
      .optional()
      .describe('Only search files whose path matches this glob, e.g. "*.ts" or "src/**/*.{rs,toml}".'),
    limit: withSerde(z.number().int().nonnegative(), { rust: "usize" })
      .optional()
      .describe(`Most paths to return (default ${DEFAULT_LIMIT}, at most ${MAX_LIMIT}).`),
    path: z
      .string()
      .optional()
      .describe("File or directory to search; relative paths start at the session's cwd (the default)."),
    pattern: z.string().describe("Regular expression (ripgrep syntax) to look for in file contents."),
  }),
  { rust: "GrepFilesArgs" },
);

type Args = z.infer<typeof parameters>;

const DESCRIPTION =
  "Find the files whose contents match a regular expression, most recently modified first. " +
  "Returns paths only: read the files to see the matching lines. Ignored and hidden files are skipped.";

/** The grep_files tool. */
export function grepFilesTool(): ToolDefinition {
  return defineFunctionTool({
    name: "grep_files",
    description: DESCRIPTION,
    parameters,
    supportsParallel: true,
    handle: async (args, inv) => {
      const paths = await grepFiles(args, inv.turn.cwd, inv.turn.signal);
      if (paths.length === 0) return { content: "No matches found.", success: false };
      return { content: truncateText(paths.join("\n"), inv.turn.truncation).text };
    },
  });
}

/** Matching paths, newest first, at most `limit`; throws ToolError (respond) for the model. */
export async function grepFiles(args: Args, cwd: string, signal?: AbortSignal): Promise<string[]> {
  const pattern = args.pattern.trim();
  if (pattern === "") throw ToolError.respond("pattern must not be empty");
  if (args.limit === 0) throw ToolError.respond("limit must be greater than zero");
  const limit = Math.min(args.limit ?? DEFAULT_LIMIT, MAX_LIMIT);
  const searchPath = resolve(cwd, args.path ?? ".");
  try {
    await stat(searchPath);
  } catch (error) {
    throw ToolError.respond(`unable to access \`${searchPath}\`: ${describeIoError(error)}`, {
      cause: error,
    });
  }
  const include = args.include?.trim();
  const rgArgs = ["--files-with-matches", "--no-messages", "--regexp", pattern];
  if (include) rgArgs.push("--glob", include);
  rgArgs.push("--", searchPath);

  const deadline = Date.now() + TIMEOUT_MS;
  const run = (extra: string[], onLine: (line: string) => boolean) =>
    runRipgrep([...extra, ...rgArgs], {
      cwd,
      timeoutMs: Math.max(1, deadline - Date.now()),
      onLine,
      ...(signal ? { signal } : {}),
    }).catch(async (error: unknown) => {
      if (error instanceof RipgrepTimeoutError || error instanceof RipgrepAbortedError) {
        throw ToolError.respond(error.message, { cause: error });
      }
      const rg = await ripgrepPath();
      throw ToolError.respond(
        `failed to launch ripgrep at \`${rg}\`: ${describeIoError(error)}. Install ripgrep or reinstall tscodex (it bundles rg).`,
        { cause: error },
      );
    });

  const cap = Math.max(PARALLEL_SORT_MAX, limit);
  const found: string[] = [];
  const parallel = await run([], (line) => {
    found.push(line);
    return found.length <= cap;
  });
  if (!parallel.stopped) {
    checkExit(parallel.code, parallel.stderr, found.length);
    return (await newestFirst(found)).slice(0, limit);
  }

  const sorted: string[] = [];
  const ordered = await run(["--sortr=modified"], (line) => {
    sorted.push(line);
    return sorted.length < limit;
  });
  if (!ordered.stopped) checkExit(ordered.code, ordered.stderr, sorted.length);
  return sorted;
}

/** 0: matches, 1: none; anything else is an error unless some paths came out anyway. */
function checkExit(code: number | null, stderr: string, found: number): void {
  if (code === 0 || code === 1 || found > 0) return;
  throw ToolError.respond(`rg failed: ${stderr.trimEnd()}`);
}

/** Paths sorted by modification time, newest first (ties by path); vanished files last. */
async function newestFirst(paths: string[]): Promise<string[]> {
  const times = new Array<bigint>(paths.length);
  let next = 0;
  const worker = async () => {
    while (next < paths.length) {
      const index = next++;
      const path = paths[index] as string;
      times[index] = await stat(path, { bigint: true }).then(
        (info) => info.mtimeNs,
        () => -1n,
      );
    }
  };
  await Promise.all(Array.from({ length: Math.min(STAT_CONCURRENCY, paths.length) }, worker));
  const order = paths.map((path, index) => ({ path, time: times[index] ?? -1n }));
  order.sort((a, b) => (a.time === b.time ? (a.path < b.path ? -1 : 1) : a.time > b.time ? -1 : 1));
  return order.map((entry) => entry.path);
}
