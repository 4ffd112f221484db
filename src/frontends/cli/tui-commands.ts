/**
 * The terminal UI's entries in the full parser: `tscodex [PROMPT]`, `tscodex resume [ID] [--last]
 * [--all]` and the global `--remote ws://HOST:PORT` with its `--remote-auth-token-env VAR`, so
 * `--help` lists them (given before `exec`, they apply to exec too). main.ts opens the UI itself
 * on a terminal (without commander); what reaches these actions is stdin or stdout not being a
 * terminal, or a command line the UI does not take.
 */
import type { Command } from "commander";
import { codexOnlyMessage, isCodexCommandWord } from "./codex-commands.js";
import type { CommandHost } from "./command-options.js";
import { USAGE_ERROR } from "./usage-errors.js";

/** The message for an interactive command run without a terminal. */
export const NEEDS_TERMINAL =
  'tscodex: the interactive UI needs a terminal (stdin and stdout); run the agent on a prompt with `tscodex exec "..."` (`tscodex --help` lists every command)';

/** The options the interactive UI takes (tui/args.ts); the program's others are exec's. */
const UI_OPTIONS = new Set([
  "--model",
  "--profile",
  "--config",
  "--cd",
  "--sandbox",
  "--ask-for-approval",
  "--full-auto",
  "--dangerously-bypass-approvals-and-sandbox",
  "--oss",
  "--local-provider",
  "--strict-config",
  "--ignore-user-config",
  "--ignore-rules",
  "--image",
  "--remote",
  "--remote-auth-token-env",
]);

/** Why the UI did not start on a terminal: options it does not take (exec's), or arguments it cannot read. */
function uiRefusal(program: Command): string {
  const notForUi = program.options
    .filter((option) => option.long !== undefined && !UI_OPTIONS.has(option.long))
    .filter((option) => program.getOptionValueSource(option.attributeName()) === "cli")
    .map((option) => option.long);
  return notForUi.length > 0
    ? `tscodex: the interactive UI does not take ${notForUi.join(", ")}; run the agent with \`tscodex exec ${notForUi[0]} ...\``
    : "tscodex: the interactive UI cannot read this command line (`tscodex --help` lists what it takes)";
}

export function registerTuiCommands({ program, setExitCode }: CommandHost): void {
  // `tscodex [OPTIONS] [PROMPT]`: what reaches this action is no terminal (the UI needs one), or
  // an option the UI does not take; a bare word is a prompt (Codex's rule), never a command here.
  program.argument("[prompt...]", "the interactive UI's first prompt").action((prompt: string[]) => {
    const first = prompt[0];
    // A Codex command this build does not register: never a prompt.
    if (first !== undefined && isCodexCommandWord(first)) {
      process.stderr.write(`${codexOnlyMessage(first)}\n`);
      setExitCode(USAGE_ERROR);
      return;
    }
    if (process.stdin.isTTY && process.stdout.isTTY) {
      process.stderr.write(`${uiRefusal(program)}\n`);
      setExitCode(USAGE_ERROR);
      return;
    }
    process.stderr.write(`${NEEDS_TERMINAL}\n`);
    // With a prompt, as Codex: the UI cannot start (1); with none, the usage error of main.ts.
    setExitCode(prompt.length > 0 ? 1 : USAGE_ERROR);
  });
  program.option("--remote <url>", "the interactive UI (or exec): attach to an app-server at ws://HOST:PORT");
  program.option(
    "--remote-auth-token-env <var>",
    "with --remote: send `Authorization: Bearer <value of VAR>` (app-server --api-key-env)",
  );
  program
    .command("resume")
    .description("Reopen a stored thread in the interactive UI, its history on screen")
    .argument("[id]", "thread id (default: pick one from a list of the stored threads)")
    .option("--last", "the newest thread")
    .option("--all", "threads of every directory (default: those started in the current one)")
    .action(() => {
      process.stderr.write(`${NEEDS_TERMINAL}\n`);
      setExitCode(2);
    });
}
