/**
 * The commander-free exec parser (src/frontends/cli/exec-argv.ts) against commander itself:
 * every plain exec command line must give the very prompt and options the commander program
 * gives its exec action, and everything else must be left to commander (null).
 */
import { describe, expect, it } from "vitest";
import type { ExecCliOptions } from "../../src/frontends/cli/exec.js";
import { parseExecArgv } from "../../src/frontends/cli/exec-argv.js";
import { runProgram } from "../../src/frontends/cli/program.js";

async function viaCommander(
  argv: string[],
): Promise<{ prompt: string | undefined; options: ExecCliOptions }> {
  let seen: { prompt: string | undefined; options: ExecCliOptions } | undefined;
  const code = await runProgram(argv, async (prompt, options) => {
    seen = { prompt, options };
    return 0;
  });
  if (code !== 0 || !seen) throw new Error(`commander did not run exec for ${argv.join(" ")} (exit ${code})`);
  return seen;
}

const PLAIN: string[][] = [
  ["exec", "fix the tests"],
  ["exec"],
  ["exec", "-"],
  ["exec", "--json", "--full-auto", "--skip-git-repo-check", "task"],
  ["exec", "task", "--json", "-m", "gpt-5.2-codex"],
  ["-m", "o3", "-c", "a=1", "exec", "-c", "b=2", "-c", "c=3", "task"],
  ["--enable", "unified_exec", "exec", "--disable", "shell_tool", "--enable", "collab", "x"],
  ["-C", "/tmp", "exec", "--cd=/work", "x"],
  ["exec", "-s", "workspace-write", "-a", "on-request", "x"],
  ["--sandbox=read-only", "exec", "--ask-for-approval=never", "x"],
  ["exec", "--color", "never", "-o", "/tmp/last.txt", "--output-schema", "schema.json", "x"],
  ["exec", "--add-dir", "/a", "--add-dir=/b", "-i", "img.png", "--image", "b.png", "x"],
  ["exec", "--ephemeral", "--include-plan-tool", "--oss", "--search", "x"],
  ["exec", "--dangerously-bypass-approvals-and-sandbox", "--thread-source", "sdk", "x"],
  ["exec", "--cyber-access-program", "p", "--model", "", "x"],
  ["exec", "--", "--looks-like-an-option"],
  ["exec", "--json", "--", "-"],
  // What the Codex SDK sends for a new thread (the prompt comes on stdin).
  [
    "exec",
    "--experimental-json",
    "--config",
    'model_reasoning_effort="high"',
    "--model",
    "gpt-5.2-codex",
    "--sandbox",
    "workspace-write",
    "--cd",
    "/repo",
    "--skip-git-repo-check",
    "--image",
    "a.png",
  ],
];

const LEFT_TO_COMMANDER: string[][] = [
  ["--help"],
  ["exec", "--help"],
  ["exec", "-h"],
  ["-V"],
  ["mcp-server"],
  ["sessions", "list"],
  ["review", "--uncommitted"],
  ["exec", "resume", "--last", "again"],
  ["exec", "review"],
  ["exec", "help"],
  ["exec", "one", "two"],
  ["exec", "--no-such-option", "x"],
  ["--json", "exec", "x"],
  ["exec", "--sandbox", "everything", "x"],
  ["exec", "-sread-only", "x"],
  ["exec", "--model"],
  ["exec", "--model", "--json"],
  ["exec", "--json=yes", "x"],
  ["proxy", "exec"],
];

describe("exec's command line without commander", () => {
  it.each(PLAIN.map((argv) => [argv.join(" "), argv] as const))(
    "parses `%s` as commander does",
    async (_label, argv) => {
      const fast = parseExecArgv(argv);
      expect(fast).not.toBeNull();
      expect(fast).toEqual(await viaCommander(argv));
    },
  );

  it.each(LEFT_TO_COMMANDER.map((argv) => [argv.join(" "), argv] as const))(
    "leaves `%s` to commander",
    (_label, argv) => {
      expect(parseExecArgv(argv)).toBeNull();
    },
  );

  it("keeps repeated values in order across the subcommand, as commander does", () => {
    const parsed = parseExecArgv(["-c", "a=1", "exec", "-c", "b=2", "x"]);
    expect(parsed?.options.config).toEqual(["a=1", "b=2"]);
    expect(parsed?.prompt).toBe("x");
  });
});
