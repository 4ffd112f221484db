/**
 * The syntax of `.rules` files: a Starlark subset of `prefix_rule(key = value, …)` calls whose
 * values are strings ("…" or '…', with \\ \" \' \n \t escapes) and lists of them, `#` comments
 * and trailing commas allowed. Semantics live in exec-policy.ts.
 */
/** What a rule decides for a command it matches. */
export type RuleDecision = "allow" | "prompt" | "forbidden";

/** A syntax or shape error at `line` (1-based). */
export class RulesSyntaxError extends Error {
  override name = "RulesSyntaxError";
  constructor(
    message: string,
    readonly line: number,
  ) {
    super(message);
  }
}

/** One parsed `prefix_rule(...)` call. */
export interface ParsedRule {
  line: number;
  pattern: (string | string[])[];
  decision: RuleDecision;
  justification: string | undefined;
  match: string[][];
  notMatch: string[][];
}

type Token =
  | { kind: "ident"; text: string; line: number }
  | { kind: "string"; text: string; line: number }
  | { kind: "punct"; text: string; line: number }
  | { kind: "end"; text: ""; line: number };

type Value = string | Value[];

const DECISIONS = new Set<string>(["allow", "prompt", "forbidden"]);
const KEYS = new Set(["pattern", "decision", "justification", "match", "not_match"]);
const IDENT = /[A-Za-z_][A-Za-z0-9_]*/y;
const ESCAPES: Record<string, string> = { "\\": "\\", '"': '"', "'": "'", n: "\n", t: "\t" };

export function parseRulesFile(text: string): ParsedRule[] {
  const tokens = tokenize(text);
  let pos = 0;
  const peek = (): Token => tokens[pos] as Token;
  const take = (): Token => tokens[pos++] as Token;
  const expect = (text: string): Token => {
    const token = take();
    if (token.text !== text || token.kind === "string") {
      throw new RulesSyntaxError(`expected '${text}', found ${describe(token)}`, token.line);
    }
    return token;
  };
  const value = (): Value => {
    const token = take();
    if (token.kind === "string") return token.text;
    if (token.kind !== "punct" || token.text !== "[") {
      throw new RulesSyntaxError(`expected a string or a list, found ${describe(token)}`, token.line);
    }
    const items: Value[] = [];
    while (!(peek().kind === "punct" && peek().text === "]")) {
      items.push(value());
      if (peek().kind === "punct" && peek().text === ",") take();
      else break;
    }
    expect("]");
    return items;
  };

  const rules: ParsedRule[] = [];
  while (peek().kind !== "end") {
    const name = take();
    if (name.kind !== "ident")
      throw new RulesSyntaxError(`expected prefix_rule(...), found ${describe(name)}`, name.line);
    if (name.text !== "prefix_rule") {
      throw new RulesSyntaxError(
        `unknown function '${name.text}' (only prefix_rule is supported)`,
        name.line,
      );
    }
    expect("(");
    const args = new Map<string, { value: Value; line: number }>();
    while (!(peek().kind === "punct" && peek().text === ")")) {
      const key = take();
      if (key.kind !== "ident")
        throw new RulesSyntaxError(`expected an argument name, found ${describe(key)}`, key.line);
      if (!KEYS.has(key.text)) throw new RulesSyntaxError(`unknown argument '${key.text}'`, key.line);
      if (args.has(key.text)) throw new RulesSyntaxError(`argument '${key.text}' given twice`, key.line);
      expect("=");
      args.set(key.text, { value: value(), line: key.line });
      if (peek().kind === "punct" && peek().text === ",") take();
      else break;
    }
    expect(")");
    rules.push(toRule(args, name.line));
  }
  return rules;
}

function toRule(args: Map<string, { value: Value; line: number }>, line: number): ParsedRule {
  const pattern = args.get("pattern");
  if (!pattern) throw new RulesSyntaxError("prefix_rule needs pattern = [...]", line);
  const decision = args.get("decision");
  if (!decision)
    throw new RulesSyntaxError('prefix_rule needs decision = "allow" | "prompt" | "forbidden"', line);
  if (typeof decision.value !== "string" || !DECISIONS.has(decision.value)) {
    throw new RulesSyntaxError('decision must be "allow", "prompt" or "forbidden"', decision.line);
  }
  const justification = args.get("justification");
  if (justification && typeof justification.value !== "string") {
    throw new RulesSyntaxError("justification must be a string", justification.line);
  }
  return {
    line,
    pattern: toPattern(pattern.value, pattern.line),
    decision: decision.value as RuleDecision,
    justification: justification?.value as string | undefined,
    match: toExamples(args.get("match")),
    notMatch: toExamples(args.get("not_match")),
  };
}

function toPattern(value: Value, line: number): (string | string[])[] {
  if (!Array.isArray(value) || value.length === 0) {
    throw new RulesSyntaxError("pattern must be a non-empty list", line);
  }
  return value.map((element) => {
    if (typeof element === "string" && element !== "") return element;
    if (
      Array.isArray(element) &&
      element.length > 0 &&
      element.every((alt) => typeof alt === "string" && alt !== "")
    ) {
      return element as string[];
    }
    throw new RulesSyntaxError("each pattern element must be a word or a non-empty list of words", line);
  });
}

function toExamples(arg: { value: Value; line: number } | undefined): string[][] {
  if (!arg) return [];
  if (!Array.isArray(arg.value)) throw new RulesSyntaxError("examples must be a list", arg.line);
  return arg.value.map((example) => {
    if (typeof example === "string") return example.split(/\s+/).filter(Boolean);
    if (example.every((word) => typeof word === "string")) return example as string[];
    throw new RulesSyntaxError("each example must be a string or a list of strings", arg.line);
  });
}

function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let line = 1;
  let i = 0;
  while (i < text.length) {
    const ch = text[i] as string;
    if (ch === "\n") {
      line += 1;
      i += 1;
    } else if (ch === " " || ch === "\t" || ch === "\r") {
      i += 1;
    } else if (ch === "#") {
      while (i < text.length && text[i] !== "\n") i += 1;
    } else if ("()[],=".includes(ch)) {
      tokens.push({ kind: "punct", text: ch, line });
      i += 1;
    } else if (ch === '"' || ch === "'") {
      let value = "";
      const start = line;
      i += 1;
      while (text[i] !== ch) {
        const c = text[i];
        if (c === undefined || c === "\n") throw new RulesSyntaxError("unterminated string", start);
        if (c === "\\") {
          const escaped = ESCAPES[text[i + 1] ?? ""];
          if (escaped === undefined)
            throw new RulesSyntaxError(`unknown escape '\\${text[i + 1] ?? ""}'`, line);
          value += escaped;
          i += 2;
        } else {
          value += c;
          i += 1;
        }
      }
      tokens.push({ kind: "string", text: value, line: start });
      i += 1;
    } else if (/[A-Za-z_]/.test(ch)) {
      IDENT.lastIndex = i;
      const match = IDENT.exec(text) as RegExpExecArray;
      tokens.push({ kind: "ident", text: match[0], line });
      i += match[0].length;
    } else {
      throw new RulesSyntaxError(`unexpected character '${ch}'`, line);
    }
  }
  tokens.push({ kind: "end", text: "", line });
  return tokens;
}

function describe(token: Token): string {
  if (token.kind === "end") return "the end of the file";
  if (token.kind === "string") return `the string ${JSON.stringify(token.text)}`;
  return `'${token.text}'`;
}
