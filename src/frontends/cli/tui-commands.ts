/**
 * The terminal UI's entries in the full parser: `tscodex resume [ID] [--last] [--all]` and the global
 * `--remote ws://HOST:PORT` with its `--remote-auth-token-env VAR`, so `--help` lists them (given
 * before `exec`, they apply to exec too). main.ts opens the UI itself on a terminal
 * (without commander); what reaches these actions is stdin or stdout not being a terminal.
 */
import type { CommandHost } from "./command-options.js";

/** The message for an interactive command run without a terminal. */
export const NEEDS_TERMINAL =
  'tscodex: the interactive UI needs a terminal (stdin and stdout); run the agent on a prompt with `tscodex exec "..."` (`tscodex --help` lists every command)';

export function registerTuiCommands({ program, setExitCode }: CommandHost): void {
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
