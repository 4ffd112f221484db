/**
 * `tscodex` command line (commander), for every invocation main.ts does not take a short cut
 * for. Each command (or group) registers itself from its own module; the work behind a command
 * is imported when it runs, so `tscodex exec` pays only for what it uses.
 */
import { Command, CommanderError } from "commander";
import { VERSION } from "../../version.js";
import { registerCodexOnlyCommands } from "./codex-commands.js";
import { addOptions, type CommandHost } from "./command-options.js";
import { registerCompletionCommand } from "./completion-command.js";
import { registerDoctorCommand } from "./doctor-command.js";
import type { ExecCliOptions } from "./exec.js";
import { type ExecRunner, registerExecCommands, runExecCommand } from "./exec-commands.js";
import { registerExecForkCommand } from "./exec-fork-command.js";
import { SHARED_OPTIONS } from "./exec-options.js";
import { reportFailure } from "./failure.js";
import { registerFeaturesCommand } from "./features-command.js";
import { styleHelp } from "./help-style.js";
import { registerHooksCommand } from "./hooks-command.js";
import { registerLocalCommands } from "./local-commands.js";
import { registerLoginCommands } from "./login-command.js";
import { registerMcpCommand } from "./mcp-command.js";
import { registerMemoriesCommand } from "./memories-command.js";
import { registerServerCommands } from "./server-commands.js";
import { registerSkillsCommand } from "./skills-command.js";
import { registerSessionsCommands } from "./store-commands.js";
import { registerTuiCommands } from "./tui-commands.js";
import { shortUsageErrors, USAGE_ERROR } from "./usage-errors.js";

export type { ExecRunner } from "./exec-commands.js";

/** Parse `argv` (after the program name) and run the command; resolves with the exit code. */
export async function runProgram(argv: string[], runPlainExec: ExecRunner = runExecCommand): Promise<number> {
  let exitCode = 0;
  const program = new Command("tscodex")
    .description("The Codex coding agent runtime, in TypeScript.")
    .version(VERSION, "-V, --version")
    .enablePositionalOptions()
    .exitOverride();
  styleHelp(program);
  // Codex's top-level options, applied to the subcommand that follows them.
  addOptions(program, SHARED_OPTIONS);
  const host: CommandHost = {
    program,
    globals: () => program.opts<Partial<ExecCliOptions>>(),
    setExitCode: (code) => {
      exitCode = code;
    },
  };
  registerExecCommands(host, runPlainExec);
  registerExecForkCommand(host);
  registerFeaturesCommand(host);
  registerLoginCommands(host);
  registerDoctorCommand(host);
  registerCompletionCommand(host);
  registerSessionsCommands(host);
  registerLocalCommands(host);
  registerServerCommands(host);
  registerMcpCommand(program, host.setExitCode);
  registerMemoriesCommand(program, host.setExitCode);
  registerHooksCommand(program, host.setExitCode);
  registerSkillsCommand(program, host.setExitCode);
  registerTuiCommands(host);
  registerCodexOnlyCommands(host);
  const usageErrors = shortUsageErrors(program);

  try {
    await program.parseAsync(argv, { from: "user" });
  } catch (error) {
    if (error instanceof CommanderError) {
      usageErrors.flush();
      // Help and --version end here too (exit 0); anything else is a usage error.
      return error.exitCode === 0 ? 0 : USAGE_ERROR;
    }
    return reportFailure(error);
  }
  return exitCode;
}
