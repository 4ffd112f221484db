/**
 * `tscodex review` and `tscodex exec review`: one read-only exec turn whose prompt carries the
 * diff under review and whose final message is Codex's review structure (findings, verdict).
 * Human output prints it as text (`[P1] title`, `file:lines`); `--json` and `-o` keep the JSON.
 */
import { resolve } from "node:path";
import {
  describeTarget,
  parseReviewOutput,
  renderReview,
  reviewJsonSchema,
  reviewPrompt,
  reviewTarget,
} from "../../session/review.js";
import { errorMessage } from "../../util/errors.js";
import { visibleText } from "../common/terminal-text.js";
import { type ExecCliOptions, readPrompt, runExec } from "./exec.js";

export interface ReviewCliOptions extends ExecCliOptions {
  uncommitted?: boolean;
  base?: string;
  commit?: string;
  title?: string;
}

export async function runReview(promptArg: string | undefined, options: ReviewCliOptions): Promise<number> {
  // A prompt of "-" (or none with piped stdin and no target flag) is read from stdin.
  const wantsStdin =
    promptArg === "-" || (!promptArg && !options.uncommitted && !options.base && !options.commit);
  const prompt = wantsStdin ? ((await readPrompt(undefined)) ?? undefined) : promptArg;
  const target = reviewTarget({ ...options, prompt });
  if (typeof target === "string") {
    process.stderr.write(`tscodex review: ${visibleText(target)}\n`);
    return 2;
  }
  if (options.remote !== undefined) {
    // The server reviews its own checkout (review/start); a focus prompt has no field there.
    if ("focus" in target && target.focus) {
      process.stderr.write(
        "tscodex review: a prompt with --base or --commit is not available with --remote\n",
      );
      return 2;
    }
    const { runRemoteExec } = await import("./exec-remote.js");
    return runRemoteExec(undefined, options, {
      kind: "review",
      target,
      display: `review: ${describeTarget(target)}`,
    });
  }
  const cwd = resolve(options.cd ?? process.cwd());
  let text: string;
  try {
    text = await reviewPrompt(target, cwd);
  } catch (error) {
    // git's message can quote a ref or a path from the repo.
    process.stderr.write(`tscodex review: ${visibleText(errorMessage(error))}\n`);
    return 1;
  }
  return runExec(undefined, options, undefined, {
    prompt: text,
    display: `review: ${describeTarget(target)}`,
    outputSchema: reviewJsonSchema(),
    sandboxMode: "read-only",
    render: (finalResponse) => {
      const output = parseReviewOutput(finalResponse);
      return output ? renderReview(output) : finalResponse;
    },
  });
}
