/**
 * Codex 0.171's subcommands as tscodex meets them. A bare word on the command line is the
 * interactive UI's first prompt (Codex's rule), except a Codex subcommand: one tscodex lacks is
 * a usage error naming what to use instead, never a prompt sent to the model (a Codex user types
 * `tscodex cloud` from habit, and a turn costs money and may act).
 */
import type { CommandHost } from "./command-options.js";
import { USAGE_ERROR } from "./usage-errors.js";

const SESSIONS = "`tscodex sessions` lists, shows, forks and deletes stored threads";

/** Codex commands (and aliases) tscodex does not have, each with what to use instead, if anything. */
export const CODEX_ONLY_COMMANDS: Readonly<Record<string, string | null>> = {
  app: null,
  apply: "`tscodex apply-patch` applies a patch read from stdin",
  a: "`tscodex apply-patch` applies a patch read from stdin",
  archive: SESSIONS,
  unarchive: SESSIONS,
  delete: SESSIONS,
  queue: null,
  fork: `${SESSIONS}; \`tscodex resume ID\` opens one`,
  cloud: null,
  "cloud-tasks": null,
  plugin: "`tscodex skills` and `tscodex mcp` manage what the agent is offered",
  update: "update tscodex with npm",
  debug: null,
  execpolicy: null,
  feedback: null,
  "responses-api-proxy": "`tscodex proxy` serves an OpenAI-compatible HTTP API",
  "stdio-to-uds": null,
  "migrate-nfs-db": null,
};

/**
 * Codex commands that other parts of tscodex register (doctor, features, login, logout,
 * completion): never a prompt either, whether or not they are registered in this build.
 */
export const COMMANDS_ADDED_ELSEWHERE: readonly string[] = [
  "doctor",
  "features",
  "login",
  "logout",
  "completion",
];

/** Whether `word`, first on the command line, names a Codex command rather than a prompt. */
export function isCodexCommandWord(word: string): boolean {
  return Object.hasOwn(CODEX_ONLY_COMMANDS, word) || COMMANDS_ADDED_ELSEWHERE.includes(word);
}

/** The error for a Codex command tscodex lacks. */
export function codexOnlyMessage(name: string): string {
  const instead = CODEX_ONLY_COMMANDS[name];
  return `tscodex: \`${name}\` is a Codex command that tscodex does not have${instead ? `; ${instead}` : ""} (\`tscodex --help\` lists the commands)`;
}

/** Each Codex-only command as a hidden command that says so (exit 2), whatever follows it. */
export function registerCodexOnlyCommands({ program, setExitCode }: CommandHost): void {
  for (const name of Object.keys(CODEX_ONLY_COMMANDS)) {
    program
      .command(name, { hidden: true })
      .helpOption(false)
      .allowUnknownOption()
      .allowExcessArguments()
      .argument("[args...]")
      .action(() => {
        process.stderr.write(`${codexOnlyMessage(name)}\n`);
        setExitCode(USAGE_ERROR);
      });
  }
}
