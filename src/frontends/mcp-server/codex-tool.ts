/**
 * The `codex` tool: start a thread (or continue one named by `sessionId`) and run one turn.
 * Arguments are Codex's (kebab-case) plus the CLI wrappers' spellings; a call's `config`,
 * `profile` and `compact-prompt` give its thread its own configuration. Defaults: the server's
 * config (read-only sandbox, on-request approvals unless config.toml says otherwise).
 */
import type { z } from "zod";
import { handleCodex, PARSE_PREFIX } from "./codex-run.js";
import { codexArgs, codexOutput } from "./codex-schema.js";
import { plainError } from "./results.js";
import { defineServerTool } from "./server-tool.js";

/** The `codex` tool. */
export const codexTool = defineServerTool({
  name: "codex",
  title: "Codex",
  description:
    "Run a Codex agent session: give it a task (prompt) and it works in the workspace (cwd) with " +
    "shell commands and patches, under the sandbox and approval policy given, then answers. " +
    "The result carries a threadId; continue the conversation with codex-reply.",
  input: codexArgs,
  output: codexOutput,
  invalid: (error, raw) => plainError(PARSE_PREFIX + describeIssue(error, raw)),
  handle: handleCodex,
});

/** Codex's wording for the first problem: a missing field, an unknown enum variant, a wrong type. */
function describeIssue(error: z.ZodError, raw: Record<string, unknown>): string {
  const issue = error.issues[0];
  if (!issue) return "invalid arguments";
  const field = issue.path.map(String).join(".");
  const value = issue.path.length === 1 ? raw[String(issue.path[0])] : undefined;
  if (issue.code === "invalid_value") {
    const expected = issue.values.map((v) => `\`${String(v)}\``).join(", ");
    return `unknown variant \`${String(value)}\`, expected one of ${expected}`;
  }
  if (issue.code === "invalid_type") return `invalid type for \`${field}\`: expected ${issue.expected}`;
  return `\`${field}\`: ${issue.message}`;
}
