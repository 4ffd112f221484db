/** `tscodex exec`, `exec resume`, `exec review` and `review`: one prompt, run non-interactively. */
import type { Command } from "commander";
import { addExecOptions, addReviewOptions, type CommandHost } from "./command-options.js";
import type { ExecCliOptions } from "./exec.js";
import { mergeExecOptions } from "./exec-options.js";
import { loadExec } from "./load-exec.js";
import type { ReviewCliOptions } from "./review.js";

/** Runs a plain `exec` (its prompt and merged options); tests pass one that records them. */
export type ExecRunner = (prompt: string | undefined, options: ExecCliOptions) => Promise<number>;

export const runExecCommand: ExecRunner = async (prompt, options) =>
  (await loadExec()).runExec(prompt, options);

export function registerExecCommands(
  { program, globals, setExitCode }: CommandHost,
  runPlainExec: ExecRunner,
): void {
  const exec = addExecOptions(
    program
      .command("exec")
      .alias("e")
      .description("Run the agent non-interactively on one prompt; the final message goes to stdout")
      .argument("[prompt]", "the task; read from stdin when omitted or '-'"),
  ).action(async (prompt: string | undefined, options: ExecCliOptions) => {
    setExitCode(await runPlainExec(prompt, mergeExecOptions(globals(), options)));
  });
  // `exec resume`: options may come before `resume` (exec's) or after it (resume's own).
  addExecOptions(
    exec
      .command("resume")
      .description("Continue a stored thread with one more prompt (full history resent)")
      .argument("[id]", "thread id (or a unique prefix); omit with --last")
      .argument("[prompt]", "the next prompt; read from stdin when omitted or '-'"),
  )
    .option("--last", "resume the most recently created thread")
    .action(
      async (
        id: string | undefined,
        prompt: string | undefined,
        options: ExecCliOptions & { last?: boolean },
        command: Command,
      ) => {
        const { runExec } = await loadExec();
        const merged = mergeExecOptions(
          mergeExecOptions(globals(), exec.opts<ExecCliOptions>()),
          command.opts<ExecCliOptions>(),
        );
        if (options.last) {
          // With --last the only positional is the prompt.
          setExitCode(await runExec(prompt ?? id, merged, { last: true }));
        } else if (!id) {
          process.stderr.write("tscodex: exec resume needs a thread id or --last\n");
          setExitCode(2);
        } else {
          setExitCode(await runExec(prompt, merged, { id }));
        }
      },
    );

  const runReviewAction = async (prompt: string | undefined, options: ReviewCliOptions) => {
    const { runReview } = await import("./review.js");
    setExitCode(await runReview(prompt, options));
  };
  addReviewOptions(
    exec.command("review").description("Review code changes read-only; the findings are the final message"),
  ).action((prompt: string | undefined, _options: ReviewCliOptions, command: Command) =>
    runReviewAction(
      prompt,
      mergeExecOptions(
        mergeExecOptions(globals(), exec.opts<ExecCliOptions>()),
        command.opts<ReviewCliOptions>(),
      ),
    ),
  );
  addReviewOptions(
    program
      .command("review")
      .description("Review code changes read-only (--uncommitted, --base, --commit, or a prompt)"),
  ).action((prompt: string | undefined, options: ReviewCliOptions) =>
    runReviewAction(prompt, mergeExecOptions(globals(), options)),
  );
}
