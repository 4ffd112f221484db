/**
 * `tscodex memories list|show|add|rm`: the notes the agent recalls (prompt/memories.ts).
 * Only the command definitions live here; the work (memories-actions.ts) is loaded when one runs.
 */
import type { Command } from "commander";
import { errorMessage } from "../../util/errors.js";
import type { ScopeOptions } from "./memories-actions.js";

export function registerMemoriesCommand(program: Command, setExitCode: (code: number) => void): void {
  const run = async (action: (actions: typeof import("./memories-actions.js")) => Promise<number>) => {
    try {
      setExitCode(await action(await import("./memories-actions.js")));
    } catch (error) {
      const { visibleText } = await import("../common/terminal-text.js");
      process.stderr.write(`tscodex: ${visibleText(errorMessage(error))}\n`);
      setExitCode(1);
    }
  };
  const memories = program.command("memories").description("Notes the agent recalls: list, show, add, rm");
  memories
    .command("list")
    .description("The memories visible here (global and this project's), with their summaries")
    .option("--json", "print a JSON array")
    .action((options: { json?: boolean }) => run((actions) => actions.list(options)));
  memories
    .command("show")
    .description("A memory's whole text")
    .argument("<id>", "memory id")
    .action((id: string) => run((actions) => actions.show(id)));
  memories
    .command("add")
    .description("Add or replace a memory; its first line is the summary listed in the prompt")
    .argument("<id>", "memory id (letters, digits, '-', '_', '.')")
    .argument("[text]", "the memory; read from stdin when omitted")
    .option("--project", "store it with this project instead of globally")
    .action((id: string, text: string | undefined, options: ScopeOptions) =>
      run((actions) => actions.add(id, text, options)),
    );
  memories
    .command("rm")
    .description("Remove a memory")
    .argument("<id>", "memory id")
    .option("--project", "remove this project's memory instead of the global one")
    .action((id: string, options: ScopeOptions) => run((actions) => actions.remove(id, options)));
}
