/**
 * `tscodex completion bash|zsh|fish`: a completion script for the commands and flags, printed on
 * stdout (e.g. `tscodex completion bash > /etc/bash_completion.d/tscodex`). The script is made
 * from the command table itself, so it names every command and flag this version has.
 */

import type { Command } from "commander";
import { CODEX_ONLY_COMMANDS } from "./codex-commands.js";
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
      process.stdout.write(completionScript(shell as (typeof SHELLS)[number], treeOf(program, true)));
    });
}

/** The command table as completion-script.ts reads it (Codex-only commands, which only refuse, left out). */
const CODEX_ONLY = new Set(Object.keys(CODEX_ONLY_COMMANDS));

function treeOf(command: Command, root = false): CompletionNode {
  return {
    name: command.name(),
    flags: command.options.flatMap((option) =>
      [option.short, option.long].filter((flag) => flag !== undefined),
    ),
    subcommands: command.commands
      .filter((sub) => !(root && CODEX_ONLY.has(sub.name())))
      .map((sub) => treeOf(sub)),
    ...(command.name() === "completion" ? { values: [...SHELLS] } : {}),
  };
}
