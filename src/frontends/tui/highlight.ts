/**
 * Syntax highlighting for fenced code blocks in agent messages: a small tokenizer that knows,
 * per language family, the keywords, the comment markers and the string quotes, and colours
 * keywords, strings, comments and numbers (diffs colour their +/- lines). Enough to make code
 * readable at a glance without a grammar engine; an unknown language is left plain.
 */
import type { Style } from "./style.js";

interface Language {
  keywords: ReadonlySet<string>;
  /** Line comment markers. */
  line: readonly string[];
  /** Block comment open/close, if the language has them. */
  block?: readonly [string, string];
  quotes: string;
}

const words = (text: string): ReadonlySet<string> => new Set(text.split(/\s+/).filter(Boolean));

const C_LIKE = ["//"] as const;
const C_BLOCK = ["/*", "*/"] as const;

const JS: Language = {
  keywords: words(`as async await break case catch class const continue debugger default delete do else
    enum export extends false finally for from function if implements import in instanceof interface
    let new null of private protected public readonly return static super switch this throw true try
    type typeof undefined var void while yield`),
  line: C_LIKE,
  block: C_BLOCK,
  quotes: `"'\``,
};
const PYTHON: Language = {
  keywords: words(`and as assert async await break class continue def del elif else except False
    finally for from global if import in is lambda None nonlocal not or pass raise return self True
    try while with yield`),
  line: ["#"],
  quotes: `"'`,
};
const RUST: Language = {
  keywords: words(`as async await break const continue crate dyn else enum extern false fn for if impl
    in let loop match mod move mut pub ref return Self self static struct super trait true type unsafe
    use where while Some None Ok Err`),
  line: C_LIKE,
  block: C_BLOCK,
  quotes: `"`,
};
const GO: Language = {
  keywords: words(`break case chan const continue default defer else fallthrough false for func go goto
    if import interface map nil package range return select struct switch true type var`),
  line: C_LIKE,
  block: C_BLOCK,
  quotes: `"'\``,
};
const C_FAMILY: Language = {
  keywords: words(`auto bool break case catch char class const continue default delete do double else
    enum extern false final float for if import int long namespace new null nullptr package private
    protected public return short signed sizeof static struct switch template this throw throws true
    try typedef union unsigned using void volatile while`),
  line: C_LIKE,
  block: C_BLOCK,
  quotes: `"'`,
};
const SHELL: Language = {
  keywords: words(`if then else elif fi for while until do done case esac in function return local
    export set unset echo exit cd source`),
  line: ["#"],
  quotes: `"'`,
};
const RUBY: Language = {
  keywords: words(`begin break case class def do else elsif end ensure false for if in module next nil
    not or and puts require rescue return self super then true unless until when while yield`),
  line: ["#"],
  quotes: `"'`,
};
const SQL: Language = {
  keywords: words(`select from where insert into values update set delete create table drop alter
    join left right inner outer on group by order having limit and or not null as primary key index
    SELECT FROM WHERE INSERT INTO VALUES UPDATE SET DELETE CREATE TABLE DROP ALTER JOIN LEFT RIGHT
    INNER OUTER ON GROUP BY ORDER HAVING LIMIT AND OR NOT NULL AS PRIMARY KEY INDEX`),
  line: ["--"],
  block: C_BLOCK,
  quotes: `'"`,
};
const DATA: Language = { keywords: words("true false null"), line: ["#"], quotes: `"'` };
const JSON_LANGUAGE: Language = { keywords: words("true false null"), line: [], quotes: `"` };

const LANGUAGES: Record<string, Language> = {
  js: JS,
  javascript: JS,
  jsx: JS,
  mjs: JS,
  ts: JS,
  typescript: JS,
  tsx: JS,
  py: PYTHON,
  python: PYTHON,
  rs: RUST,
  rust: RUST,
  go: GO,
  golang: GO,
  c: C_FAMILY,
  h: C_FAMILY,
  cpp: C_FAMILY,
  "c++": C_FAMILY,
  java: C_FAMILY,
  cs: C_FAMILY,
  csharp: C_FAMILY,
  kotlin: C_FAMILY,
  swift: C_FAMILY,
  sh: SHELL,
  bash: SHELL,
  zsh: SHELL,
  shell: SHELL,
  console: SHELL,
  rb: RUBY,
  ruby: RUBY,
  sql: SQL,
  yaml: DATA,
  yml: DATA,
  toml: DATA,
  json: JSON_LANGUAGE,
};

/** A code block's highlighter: one call per line, in order (block comments span lines). */
export type LineHighlighter = (line: string) => string;

/** The highlighter for a fence's info string (`ts`, `python title="x"`); plain when unknown. */
export function highlighter(info: string, style: Style): LineHighlighter {
  const name =
    info
      .trim()
      .split(/[\s{,]/)[0]
      ?.toLowerCase() ?? "";
  if (!style.enabled) return (line) => line;
  if (name === "diff" || name === "patch") return (line) => diffColour(line, style);
  const language = LANGUAGES[name];
  if (!language) return (line) => line;
  const state = { inBlock: false };
  return (line) => highlightLine(line, language, style, state);
}

/** A unified-diff line in its colour: additions green, removals red, hunk headers cyan. */
export function diffColour(line: string, s: Style): string {
  if (line.startsWith("+++") || line.startsWith("---")) return s.bold(line);
  if (line.startsWith("+")) return s.green(line);
  if (line.startsWith("-")) return s.red(line);
  if (line.startsWith("@@")) return s.cyan(line);
  return line;
}

const WORD = /[A-Za-z_$][\w$]*/y;
const NUMBER = /(?:0[xXbBoO][\da-fA-F_]+|\d[\d_]*(?:\.\d+)?(?:[eE][+-]?\d+)?)\b/y;

function highlightLine(line: string, lang: Language, s: Style, state: { inBlock: boolean }): string {
  let out = "";
  let i = 0;
  const comment = (text: string) => s.dim(s.italic(text));
  while (i < line.length) {
    if (state.inBlock && lang.block) {
      const end = line.indexOf(lang.block[1], i);
      const stop = end < 0 ? line.length : end + lang.block[1].length;
      out += comment(line.slice(i, stop));
      i = stop;
      if (end >= 0) state.inBlock = false;
      continue;
    }
    if (lang.block && line.startsWith(lang.block[0], i)) {
      state.inBlock = true;
      out += comment(lang.block[0]);
      i += lang.block[0].length;
      continue;
    }
    if (lang.line.some((marker) => line.startsWith(marker, i))) {
      out += comment(line.slice(i));
      break;
    }
    const char = line[i] as string;
    if (lang.quotes.includes(char)) {
      const end = closingQuote(line, i + 1, char);
      out += s.green(line.slice(i, end));
      i = end;
      continue;
    }
    WORD.lastIndex = i;
    const word = WORD.exec(line)?.[0];
    if (word) {
      out += lang.keywords.has(word) ? s.magenta(word) : word;
      i += word.length;
      continue;
    }
    NUMBER.lastIndex = i;
    const number = /[\w$]/.test(line[i - 1] ?? " ") ? undefined : NUMBER.exec(line)?.[0];
    if (number) {
      out += s.yellow(number);
      i += number.length;
      continue;
    }
    out += char;
    i++;
  }
  return out;
}

/** Index just past the quote closing a string opened before `from` (or the line's end). */
function closingQuote(line: string, from: number, quote: string): number {
  for (let i = from; i < line.length; i++) {
    if (line[i] === "\\") i++;
    else if (line[i] === quote) return i + 1;
  }
  return line.length;
}
