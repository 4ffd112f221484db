/**
 * `tscodex hooks list|trust`. Only the command definitions live here; the work
 * (hooks-actions.ts) is loaded when one runs.
 */
import type { Command } from "commander";

/** Adds the `hooks` command group to `program`; `setExitCode` receives each action's exit code. */
export function registerHooksCommand(program: Command, setExitCode: (code: number) => void): void {
  const actions = () => import("./hooks-actions.js");
  const hooks = program.command("hooks").description("List the configured hooks and trust them to run");
  hooks
    .command("list")
    .description("Every command hook that applies here: event, matcher, command, key, hash, trust")
    .option("--json", "print a JSON array")
    .action(async (options: { json?: boolean }) => setExitCode(await (await actions()).listHooks(options)));
  hooks
    .command("trust")
    .description("Trust hooks (by key, or --all) at their current hash; an edited hook needs trusting again")
    .argument("[keys...]", "hook keys as `tscodex hooks list` shows them")
    .option("--all", "trust every configured hook")
    .action(async (keys: string[], options: { all?: boolean }) =>
      setExitCode(await (await actions()).trustHooks(keys, options)),
    );
}
