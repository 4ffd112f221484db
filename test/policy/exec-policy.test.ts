/** Exec-policy rules: the .rules syntax, matching, loading from $TSCODEX_HOME/rules and config. */
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { classifyCommand } from "../../src/policy/approval.js";
import {
  ExecPolicy,
  ExecPolicyError,
  loadExecPolicy,
  matchesPrefix,
  parseRules,
} from "../../src/policy/exec-policy.js";
import { type TempDir, tmpdir } from "../support/tmpdir.js";

const RULES = `
# Pushing goes through CI.
prefix_rule(
    pattern = ["git", ["push", "fetch"]],
    decision = "forbidden",
    justification = "pushes go through CI",
    match = [["git", "push", "origin", "main"], "git fetch"],
    not_match = ["git status", ["gitk"]],
)
prefix_rule(pattern=['npm', 'publish'], decision="prompt", justification='publishing is \\'final\\'')
prefix_rule(pattern=["make"], decision="allow",)  # trailing comma
`;

describe("rules syntax", () => {
  it("parses prefix_rule calls with alternatives, escapes, comments and trailing commas", () => {
    const rules = parseRules(RULES, "team.rules");
    expect(rules).toEqual([
      {
        pattern: ["git", ["push", "fetch"]],
        decision: "forbidden",
        justification: "pushes go through CI",
        source: "team.rules:3",
      },
      {
        pattern: ["npm", "publish"],
        decision: "prompt",
        justification: "publishing is 'final'",
        source: "team.rules:10",
      },
      { pattern: ["make"], decision: "allow", justification: undefined, source: "team.rules:11" },
    ]);
  });

  it.each([
    ['prefix_rule(pattern=["a"])', "x.rules:1: prefix_rule needs decision"],
    ['prefix_rule(decision="allow")', "x.rules:1: prefix_rule needs pattern"],
    ['prefix_rule(pattern=[], decision="allow")', "x.rules:1: pattern must be a non-empty list"],
    ['prefix_rule(pattern=["a"], decision="maybe")', 'x.rules:1: decision must be "allow"'],
    [
      '\n\nprefix_rule(pattern=["a"], decision="allow", colour="red")',
      "x.rules:3: unknown argument 'colour'",
    ],
    ['exec_rule(pattern=["a"], decision="allow")', "x.rules:1: unknown function 'exec_rule'"],
    ['prefix_rule(pattern=["a"], decision="allow"', "x.rules:1: expected ')', found the end of the file"],
    ['prefix_rule(pattern=["a], decision="allow")', "x.rules:1: unterminated string"],
    [
      'prefix_rule(pattern=["a"], pattern=["b"], decision="allow")',
      "x.rules:1: argument 'pattern' given twice",
    ],
    ['prefix_rule(pattern=["a", [""]], decision="allow")', "x.rules:1: each pattern element must be"],
    ['prefix_rule(pattern=["a"], decision="allow", match=["b"])', 'x.rules:1: example ["b"] does not match'],
    [
      'prefix_rule(pattern=["a"], decision="allow", not_match=["a b"])',
      'x.rules:1: not_match example ["a","b"] matches',
    ],
    ['prefix_rule(pattern=["a"], decision=allow)', "x.rules:1: expected a string or a list, found 'allow'"],
    ['prefix_rule(pattern=["a"]; decision="allow")', "x.rules:1: unexpected character ';'"],
  ])("rejects %j with a located message", (text, message) => {
    expect(() => parseRules(text, "x.rules")).toThrow(ExecPolicyError);
    expect(() => parseRules(text, "x.rules")).toThrow(message);
  });
});

