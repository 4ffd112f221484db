/**
 * `tscodex login --with-api-key`, `login status` and `logout`: an API key kept in the home's
 * auth.json, in Codex's file shape and with Codex 0.171's messages (cli-parity.md Part 1 §12).
 * The work (login-actions.ts) is loaded when one runs.
 */
import type { CommandHost } from "./command-options.js";

export function registerLoginCommands({ program, setExitCode }: CommandHost): void {
  const actions = () => import("./login-actions.js");
  const login = program
    .command("login")
    .description("Save an API key in the home's auth.json (--with-api-key reads it from stdin)")
    .option("--with-api-key", "read the API key from stdin")
    .action(async (options: { withApiKey?: boolean }) => setExitCode(await (await actions()).login(options)));
  login
    .command("status")
    .description("Whether an API key is saved (shown masked)")
    .action(async () => setExitCode(await (await actions()).loginStatus()));
  program
    .command("logout")
    .description("Remove the saved API key (auth.json)")
    .action(async () => setExitCode(await (await actions()).logout()));
}
