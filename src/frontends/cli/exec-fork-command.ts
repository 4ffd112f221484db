/**
 * `tscodex exec fork ID [PROMPT]`: copy a stored thread into a new one (a new id; the original
 * is left as it was) and run PROMPT on the copy, with exec's options and output.
 */
import type { Command } from "commander";
import { addExecOptions, type CommandHost } from "./command-options.js";
import type { ExecCliOptions } from "./exec.js";
import { mergeExecOptions } from "./exec-options.js";
import { loadExec } from "./load-exec.js";

/** Adds `fork` under the `exec` command registered before it (exec-commands.ts). */
export function registerExecForkCommand({ program, globals, setExitCode }: CommandHost): void {
  const exec = program.commands.find((command) => command.name() === "exec");
  if (!exec) throw new Error("exec fork: register the exec command first");
  // Options may come before `fork` (exec's) or after it (fork's own), as with `exec resume`.
  addExecOptions(
    exec
      .command("fork")
      .description("Fork a stored thread (a new id; the original is unchanged) and run a prompt on the fork")
      .argument("<id>", "thread id (or a unique prefix)")
      .argument("[prompt]", "the prompt for the fork; read from stdin when omitted or '-'"),
  ).action(async (id: string, prompt: string | undefined, _options: ExecCliOptions, command: Command) => {
    const { runExec } = await loadExec();
    const merged = mergeExecOptions(
      mergeExecOptions(globals(), exec.opts<ExecCliOptions>()),
      command.opts<ExecCliOptions>(),
    );
    setExitCode(await runExec(prompt, merged, { fork: id }));
  });
}
