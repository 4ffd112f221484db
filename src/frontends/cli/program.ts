/**
 * `tscodex` command line (commander), for every invocation main.ts does not take a short cut
 * for. Sub-commands are imported lazily so `tscodex exec` pays only for what it uses.
 */
import { Command, CommanderError, Option } from "commander";
import { VERSION } from "../../version.js";
import type { AppServerCliOptions } from "../app-server/run.js";
import type { ProxyCliOptions } from "../http-proxy/run.js";
import type { McpServerCliOptions } from "../mcp-server/run.js";
import type { ExecCliOptions } from "./exec.js";
import { EXEC_OPTIONS, mergeExecOptions, type OptionSpec, SHARED_OPTIONS } from "./exec-options.js";
import { reportFailure } from "./failure.js";
import { styleHelp } from "./help-style.js";
import { loadExec } from "./load-exec.js";
import { registerMcpCommand } from "./mcp-command.js";
import { registerMemoriesCommand } from "./memories-command.js";
import type { ReviewCliOptions } from "./review.js";
import type { SandboxCliOptions } from "./sandbox-command.js";
import { APP_SERVER_LISTEN, MCP_SERVER_HOST } from "./server-defaults.js";
import type { SessionsAction, SessionsCliOptions } from "./sessions-command.js";

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

/** Registers options from exec-options.ts's table, as commander options. */
function addOptions(command: Command, specs: readonly OptionSpec[]): Command {
  for (const spec of specs) {
    const option = new Option(spec.flags, spec.description);
    if (spec.choices) option.choices(spec.choices);
    if (spec.repeatable) option.argParser(collect).default([]);
    else if (spec.defaultValue !== undefined) option.default(spec.defaultValue);
    command.addOption(option);
  }
  return command;
}

/** The options `exec` and `exec resume` share. */
function addExecOptions(command: Command): Command {
  return addOptions(command, [...SHARED_OPTIONS, ...EXEC_OPTIONS]);
}

/** `review` and `exec review`: what to review, then exec's options. */
function addReviewOptions(command: Command): Command {
  return addExecOptions(
    command
      .argument("[prompt]", "free-form review instructions (read from stdin with '-')")
      .option("--uncommitted", "review staged, unstaged and untracked changes")
      .option("--base <branch>", "review the changes against this base branch")
      .option("--commit <sha>", "review the changes a commit introduced")
      .option("--title <title>", "the commit title shown in the review prompt (with --commit)"),
  );
}

/**
 * Top-level options as `-c` overrides, for subcommands that take no exec flags (mcp-server):
 * `-C` becomes the process's directory, as the wrappers that pass it expect.
 */
