/**
 * A getopt_long reader for the known-safe checks: which options and operands a GNU tool would
 * see in an argument list. Long options may be abbreviated to any unambiguous prefix (as
 * getopt_long accepts `--out=F` for `--output=F`), short options bundle (`-rnoF`: `o` takes
 * the rest as its value), `--` ends options, and options and operands may interleave.
 * Anything the tool would reject (unknown or ambiguous option, missing value) gives null, and
 * callers treat null as "not known safe".
 */

/** One tool's options: which short letters and long names exist, and which take a value. */
export interface OptionSpec {
  /** Short options without a value. */
  shortFlags: string;
  /** Short options with a value (attached, `-oFILE`, or the next word). */
  shortValued: string;
  /** Long names: "none" (no value), "required" (`=V` or next word), "optional" (only `=V`). */
  long: Readonly<Record<string, "none" | "required" | "optional">>;
}

export interface ParsedArgs {
  /** Every option given, by canonical name (a short letter or a full long name). */
  options: { name: string; value: string | null }[];
  operands: string[];
}

/** Parse `args` as the tool would; null when it would refuse them (or we cannot tell). */
export function parseGnuArgs(args: readonly string[], spec: OptionSpec): ParsedArgs | null {
  const options: ParsedArgs["options"] = [];
  const operands: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    if (arg === "--") {
      operands.push(...args.slice(i + 1));
      break;
    }
    if (arg.startsWith("--")) {
      const eq = arg.indexOf("=");
      const given = arg.slice(2, eq < 0 ? undefined : eq);
      const name = resolveLong(given, spec.long);
      if (name === null) return null;
      const kind = spec.long[name];
      if (kind === "none") {
        if (eq >= 0) return null;
        options.push({ name, value: null });
      } else if (eq >= 0) {
        options.push({ name, value: arg.slice(eq + 1) });
      } else if (kind === "required") {
        const value = args[i + 1];
        if (value === undefined) return null;
        options.push({ name, value });
        i += 1;
      } else {
        options.push({ name, value: null });
      }
      continue;
    }
    if (arg.startsWith("-") && arg.length > 1) {
      for (let j = 1; j < arg.length; j++) {
        const letter = arg[j] as string;
        if (spec.shortFlags.includes(letter)) {
          options.push({ name: letter, value: null });
          continue;
        }
        if (!spec.shortValued.includes(letter)) return null;
        let value: string | undefined = arg.slice(j + 1);
        if (value === "") {
          value = args[i + 1];
          if (value === undefined) return null;
          i += 1;
        }
        options.push({ name: letter, value });
        break;
      }
      continue;
    }
    operands.push(arg);
  }
  return { options, operands };
}

/** The long option `given` names: exact, else the only one it is a prefix of; null otherwise. */
function resolveLong(given: string, long: OptionSpec["long"]): string | null {
  if (given === "") return null;
  if (Object.hasOwn(long, given)) return given;
  const matches = Object.keys(long).filter((name) => name.startsWith(given));
  return matches.length === 1 ? (matches[0] as string) : null;
}
