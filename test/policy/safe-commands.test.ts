/**
 * Known-safe commands and the strict/loose shell readers behind them. The first table is
 * Codex 0.89's observed `untrusted` behaviour (reference app-server/untrusted-auto-approval-089.json).
 */
import { describe, expect, it } from "vitest";
import { isKnownSafeCommand, shellScriptOf } from "../../src/policy/safe-commands.js";
import { parseSimpleScript, splitScriptLoosely } from "../../src/policy/shell-parse.js";
import { readReferenceJson } from "../support/reference.js";

const bash = (script: string) => ["/bin/bash", "-lc", script];

describe("known-safe commands", () => {
  const recorded = readReferenceJson<{ command: string; approval_requested: boolean }[]>(
    "app-server/untrusted-auto-approval-089.json",
  );
  const table: [string, boolean][] = [
    ["ls", true],
    ["cat AGENTS.md", true],
    ["echo hi", true],
    ["pwd", true],
    ["git status", true],
    ["rg foo", true],
    ["grep -r foo .", true],
    ["sed -n 1p AGENTS.md", true],
    ["head -1 AGENTS.md", true],
    ["find . -name x", true],
    ["ls && pwd", true],
    ["ls; touch t1", false],
    ["cat AGENTS.md | wc -l", true],
    ["python3 -c 1", false],
    ["wc -l AGENTS.md", true],
    ["echo hi > out.txt", false],
    ["nl AGENTS.md", true],
    ["which ls", true],
    ["true", true],
    ["find . -delete", false],
  ];

  it.each(table)("bash -lc %j → safe: %s (as Codex's untrusted policy)", (script, safe) => {
    expect(isKnownSafeCommand(bash(script))).toBe(safe);
  });

  it("the table is the reference's, case for case", () => {
    expect(recorded.map((row) => [row.command, !row.approval_requested])).toEqual(table);
  });

  it.each([
    ["ls -la src"],
    ["git log --oneline -5 && git diff HEAD~1 -- src"],
    ["git --no-pager show HEAD"],
    ["git branch"],
    ["git branch -a -v"],
    ["git branch --list 'feat*'"],
    ["rg -n 'foo bar' src || echo none"],
    ["cat a.txt | sort | uniq -c | head -20"],
    ["sed -n '10,20p' file.ts"],
    ["sed -n '$p' f"],
    ["cd src && ls"],
    ['echo "quoted; not an operator"'],
    ["ls \\\n  -la"],
    ["date +%Y"],
  ])("safe: %s", (script) => {
    expect(isKnownSafeCommand(bash(script))).toBe(true);
  });

  it.each([
    ["echo $(rm -rf x)", "command substitution"],
    ["echo `id`", "backticks"],
    ['echo "$HOME"', "expansion in double quotes"],
    ["echo $HOME", "variable expansion"],
    ["(ls)", "subshell"],
    ["{ ls; }", "group"],
    ["ls &", "background"],
    ["cat <<EOF\nx\nEOF", "here-doc"],
    ["cat < in.txt", "input redirection"],
    ["echo hi >> log", "append"],
    ["ls 2>&1", "fd redirection"],
    ["ls |& cat", "pipe with stderr"],
    ["ls *.ts", "glob"],
    ["echo {a,b}", "brace expansion"],
    ["ls # comment", "comment"],
    ["ls &&", "dangling &&"],
    ["&& ls", "leading operator"],
    ["ls ;; pwd", "case terminator"],
    ["echo 'unterminated", "unterminated quote"],
    ["find . -exec rm {} +", "find -exec"],
    ["find . -name x -fprint out", "find -fprint"],
    ["rg --pre cat foo", "rg --pre"],
    ["rg -z foo", "rg -z"],
    ["git push", "git push"],
    ["git -c core.pager=sh status", "git global option"],
    ["git branch new-feature", "creating a branch"],
    ["git branch -D old", "deleting a branch"],
    ["git diff --output=patch.diff", "git diff --output"],
    ["sed -i s/a/b/ f", "sed -i"],
    ["sed -n 1w out f", "sed write"],
    ["sort -o out in", "sort -o"],
    ["uniq in out", "uniq with an output file"],
    ["sort -oout in", "sort -oFILE"],
    ["sort -ro out in", "sort -o in a bundle"],
    ["sort -rnoout in", "sort -oFILE in a bundle"],
    ["sort --output out in", "sort --output FILE"],
    ["sort --out=x in", "sort --output abbreviated"],
    ["sort --outp=x in", "sort --output abbreviated"],
    ["sort --o x in", "sort --output abbreviated to one letter"],
    ["sort --compress-program=sh in", "sort --compress-program"],
    ["sort --compress=sh in", "sort --compress-program abbreviated"],
    ["sort --co sh in", "sort --compress-program abbreviated, value next"],
    ["sort -T /tmp/x in", "sort -T DIR"],
    ["sort --nonsense in", "unknown sort option"],
    ["sort --c in", "ambiguous sort option"],
    ["uniq -- in out", "uniq IN OUT after --"],
    ["uniq -- -in -out", "uniq operands that look like options after --"],
    ["uniq in -- out", "uniq OUT after --"],
    ["uniq -c in out", "uniq with options and an output file"],
    ["uniq -f 1 in out", "uniq -f N IN OUT"],
    ["date -s 2020-01-01", "date -s"],
    ["./ls", "a path, not a bare name"],
    ["FOO=1 ls", "assignment prefix"],
    ["constructor", "a prototype key"],
    ["bash -lc 'bash -lc \"bash -lc ls\"'", "shells nested too deep"],
  ])("not safe: %s (%s)", (script) => {
    expect(isKnownSafeCommand(bash(script))).toBe(false);
  });

  it.each([
    ["sort -k2 -t, in"],
    ["sort -rn --key=2 in"],
    ["sort --rev --unique in"],
    ["sort -ko in"],
    ["uniq -c in"],
    ["uniq -f 1 in"],
    ["uniq --skip-f=1 in"],
  ])("safe: %s (option values are not files to write)", (script) => {
    expect(isKnownSafeCommand(bash(script))).toBe(true);
  });

  it("argv commands (legacy shell) and shells by path", () => {
    expect(isKnownSafeCommand(["ls", "-la"])).toBe(true);
    expect(isKnownSafeCommand(["git", "status"])).toBe(true);
    expect(isKnownSafeCommand(["touch", "x"])).toBe(false);
    expect(isKnownSafeCommand(["/usr/bin/ls"])).toBe(false);
    expect(isKnownSafeCommand(["bash", "-c", "ls"])).toBe(true);
    expect(isKnownSafeCommand(["/usr/bin/zsh", "-lc", "ls"])).toBe(true);
    expect(isKnownSafeCommand(["/tmp/evil/bash", "-lc", "ls"])).toBe(false);
    expect(isKnownSafeCommand(["bash", "-l", "-c", "pwd"])).toBe(true);
    expect(isKnownSafeCommand(["bash", "script.sh"])).toBe(false);
    expect(isKnownSafeCommand([])).toBe(false);
    expect(shellScriptOf(["sh", "-c", "x"])).toBe("x");
    expect(shellScriptOf(["python3", "-c", "x"])).toBeNull();
  });
});