function globalConfig(options: Partial<ExecCliOptions>): string[] {
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

/** Runs a plain `exec` (its prompt and merged options); tests pass one that records them. */
export type ExecRunner = (prompt: string | undefined, options: ExecCliOptions) => Promise<number>;

const runExecCommand: ExecRunner = async (prompt, options) => (await loadExec()).runExec(prompt, options);

/** Parse `argv` (after the program name) and run the command; resolves with the exit code. */
export async function runProgram(argv: string[], runPlainExec: ExecRunner = runExecCommand): Promise<number> {
  let exitCode = 0;
  const program = new Command("tscodex")
    .description("The Codex coding agent runtime, in TypeScript.")
    .version(VERSION, "-V, --version")
    .showHelpAfterError()
    .enablePositionalOptions()
    .exitOverride();
  const help = styleHelp(program);
  // Codex's top-level options, applied to the subcommand that follows them.
  addOptions(program, SHARED_OPTIONS);
  const globals = (): Partial<ExecCliOptions> => program.opts<Partial<ExecCliOptions>>();

  const exec = addExecOptions(
    program
      .command("exec")
      .description("Run the agent non-interactively on one prompt; the final message goes to stdout")
      .argument("[prompt]", "the task; read from stdin when omitted or '-'"),
  ).action(async (prompt: string | undefined, options: ExecCliOptions) => {
    exitCode = await runPlainExec(prompt, mergeExecOptions(globals(), options));
  });
  // `exec resume`: options may come before `resume` (exec's) or after it (resume's own).
  addExecOptions(
    exec
      .command("resume")
      .description("Continue a stored thread with one more prompt (full history resent)")
      .argument("[id]", "thread id (or a unique prefix); omit with --last")
      .argument("[prompt]", "the next prompt; read from stdin when omitted or '-'"),
  )
    .option("--last", "resume the most recently created thread")
    .action(
      async (
        id: string | undefined,
        prompt: string | undefined,
        options: ExecCliOptions & { last?: boolean },
        command: Command,
      ) => {
        const { runExec } = await loadExec();
        const merged = mergeExecOptions(
          mergeExecOptions(globals(), exec.opts<ExecCliOptions>()),
          command.opts<ExecCliOptions>(),
        );
        if (options.last) {
          // With --last the only positional is the prompt.
          exitCode = await runExec(prompt ?? id, merged, { last: true });
        } else if (!id) {
          process.stderr.write("tscodex: exec resume needs a thread id or --last\n");
          exitCode = 2;
        } else {
          exitCode = await runExec(prompt, merged, { id });
        }
      },
    );

  const runReviewAction = async (prompt: string | undefined, options: ReviewCliOptions) => {
    const { runReview } = await import("./review.js");
    exitCode = await runReview(prompt, options);
  };
  addReviewOptions(
    exec.command("review").description("Review code changes read-only; the findings are the final message"),
  ).action((prompt: string | undefined, _options: ReviewCliOptions, command: Command) =>
    runReviewAction(
      prompt,
      mergeExecOptions(
        mergeExecOptions(globals(), exec.opts<ExecCliOptions>()),
        command.opts<ReviewCliOptions>(),
      ),
    ),
  );
  addReviewOptions(
    program
      .command("review")
      .description("Review code changes read-only (--uncommitted, --base, --commit, or a prompt)"),
  ).action((prompt: string | undefined, options: ReviewCliOptions) =>
    runReviewAction(prompt, mergeExecOptions(globals(), options)),
  );

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
      exitCode = await runSessionsCommand(action, id, options, store);
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
      exitCode = await runMigrateCommand(config.home, options.to ?? config.store.url);
    });

  program
    .command("apply-patch")
    .description("Apply a patch in the apply_patch format read from stdin")
    .option("-C, --cd <dir>", "directory the patch paths are relative to")
    .action(async (options: { cd?: string }) => {
      const { runApplyPatchCommand } = await import("./apply-patch-command.js");
      exitCode = await runApplyPatchCommand({
        cwd: options.cd ?? process.cwd(),
        stdin: process.stdin,
        stdout: process.stdout,
        stderr: process.stderr,
      });
    });

  program
    .command("sandbox")
    .description("Run a command under the sandbox policy (default: sandbox_mode from config, else read-only)")
    .argument("<command...>", "the command and its arguments (after --)")
    .option("--full-auto", "workspace-write: cwd, writable_roots and /tmp writable; network off")
    .addOption(
      new Option("-s, --sandbox <mode>", "sandbox mode").choices([
        "read-only",
        "workspace-write",
        "danger-full-access",
      ]),
    )
    .addOption(
      new Option("--backend <backend>", "sandbox backend")
        .choices(["auto", "bwrap", "landlock"])
        .default("auto"),
    )
    .option("-p, --profile <name>", "config profile from [profiles.<name>]")
    .option(
      "-c, --config <key=value>",
      "override a config key, e.g. sandbox_workspace_write.network_access=true; repeatable",
      collect,
      [],
    )
    .passThroughOptions()
    .action(async (command: string[], options: SandboxCliOptions) => {
      const { runSandboxCommand } = await import("./sandbox-command.js");
      exitCode = await runSandboxCommand(command, options);
    });

  program
    .command("mcp-server")
    .description("Serve the codex / codex-reply MCP tools (stdio by default, or Streamable HTTP)")
    .option("--http <port>", "serve Streamable HTTP on this port instead of stdio (0: any free port)")
    .option("--host <host>", "address to listen on with --http", MCP_SERVER_HOST)
    .option("--api-key-env <var>", "with --http: require `Authorization: Bearer <value of VAR>`")
    .option(
      "-c, --config <key=value>",
      "override a config key for every thread (value parsed as TOML); repeatable",
      collect,
      [],
    )
    .option("--raw-events", "also send Codex's raw codex/event notifications during a call")
    .action(async (options: McpServerCliOptions) => {
      const { runMcpServer } = await import("../mcp-server/run.js");
      exitCode = await runMcpServer({ ...options, config: [...globalConfig(globals()), ...options.config] });
    });

  program
    .command("proxy")
    .description(
      "Serve an OpenAI-compatible HTTP API (/v1/responses, /v1/chat/completions, /v1/models) with the agent behind it",
    )
    .option("--host <host>", "address to listen on", "127.0.0.1")
    .option("--port <port>", "port to listen on (0: any free port)", "8787")
    .option("--api-key-env <var>", "require `Authorization: Bearer <value of VAR>`")
    .option("-C, --cd <dir>", "working directory of the agent")
    .option("--disable-internal-tools", "give the agent only the tools each request brings")
    .option(
      "--quiet-agent-work",
      "hide the agent's own tool work (otherwise shown as reasoning summary text)",
    )
    .option("--max-concurrent <count>", "turns run at once; more requests get 429", "100")
    .option("--parked-ttl <seconds>", "how long a response's client tool calls wait for their outputs", "600")
    .option("--max-body <bytes>", "largest request body accepted (larger: 413)", String(20 * 1024 * 1024))
    .option(
      "-c, --config <key=value>",
      "override a config key (value parsed as TOML); repeatable",
      collect,
      [],
    )
    .action(async (options: ProxyCliOptions) => {
      const { runProxy } = await import("../http-proxy/run.js");
      exitCode = await runProxy(options);
    });

  const appServer = program
    .command("app-server")
    .description("Serve Codex's app-server JSON-RPC protocol to an app (stdio by default, or WebSocket)")
    .option("--listen <url>", "stdio:// or ws://HOST:PORT (0: any free port)", APP_SERVER_LISTEN)
    .option("--api-key-env <var>", "with ws://: require `Authorization: Bearer <value of VAR>`")
    .option(
      "-c, --config <key=value>",
      "override a config key for every thread (value parsed as TOML); repeatable",
      collect,
      [],
    )
    .action(async (options: AppServerCliOptions) => {
      const { runAppServer } = await import("../app-server/run.js");
      exitCode = await runAppServer({ ...options, config: [...globalConfig(globals()), ...options.config] });
    });
  appServer
    .command("generate-json-schema")
    .description("Write the protocol's JSON Schema files (from the schemas that validate messages)")
    .requiredOption("-o, --out <dir>", "directory to write into")
    .action(async (options: { out: string }) => {
      const { runGenerateJsonSchema } = await import("../app-server/protocol/json-schema.js");
      exitCode = await runGenerateJsonSchema(options);
    });

  registerMcpCommand(program, (code) => {
    exitCode = code;
  });
  registerMemoriesCommand(program, (code) => {
    exitCode = code;
  });

  try {
    await program.parseAsync(argv, { from: "user" });
  } catch (error) {
    if (error instanceof CommanderError) {
      help.flushError();
      return error.exitCode;
    }
    return reportFailure(error);
  }
  return exitCode;
}
