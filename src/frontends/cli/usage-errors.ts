/**
 * A usage error as Codex prints one: the error, the usage line of the command it is about, a
 * pointer to `--help`, exit code 2; not the whole help (a script's log is not a manual).
 */
import type { Command } from "commander";

/** Exit code of a usage error (clap's, which Codex uses). */
export const USAGE_ERROR = 2;

/**
 * Holds each command's usage error (call after every command is registered: commander gives
 * the error to the command it is about); `flush()` writes the held one, if any.
 */
export function shortUsageErrors(program: Command): { flush(): void } {
  let held: { message: string; command: Command } | undefined;
  const hold = (command: Command) => {
    command.configureOutput({
      outputError: (message) => {
        held = { message, command };
      },
    });
    for (const child of command.commands) hold(child);
  };
  hold(program);
  return {
    flush() {
      if (!held) return;
      const { message, command } = held;
      held = undefined;
      process.stderr.write(
        `${asCodexSays(message.trimEnd())}\n\nUsage: ${commandPath(command)} ${command.usage()}\n\nFor more information, try '--help'.\n`,
      );
    },
  };
}

/**
 * An unknown option in Codex's words (clap's), which scripts and users grep for: `unexpected
 * argument`, then a tip (the similar option commander suggests, else how to pass it as a value).
 */
function asCodexSays(message: string): string {
  const unknown = /^error: unknown option '([^']+)'(?:\n\(Did you mean (\S+)\?\))?$/.exec(message);
  if (!unknown?.[1]) return message;
  const [, flag, similar] = unknown;
  const tip = similar
    ? `a similar argument exists: '${similar}'`
    : `to pass '${flag}' as a value, use '-- ${flag}'`;
  return `error: unexpected argument '${flag}' found\n\n  tip: ${tip}`;
}

/** `tscodex exec resume`: the command's name after its parents'. */
function commandPath(command: Command): string {
  const names: string[] = [];
  for (let at: Command | null = command; at; at = at.parent) names.unshift(at.name());
  return names.join(" ");
}
