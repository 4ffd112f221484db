/**
 * `tscodex completion bash|zsh|fish`: a completion script for the commands and flags, printed on
 * stdout (e.g. `tscodex completion bash > /etc/bash_completion.d/tscodex`). The script is made
 * from the command table itself, so it names every command and flag this version has.
 */
import type { Command } from "commander";
import type { CommandHost } from "./command-options.js";
import type { CompletionNode } from "./completion-script.js";

const SHELLS = ["bash", "zsh", "fish"] as const;

export function registerCompletionCommand({ program, setExitCode }: CommandHost): void {
  program
    .command("completion")
    .description("Print a shell completion script (bash, zsh or fish)")
    .argument("[shell]", `the shell: ${SHELLS.join(", ")}`, "bash")
    .action(async (shell: string) => {
      if (!(SHELLS as readonly string[]).includes(shell)) {
        process.stderr.write(`tscodex: completion: unknown shell '${shell}' (choose ${SHELLS.join(", ")})\n`);
        setExitCode(2);
        return;
      }
      const { completionScript } = await import("./completion-script.js");
      process.stdout.write(completionScript(shell as (typeof SHELLS)[number], treeOf(program)));
    });
}

/** The command table as completion-script.ts reads it (hidden `help` commands left out). */
function treeOf(command: Command): CompletionNode {
  return {
    name: command.name(),
    flags: command.options.flatMap((option) =>
      [option.short, option.long].filter((flag) => flag !== undefined),
    ),
    subcommands: command.commands.map(treeOf),
    ...(command.name() === "completion" ? { values: [...SHELLS] } : {}),
  };
}
