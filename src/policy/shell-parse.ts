/**
 * A small, careful reader of shell scripts, for policy decisions only (nothing here runs).
 *
 * Strict mode accepts exactly one shape: simple commands of plain words joined by `&&`, `||`,
 * `;`, `|` or newlines. Words may be quoted ('…', "…") or backslash-escaped. Anything that
 * could run or write something the words do not show (redirections, `$…` and backtick
 * substitutions, subshells and groups, background `&`, here-docs, globs and brace expansion,
 * comments) makes the script unreadable: `null`, and the caller must treat it as unknown.
 *
 * Loose mode never fails: unsupported constructs split commands instead, so prefix rules
 * that forbid or ask (`git push`) still see a command hidden in `$(git push)`. It only ever
 * makes a decision stricter; never use it to call a script safe.
 */

/** Operators that join commands in a script we can read. */
const JOINERS = new Set(["&&", "||", ";", "|", "\n"]);

type Token = { kind: "word"; text: string } | { kind: "op"; text: string };

class Unreadable extends Error {}

/**
 * The commands of a script made only of plain simple commands joined by && || ; | and
 * newlines, each as its words (quotes removed); null when the script has anything else.
 */
export function parseSimpleScript(script: string): string[][] | null {
  let tokens: Token[];
  try {
    tokens = tokenize(script, false);
  } catch (error) {
    if (error instanceof Unreadable) return null;
    throw error;
  }
  const commands: string[][] = [];
  let current: string[] = [];
  // The joiner still waiting for its right-hand command (&& || |), if any.
  let pending: string | null = null;
  for (const token of tokens) {
    if (token.kind === "word") {
      current.push(token.text);
      continue;
    }
    if (!JOINERS.has(token.text)) return null;
    if (current.length === 0) {
      // Blank lines are fine anywhere (also after `&&`); any other operator needs a command first.
      if (token.text === "\n") continue;
      return null;
    }
    commands.push(current);
    current = [];
    pending = token.text === ";" || token.text === "\n" ? null : token.text;
  }
  if (current.length > 0) commands.push(current);
  else if (pending !== null) return null;
  return commands.length > 0 ? commands : null;
}

/**
 * Best-effort commands of any script, for forbid/ask rules: unreadable constructs
 * (`$(`, backticks, parentheses, braces, redirections, `&`) end the current command.
 */
export function splitScriptLoosely(script: string): string[][] {
  const commands: string[][] = [];
  let current: string[] = [];
  for (const token of tokenize(script, true)) {
    if (token.kind === "word") {
      current.push(token.text);
    } else if (current.length > 0) {
      commands.push(current);
      current = [];
    }
  }
  if (current.length > 0) commands.push(current);
  return commands;
}

/** Characters that end a word when unquoted. */
const BREAKS = new Set([" ", "\t", "\n", ";", "&", "|", "<", ">", "(", ")"]);
/** Unquoted characters that make a script unreadable in strict mode (in loose mode: a break). */
const UNSAFE = new Set(["$", "`", "{", "}", "*", "?", "[", "]"]);

function tokenize(script: string, loose: boolean): Token[] {
  const tokens: Token[] = [];
  let word: string | null = null;
  const endWord = (): void => {
    if (word !== null) tokens.push({ kind: "word", text: word });
    word = null;
  };
  const bad = (): void => {
    if (!loose) throw new Unreadable();
    endWord();
    tokens.push({ kind: "op", text: "?" });
  };

  let i = 0;
  while (i < script.length) {
    const ch = script[i] as string;
    const next = script[i + 1];
    if (ch === "\\") {
      if (next === "\n") {
        i += 2; // line continuation
        continue;
      }
      if (next === undefined) {
        bad();
        i += 1;
        continue;
      }
      word = (word ?? "") + next;
      i += 2;
      continue;
    }
    if (ch === "'") {
      const close = script.indexOf("'", i + 1);
      if (close < 0) {
        if (!loose) throw new Unreadable();
        word = (word ?? "") + script.slice(i + 1);
        break;
      }
      word = (word ?? "") + script.slice(i + 1, close);
      i = close + 1;
      continue;
    }
    if (ch === '"') {
      const read = readDoubleQuoted(script, i + 1, loose);
      word = (word ?? "") + read.text;
      i = read.end;
      continue;
    }
    if (ch === "#" && word === null) {
      // A comment could hide nothing harmful, but reading it wrong could: refuse.
      bad();
      const newline = script.indexOf("\n", i);
      i = newline < 0 ? script.length : newline;
      continue;
    }
    if (UNSAFE.has(ch)) {
      bad();
      i += 1;
      continue;
    }
    if (!BREAKS.has(ch)) {
      word = (word ?? "") + ch;
      i += 1;
      continue;
    }
    endWord();
    if (ch === " " || ch === "\t") {
      i += 1;
      continue;
    }
    const op = readOperator(script, i);
    tokens.push({ kind: "op", text: op });
    i += op.length;
  }
  endWord();
  return tokens;
}

/** The operator at `i`: the longest of the shell's that starts there. */
function readOperator(script: string, i: number): string {
  const two = script.slice(i, i + 2);
  const three = script.slice(i, i + 3);
  if (three === "<<-" || three === "<<<" || three === ";;&") return three;
  if (["&&", "||", ";;", "|&", "<<", ">>", "<&", ">&", "<>", ">|", "&>", ";&"].includes(two)) return two;
  return script[i] as string;
}

/** Inside "…": backslash escapes only $ ` " \ and newline; $ and ` substitute (unreadable). */
function readDoubleQuoted(script: string, start: number, loose: boolean): { text: string; end: number } {
  let text = "";
  let i = start;
  while (i < script.length) {
    const ch = script[i] as string;
    if (ch === '"') return { text, end: i + 1 };
    if (ch === "\\") {
      const next = script[i + 1];
      if (next === "\n") {
        i += 2;
        continue;
      }
      if (next !== undefined && '$`"\\'.includes(next)) {
        text += next;
        i += 2;
        continue;
      }
      text += ch;
      i += 1;
      continue;
    }
    if ((ch === "$" || ch === "`") && !loose) throw new Unreadable();
    text += ch;
    i += 1;
  }
  if (!loose) throw new Unreadable();
  return { text, end: script.length };
}
