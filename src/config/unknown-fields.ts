/**
 * `--strict-config`: a key this version does not read is an error, shown as Codex shows it: the
 * file, line and column, then the line with the key underlined. smol-toml keeps no positions,
 * so the key is found again in the text (its table header, then its `key =` line); a key that
 * cannot be placed is named with its file only.
 */

/** One `unknown configuration field` error for `key` (dotted) of the TOML `text` read from `path`. */
export function unknownFieldError(path: string, text: string, key: string): string {
  const head = `unknown configuration field \`${key}\``;
  const lines = text.split(/\r?\n/);
  const at = locateKey(lines, key.split("."));
  if (!at) return `${path}: ${head}`;
  const number = String(at.line + 1);
  const gutter = " ".repeat(number.length);
  const source = lines[at.line] ?? "";
  return [
    `${path}:${at.line + 1}:${at.column + 1}: ${head}`,
    `${gutter} |`,
    `${number} | ${source}`,
    `${gutter} | ${" ".repeat(at.column)}${"^".repeat(Math.max(1, at.length))}`,
  ].join("\n");
}

/** The error for an unknown key set by `-c`. */
export function unknownOverrideError(key: string): string {
  return `unknown configuration field \`${key}\` in -c/--config override`;
}

interface KeyPosition {
  line: number;
  column: number;
  length: number;
}

/** A bare or quoted TOML key part, as written: `name`, `"name"` or `'name'`. */
const unquote = (part: string) => part.trim().replace(/^(["'])(.*)\1$/, "$2");

function headerOf(line: string): string[] | null {
  const match = /^\s*\[\[?\s*([^\]]+?)\s*\]\]?\s*(#.*)?$/.exec(line);
  return match?.[1] ? match[1].split(".").map(unquote) : null;
}

/** Where `parts` is written: under its table's header (or at the top), as `key =` or `a.b.key =`. */
function locateKey(lines: string[], parts: string[]): KeyPosition | null {
  let table: string[] = [];
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index] ?? "";
    const header = headerOf(line);
    if (header) {
      table = header;
      // A table of its own (`[tui.bogus]`): the header names it.
      if (same(header, parts)) {
        const column = line.indexOf("[") + 1;
        return { line: index, column, length: line.indexOf("]") - column };
      }
      continue;
    }
    const assignment = /^(\s*)([^=#]+?)\s*=/.exec(line);
    if (!assignment?.[2]) continue;
    const written = assignment[2].split(".").map(unquote);
    const full = [...table, ...written];
    // The key itself, or a dotted assignment inside it (`bogus.inner = 1` for `bogus`).
    if (same(full.slice(0, parts.length), parts)) {
      const column = assignment[1]?.length ?? 0;
      return { line: index, column, length: assignment[2].length };
    }
  }
  return null;
}

function same(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((part, index) => part === b[index]);
}
