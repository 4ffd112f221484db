/**
 * The `review` tool: Codex's review mode over MCP, with the options of `tscodex review`
 * (uncommitted, base, commit + title, or free-form instructions) and the wrappers' spellings
 * (`workingDirectory`). A new read-only thread reviews the diff; the result's text is the
 * readable review and its structuredContent the findings as Codex structures them.
 */
import { resolve } from "node:path";
import { z } from "zod";
import {
  parseReviewOutput,
  renderReview,
  reviewJsonSchema,
  reviewOutputSchema,
  reviewPrompt,
  reviewTarget,
} from "../../session/review.js";
import { errorMessage } from "../../util/errors.js";
import { plainError, resultText, type ServerToolResult } from "./results.js";
import { runTurn } from "./run-turn.js";
import { defineServerTool, type ServerToolContext } from "./server-tool.js";

const reviewArgs = z.object({
  prompt: z.string().optional().describe("free-form review instructions (with base/commit: a focus)"),
  uncommitted: z.boolean().optional().describe("review staged, unstaged and untracked changes"),
  base: z.string().optional().describe("review the changes against this base branch"),
  commit: z.string().optional().describe("review the changes a commit introduced"),
  title: z.string().optional().describe("the commit's title, shown in the review prompt"),
  cwd: z.string().optional().describe("the repository (default: the server's working directory)"),
  workingDirectory: z.string().optional().describe("alias of cwd"),
  model: z.string().optional().describe("model for the review thread"),
});

const reviewResult = z.object({
  threadId: z.string(),
  content: z.string(),
  review: reviewOutputSchema.optional(),
});

/** The `review` tool. */
export const reviewTool = defineServerTool({
  name: "review",
  title: "Codex Review",
  description:
    "Review code changes read-only (uncommitted changes, a base branch, a commit, or free-form " +
    "instructions) and report prioritised findings (P0-P3 with file and lines) and an overall verdict.",
  input: reviewArgs,
  output: reviewResult,
  handle: handleReview,
});

async function handleReview(
  args: z.output<typeof reviewArgs>,
  context: ServerToolContext,
): Promise<ServerToolResult> {
  const target = reviewTarget(args);
  if (typeof target === "string") return plainError(`review: ${target}`);
  const cwd = resolve(args.cwd ?? args.workingDirectory ?? process.cwd());
  let prompt: string;
  try {
    prompt = await reviewPrompt(target, cwd);
  } catch (error) {
    return plainError(`review: ${errorMessage(error)}`);
  }
  if (context.runtime.config.providerProblem) return plainError(context.runtime.config.providerProblem);
  let threadId: string;
  let result: ServerToolResult;
  try {
    const thread = await context.runtime.threads.start({
      cwd,
      sandboxMode: "read-only",
      approvalPolicy: "never",
      ...(args.model ? { model: args.model } : {}),
    });
    threadId = thread.id;
    result = await runTurn(
      thread,
      { input: { text: prompt }, overrides: { outputSchema: reviewJsonSchema() } },
      context,
    );
  } catch (error) {
    return plainError(`review: ${errorMessage(error)}`);
  }
  if (result.isError) return result;
  const answer = String(result.structuredContent?.content ?? resultText(result));
  const review = parseReviewOutput(answer);
  const text = review ? renderReview(review) : answer;
  return {
    content: [{ type: "text", text }],
    structuredContent: { threadId, content: text, ...(review ? { review } : {}) },
  };
}