describe("matching", () => {
  const policy = new ExecPolicy(parseRules(RULES, "team.rules"));

  it("matches prefixes word by word; a program by path matches its name", () => {
    expect(matchesPrefix(["git", "push"], ["git", "push", "-f"])).toBe(true);
    expect(matchesPrefix(["git", "push"], ["/usr/bin/git", "push"])).toBe(true);
    expect(matchesPrefix(["git", "push"], ["git"])).toBe(false);
    expect(matchesPrefix(["git", "push"], ["git", "pushy"])).toBe(false);
    expect(matchesPrefix(["git", "push"], ["echo", "git", "push"])).toBe(false);
  });

  it("the strictest matching rule wins", () => {
    const layered = new ExecPolicy([
      { pattern: ["git"], decision: "allow", source: "a" },
      { pattern: ["git", "push"], decision: "prompt", source: "b" },
      { pattern: ["git", "push", "--force"], decision: "forbidden", source: "c" },
    ]);
    expect(layered.match(["git", "status"])?.source).toBe("a");
    expect(layered.match(["git", "push"])?.source).toBe("b");
    expect(layered.match(["git", "push", "--force", "x"])?.source).toBe("c");
    expect(layered.match(["ls"])).toBeNull();
  });

  it("classifies commands and every command of a shell script", () => {
    const bash = (script: string) => ["/bin/bash", "-lc", script];
    expect(classifyCommand(bash("git push origin"), policy)).toMatchObject({ kind: "forbidden" });
    expect(classifyCommand(bash("ls && git fetch"), policy)).toMatchObject({ kind: "forbidden" });
    // Hidden in a substitution, the loose reader still finds it.
    expect(classifyCommand(bash("echo $(git push)"), policy)).toMatchObject({ kind: "forbidden" });
    expect(classifyCommand(bash("echo 'git push'"), policy)).toEqual({ kind: "trusted" });
    // Nested shells and assignment prefixes do not hide it either.
    expect(classifyCommand(bash(`sh -c "bash -lc 'git push'"`), policy)).toMatchObject({ kind: "forbidden" });
    expect(classifyCommand(bash("GIT_TRACE=1 git push"), policy)).toMatchObject({ kind: "forbidden" });
    expect(classifyCommand(["A=1", "B=2"], policy)).toEqual({ kind: "unknown" });
    expect(classifyCommand(["npm", "publish", "--tag", "x"], policy)).toMatchObject({
      kind: "prompt",
      rule: { justification: "publishing is 'final'" },
    });
    expect(classifyCommand(bash("make test && ls"), policy)).toEqual({ kind: "trusted" });
    expect(classifyCommand(bash("make test > log"), policy)).toEqual({ kind: "unknown" });
    expect(classifyCommand(bash("touch x"), policy)).toEqual({ kind: "unknown" });
    expect(classifyCommand(bash("git status"), ExecPolicy.empty())).toEqual({ kind: "trusted" });
  });
});

describe("loading", () => {
  let home: TempDir;
  beforeEach(async () => {
    home = await tmpdir("tscodex-rules-");
  });
  afterEach(() => home.cleanup());

  it("reads rules/*.rules in name order, then config rules", async () => {
    await mkdir(join(home.path, "rules"));
    await writeFile(join(home.path, "rules", "b.rules"), 'prefix_rule(pattern=["b"], decision="prompt")\n');
    await writeFile(join(home.path, "rules", "a.rules"), 'prefix_rule(pattern=["a"], decision="allow")\n');
    await writeFile(join(home.path, "rules", "notes.txt"), "not rules");
    const policy = await loadExecPolicy(home.path, [
      { pattern: ["c"], decision: "forbidden", justification: "no c" },
    ]);
    expect(policy.rules.map((rule) => [rule.pattern, rule.source])).toEqual([
      [["a"], join(home.path, "rules", "a.rules:1")],
      [["b"], join(home.path, "rules", "b.rules:1")],
      [["c"], "config exec_policy.prefix_rules[0]"],
    ]);
  });

  it("no rules directory means no file rules; a bad file names itself", async () => {
    expect((await loadExecPolicy(home.path)).rules).toEqual([]);
    await mkdir(join(home.path, "rules"));
    await writeFile(join(home.path, "rules", "bad.rules"), "\nprefix_rule(pattern=[1])\n");
    await expect(loadExecPolicy(home.path)).rejects.toThrow(
      `${join(home.path, "rules", "bad.rules")}:2: unexpected character '1'`,
    );
  });
});
