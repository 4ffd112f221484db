/**
 * `tscodex [options] exec [options] [prompt]` (or Codex's alias `e`) parsed without commander, for main.ts: loading
 * commander and building every subcommand costs an exec ~3 MB of peak RSS and ~20 ms. It reads
 * only the plain forms (`--name value`, `--name=value`, `-x value`, switches, one prompt, `--`)
 * and answers null for anything else (help, `resume`, `review`, an unknown option, a bad choice,
 * a missing value), which program.ts then parses with commander's full rules and messages.
 */
import type { ExecCliOptions } from "./exec.js";
import {
  EXEC_OPTIONS,
  mergeExecOptions,
  type OptionSpec,
  parseFlags,
  SHARED_OPTIONS,
} from "./exec-options.js";

export interface ParsedExec {
  prompt: string | undefined;
  options: ExecCliOptions;
}

interface Known {
  spec: OptionSpec;
  key: string;
  takesValue: boolean;
}

function lookupTable(specs: readonly OptionSpec[]): Map<string, Known> {
  const table = new Map<string, Known>();
  for (const spec of specs) {
    const { short, long, key, takesValue } = parseFlags(spec.flags);
    const known = { spec, key, takesValue };
    table.set(long, known);
    if (short) table.set(short, known);
  }
  return table;
}

/** What commander gives an action before any option is seen: lists empty, defaults set. */
function defaults(table: Map<string, Known>): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  for (const { spec, key } of new Set(table.values())) {
    if (spec.repeatable) values[key] = [];
    else if (spec.defaultValue !== undefined) values[key] = spec.defaultValue;
  }
  return values;
}

/**
 * Reads options from `argv[start]` on into `values`; returns where it stopped (the first
 * positional, or argv.length), or null when commander must decide.
 */
function readOptions(
  argv: readonly string[],
  start: number,
  table: Map<string, Known>,
  values: Record<string, unknown>,
  positionals: string[] | null,
): number | null {
  let i = start;
  while (i < argv.length) {
    const arg = argv[i] ?? "";
    if (arg === "--") {
      if (!positionals) return null;
      positionals.push(...argv.slice(i + 1));
      return argv.length;
    }
    if (!arg.startsWith("-") || arg === "-") {
      if (!positionals) return i;
      positionals.push(arg);
      i++;
      continue;
    }
    const eq = arg.startsWith("--") ? arg.indexOf("=") : -1;
    const name = eq === -1 ? arg : arg.slice(0, eq);
    const known = table.get(name);
    if (!known) return null;
    let value: string | undefined;
    if (!known.takesValue) {
      if (eq !== -1) return null;
      values[known.key] = true;
      i++;
      continue;
    }
    if (eq !== -1) {
      value = arg.slice(eq + 1);
      i++;
    } else {
      value = argv[i + 1];
      // A value that looks like an option is commander's call (it may take it, or complain).
      if (value === undefined || value.startsWith("-")) return null;
      i += 2;
    }
    if (known.spec.choices && !known.spec.choices.includes(value)) return null;
    if (known.spec.check?.(value)) return null;
    if (known.spec.repeatable) (values[known.key] as string[]).push(value);
    else values[known.key] = value;
  }
  return i;
}

const SHARED_TABLE = lookupTable(SHARED_OPTIONS);
const EXEC_TABLE = lookupTable([...SHARED_OPTIONS, ...EXEC_OPTIONS]);

/** The exec invocation `argv` (after the program name) asks for, or null when it is not a plain one. */
export function parseExecArgv(argv: readonly string[]): ParsedExec | null {
  const globals = defaults(SHARED_TABLE);
  const at = readOptions(argv, 0, SHARED_TABLE, globals, null);
  if (at === null || (argv[at] !== "exec" && argv[at] !== "e")) return null;
  const own = defaults(EXEC_TABLE);
  const positionals: string[] = [];
  if (readOptions(argv, at + 1, EXEC_TABLE, own, positionals) === null) return null;
  // `exec resume …`, `exec review …`, `exec fork …`, `exec help` are subcommands; two prompts are an error.
  const [prompt, ...extra] = positionals;
  if (extra.length > 0 || ["resume", "review", "fork", "help"].includes(prompt ?? "")) return null;
  return {
    prompt,
    options: mergeExecOptions(globals as Partial<ExecCliOptions>, own as unknown as ExecCliOptions),
  };
}
