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
        `${message.trimEnd()}\n\nUsage: ${commandPath(command)} ${command.usage()}\n\nFor more information, try '--help'.\n`,
      );
    },
  };
}

/** `tscodex exec resume`: the command's name after its parents'. */
function commandPath(command: Command): string {
  const names: string[] = [];
  for (let at: Command | null = command; at; at = at.parent) names.unshift(at.name());
  return names.join(" ");
}