describe("strict shell reader", () => {
  it("splits on && || ; | and newlines, removing quotes", () => {
    expect(parseSimpleScript(`ls -la && echo 'a b' || printf "x\\"y" ; wc -l | head\npwd;`)).toEqual([
      ["ls", "-la"],
      ["echo", "a b"],
      ["printf", 'x"y'],
      ["wc", "-l"],
      ["head"],
      ["pwd"],
    ]);
    expect(parseSimpleScript("ls &&\n  pwd")).toEqual([["ls"], ["pwd"]]);
    expect(parseSimpleScript("a\\ b 'c'\"d\"")).toEqual([["a b", "cd"]]);
    expect(parseSimpleScript("")).toBeNull();
    expect(parseSimpleScript("   ")).toBeNull();
  });
});

describe("loose shell reader", () => {
  it("finds commands hidden in substitutions, subshells and after redirections", () => {
    expect(splitScriptLoosely("echo $(git push origin) > out; (rm -rf x) && `id`")).toEqual([
      ["echo"],
      ["git", "push", "origin"],
      ["out"],
      ["rm", "-rf", "x"],
      ["id"],
    ]);
    expect(splitScriptLoosely('echo "git push"')).toEqual([["echo", "git push"]]);
    expect(splitScriptLoosely("echo 'open")).toEqual([["echo", "open"]]);
  });
});
