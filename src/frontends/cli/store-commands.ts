/** `tscodex sessions list|show|delete|fork|migrate`: the stored threads of the configured store. */
import { type CommandHost, globalConfig } from "./command-options.js";
import type { SessionsAction, SessionsCliOptions } from "./sessions-command.js";

export function registerSessionsCommands({ program, globals, setExitCode }: CommandHost): void {
  const sessions = program.command("sessions").description("List, show, fork and delete stored threads");
  const runSessions = async (action: SessionsAction, id: string | undefined, options: SessionsCliOptions) => {
    const [{ runSessionsCommand }, { loadConfig }, { parseOverride }, { openThreadStore }] =
      await Promise.all([
        import("./sessions-command.js"),
        import("../../config/load.js"),
        import("../../config/overrides.js"),
        import("../../store/index.js"),
      ]);
    // The store comes from config: `[store] url`, $TSCODEX_STORE_URL, or -c store.url=...
    const config = await loadConfig({ overrides: globalConfig(globals()).map(parseOverride) });
    const store = await openThreadStore(config);
    try {
      setExitCode(await runSessionsCommand(action, id, options, store));
    } finally {
      await store.close();
    }
  };
  sessions
    .command("list")
    .description("Stored threads, newest first: id, age, turns, tokens, cwd, first prompt")
    .option("--json", "print a JSON array")
    .option("-n, --limit <count>", "show at most this many", Number)
    .action((options: SessionsCliOptions) => runSessions("list", undefined, options));
  sessions
    .command("show")
    .description("One thread: metadata, then its history")
    .argument("<id>", "thread id (or a unique prefix)")
    .option("--json", "print the metadata, summary and history as JSON")
    .action((id: string, options: SessionsCliOptions) => runSessions("show", id, options));
  sessions
    .command("delete")
    .description("Delete a stored thread's rollout")
    .argument("<id>", "thread id (or a unique prefix)")
    .action((id: string, options: SessionsCliOptions) => runSessions("delete", id, options));
  sessions
    .command("fork")
    .description("Copy a thread (its first N turns, default all) into a new thread; prints the new id")
    .argument("<id>", "thread id (or a unique prefix)")
    .option("--turns <count>", "copy only the first N turns", Number)
    .option("--json", "print the new thread's id and path as JSON")
    .action((id: string, options: SessionsCliOptions) => runSessions("fork", id, options));

  sessions
    .command("migrate")
    .description("Copy the local JSONL threads into another store (resumable: run it again to finish)")
    .option("--to <url>", "the target store: postgres://user:password@host:port/db (default: [store] url)")
    .action(async (options: { to?: string }) => {
      const [{ runMigrateCommand }, { loadConfig }, { parseOverride }] = await Promise.all([
        import("./sessions-command.js"),
        import("../../config/load.js"),
        import("../../config/overrides.js"),
      ]);
      const config = await loadConfig({ overrides: globalConfig(globals()).map(parseOverride) });
      setExitCode(await runMigrateCommand(config.home, options.to ?? config.store.url));
    });
}
