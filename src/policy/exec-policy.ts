/**
 * Exec-policy rules: command prefixes the user allows, wants to be asked about, or forbids.
 *
 * Sources: every `$TSCODEX_HOME/rules/*.rules` file (name order; then a Codex home's beside it),
 * then config `[[exec_policy.prefix_rules]]`. A rules file is a list of calls in a small Starlark subset:
 *
 *   # no pushing from the agent
 *   prefix_rule(
 *       pattern = ["git", ["push", "fetch"]],   # each element: a word, or a list of alternatives
 *       decision = "forbidden",                  # "allow" | "prompt" | "forbidden"
 *       justification = "pushes go through CI",  # shown to the model / the user
 *       match = [["git", "push", "origin"]],     # optional examples checked when loading:
 *       not_match = ["git status"],              #   a string example is split on spaces
 *   )
 *
 * A rule matches a command whose first words are the pattern's (a program given by path also
 * matches its bare name). When several rules match, the strictest decision wins:
 * forbidden > prompt > allow.
 */
import { readdir, readFile } from "node:fs/promises";
import { basename, join } from "node:path";
import { parseRulesFile, type RuleDecision, RulesSyntaxError } from "./rules-syntax.js";

export type { RuleDecision } from "./rules-syntax.js";

/** One prefix rule. `source` says where it came from, for messages (`file:line` or `config`). */
export interface PrefixRule {
  pattern: (string | string[])[];
  decision: RuleDecision;
  justification?: string | undefined;
  source: string;
}

/** A rule as written in config.toml. */
export interface ConfigPrefixRule {
  pattern: (string | string[])[];
  decision: RuleDecision;
  justification?: string | undefined;
}

/** Loading or checking rules failed; the message names the file and line. */
export class ExecPolicyError extends Error {
  override name = "ExecPolicyError";
}

const STRICTNESS: Record<RuleDecision, number> = { allow: 0, prompt: 1, forbidden: 2 };

export class ExecPolicy {
  constructor(readonly rules: readonly PrefixRule[]) {}

  static empty(): ExecPolicy {
    return new ExecPolicy([]);
  }

  /** The strictest rule whose pattern prefixes `words`, or null. */
  match(words: readonly string[]): PrefixRule | null {
    let best: PrefixRule | null = null;
    for (const rule of this.rules) {
      if (!matchesPrefix(rule.pattern, words)) continue;
      if (best === null || STRICTNESS[rule.decision] > STRICTNESS[best.decision]) best = rule;
    }
    return best;
  }
}

/** True when `pattern` is a prefix of `words` (argv[0] may be a path to the named program). */
export function matchesPrefix(pattern: readonly (string | string[])[], words: readonly string[]): boolean {
  if (pattern.length === 0 || pattern.length > words.length) return false;
  return pattern.every((element, index) => {
    const word = words[index] as string;
    const candidates = index === 0 ? [word, basename(word)] : [word];
    const allowed = typeof element === "string" ? [element] : element;
    return candidates.some((candidate) => allowed.includes(candidate));
  });
}

/** A rule's pattern as a person would type it: `git push|fetch`. */
export function describePattern(pattern: readonly (string | string[])[]): string {
  return pattern.map((element) => (typeof element === "string" ? element : element.join("|"))).join(" ");
}

/** Parse one rules file's text (`source` names it in errors). Checks each rule's examples. */
export function parseRules(text: string, source: string): PrefixRule[] {
  let parsed: ReturnType<typeof parseRulesFile>;
  try {
    parsed = parseRulesFile(text);
  } catch (error) {
    if (error instanceof RulesSyntaxError) {
      throw new ExecPolicyError(`${source}:${error.line}: ${error.message}`, { cause: error });
    }
    throw error;
  }
  return parsed.map((rule) => {
    const where = `${source}:${rule.line}`;
    for (const example of rule.match) {
      if (!matchesPrefix(rule.pattern, example)) {
        throw new ExecPolicyError(`${where}: example ${JSON.stringify(example)} does not match the pattern`);
      }
    }
    for (const example of rule.notMatch) {
      if (matchesPrefix(rule.pattern, example)) {
        throw new ExecPolicyError(
          `${where}: not_match example ${JSON.stringify(example)} matches the pattern`,
        );
      }
    }
    return {
      pattern: rule.pattern,
      decision: rule.decision,
      justification: rule.justification,
      source: where,
    };
  });
}

/**
 * Every rule: `<home>/rules/*.rules` of each home (tscodex's, then a Codex user's home beside it,
 * config/codex-home.ts) in name order (a missing directory means none; null, `--ignore-rules`,
 * reads no files), then the config's. Throws ExecPolicyError naming the file and line of the
 * first problem.
 */
export async function loadExecPolicy(
  homes: string | readonly string[] | null,
  configRules: readonly ConfigPrefixRule[] = [],
): Promise<ExecPolicy> {
  const rules: PrefixRule[] = [];
  for (const home of homes === null ? [] : typeof homes === "string" ? [homes] : homes) {
    const dir = join(home, "rules");
    for (const name of await ruleFileNames(dir)) {
      const path = join(dir, name);
      rules.push(...parseRules(await readFile(path, "utf8"), path));
    }
  }
  configRules.forEach((rule, index) => {
    if (rule.pattern.length === 0) {
      throw new ExecPolicyError(`config exec_policy.prefix_rules[${index}]: pattern must not be empty`);
    }
    rules.push({ ...rule, source: `config exec_policy.prefix_rules[${index}]` });
  });
  return new ExecPolicy(rules);
}

/** The `.rules` files of `dir` in name order; none when it does not exist. */
async function ruleFileNames(dir: string): Promise<string[]> {
  try {
    return (await readdir(dir)).filter((name) => name.endsWith(".rules")).sort();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw new ExecPolicyError(`${dir}: cannot read: ${(error as Error).message}`, { cause: error });
  }
}
