/**
 * What every command registration shares: exec-options.ts's table as commander options, the
 * top-level options as `-c` overrides, and the host a registration reports its exit code to.
 * Registrations (one module per command or group) define options and actions only; the work
 * is imported when the command runs.
 */
import { type Command, InvalidArgumentError, Option } from "commander";
import type { ConfigLoadFlags } from "../../config/load.js";
import type { ExecCliOptions } from "./exec.js";
import { EXEC_OPTIONS, type OptionSpec, SHARED_OPTIONS } from "./exec-options.js";

/** The program a registration adds its commands to. */
export interface CommandHost {
  program: Command;
  /** The top-level options given before the subcommand. */
  globals(): Partial<ExecCliOptions>;
  /** Receives the exit code of the action that ran. */
  setExitCode(code: number): void;
}

/** commander argParser for a repeatable option. */
export function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

/** Registers options from exec-options.ts's table, as commander options. */
export function addOptions(command: Command, specs: readonly OptionSpec[]): Command {
  for (const spec of specs) {
    const option = new Option(spec.flags, spec.description);
    if (spec.choices) option.choices(spec.choices);
    const check = spec.check;
    if (check)
      option.argParser((value: string) => {
        const problem = check(value);
        if (problem) throw new InvalidArgumentError(problem);
        return value;
      });
    if (spec.repeatable) option.argParser(collect).default([]);
    else if (spec.defaultValue !== undefined) option.default(spec.defaultValue);
    command.addOption(option);
  }
  return command;
}

/** The options `exec` and `exec resume` share. */
export function addExecOptions(command: Command): Command {
  return addOptions(command, [...SHARED_OPTIONS, ...EXEC_OPTIONS]);
}

/** `review` and `exec review`: what to review, then exec's options. */
export function addReviewOptions(command: Command): Command {
  return addExecOptions(
    command
      .argument("[prompt]", "free-form review instructions (read from stdin with '-')")
      .option("--uncommitted", "review staged, unstaged and untracked changes")
      .option("--base <branch>", "review the changes against this base branch")
      .option("--commit <sha>", "review the changes a commit introduced")
      .option("--title <title>", "the commit title shown in the review prompt (with --commit)"),
  );
}

/** The top-level options that say how config is read (LoadOptions), for commands that load it later. */
export function loadFlags(options: Partial<ExecCliOptions>): ConfigLoadFlags {
  return {
    ...(options.strictConfig ? { strictConfig: true } : {}),
    ...(options.ignoreUserConfig ? { ignoreUserConfig: true } : {}),
    ...(options.ignoreRules ? { ignoreRules: true } : {}),
  };
}

/**
 * Top-level options as `-c` overrides, for subcommands that take no exec flags (mcp-server):
 * `-C` becomes the process's directory, as the wrappers that pass it expect.
 */
export function globalConfig(options: Partial<ExecCliOptions>): string[] {
  if (options.cd) process.chdir(options.cd);
  const config = [...(options.config ?? [])];
  const quoted = (value: string) => JSON.stringify(value);
  if (options.model) config.push(`model=${quoted(options.model)}`);
  if (options.profile) config.push(`profile=${quoted(options.profile)}`);
  if (options.sandbox) config.push(`sandbox_mode=${quoted(options.sandbox)}`);
  if (options.askForApproval) config.push(`approval_policy=${quoted(options.askForApproval)}`);
  if (options.search) config.push('web_search="live"');
  for (const name of options.enable ?? []) config.push(`features.${name}=true`);
  for (const name of options.disable ?? []) config.push(`features.${name}=false`);
  return config;
}
