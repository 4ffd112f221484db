/**
 * `tscodex` command line. Sub-commands are imported lazily so `tscodex exec` pays only
 * for what it uses.
 */
import { Command, CommanderError, Option } from "commander";
import { errorMessage } from "../../util/errors.js";
import { VERSION } from "../../version.js";
import type { ProxyCliOptions } from "../http-proxy/run.js";
import type { McpServerCliOptions } from "../mcp-server/run.js";
import type { ExecCliOptions } from "./exec.js";
import { registerMcpCommand } from "./mcp-command.js";
import { registerMemoriesCommand } from "./memories-command.js";
import type { SandboxCliOptions } from "./sandbox-command.js";
import type { SessionsAction, SessionsCliOptions } from "./sessions-command.js";

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

/** The options `exec` and `exec resume` share. */
function addExecOptions(command: Command): Command {
  return command
    .option("-m, --model <model>", "model to use (default from config, else gpt-5.2-codex)")
    .option("-p, --profile <name>", "config profile from [profiles.<name>]")
    .option(
      "-c, --config <key=value>",
      "override a config key (value parsed as TOML); repeatable",
      collect,
      [],
    )
    .option(
      "--enable <feature>",
      "turn a feature on (features.NAME=true), e.g. unified_exec; repeatable",
      collect,
      [],
    )
    .option(
      "--disable <feature>",
      "turn a feature off (features.NAME=false), e.g. shell_tool; repeatable",
      collect,
      [],
    )
    .option("-C, --cd <dir>", "working directory for the agent")
    .addOption(
      new Option(
        "-s, --sandbox <mode>",
        "sandbox mode for commands the agent runs (default read-only; bubblewrap, else the Landlock helper)",
      ).choices(["read-only", "workspace-write", "danger-full-access"]),
    )
    .addOption(
      new Option(
        "-a, --ask-for-approval <policy>",
        "approval policy (default never); exec has nobody to ask, so questions are answered at once by config approvals.exec_outcome (deny, or approve)",
      ).choices(["untrusted", "on-failure", "on-request", "never"]),
    )
    .option("--full-auto", "workspace-write sandbox (cwd, writable_roots and /tmp writable), no approvals")
    .option("--oss", "use the local open-source provider (Ollama on localhost:11434)")
    .option("-i, --image <file>", "attach an image to the prompt; repeatable", collect, [])
    .option("--json", "print events as JSON lines on stdout")
    .option("-o, --output-last-message <file>", "also write the final agent message to this file")
    .option("--output-schema <file>", "JSON Schema the final message must match (the model answers in JSON)")
    .option("--skip-git-repo-check", "allow running outside a git repository")
    .option("--color <when>", "colour human output: always, never, auto", "auto");
}

/** Options given after `resume` win over the same ones given before it; lists are joined. */
function mergeExecOptions(parent: ExecCliOptions, own: ExecCliOptions): ExecCliOptions {
  const merged: ExecCliOptions = { ...parent };
  for (const [key, value] of Object.entries(own) as [keyof ExecCliOptions, unknown][]) {
    const before = parent[key];
    if (Array.isArray(value) && Array.isArray(before))
      Object.assign(merged, { [key]: [...before, ...value] });
    else if (value !== undefined && !(key === "color" && value === "auto"))
      Object.assign(merged, { [key]: value });
  }
  return merged;
}

export async function main(argv: string[]): Promise<number> {
  let exitCode = 0;
  const program = new Command("tscodex")
    .description("The Codex coding agent runtime, in TypeScript.")
    .version(VERSION, "-V, --version")
    .showHelpAfterError()
    .enablePositionalOptions()
    .exitOverride();

  const exec = addExecOptions(
    program
      .command("exec")
      .description("Run the agent non-interactively on one prompt; the final message goes to stdout")
      .argument("[prompt]", "the task; read from stdin when omitted or '-'"),
  ).action(async (prompt: string | undefined, options: ExecCliOptions) => {
    const { runExec } = await import("./exec.js");
    exitCode = await runExec(prompt, options);
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
        const { runExec } = await import("./exec.js");
        const merged = mergeExecOptions(exec.opts<ExecCliOptions>(), command.opts<ExecCliOptions>());
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

  const sessions = program.command("sessions").description("List, show, fork and delete stored threads");
  const runSessions = async (action: SessionsAction, id: string | undefined, options: SessionsCliOptions) => {
    const { runSessionsCommand } = await import("./sessions-command.js");
    exitCode = await runSessionsCommand(action, id, options);
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
    .option("--host <host>", "address to listen on with --http", "127.0.0.1")
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
      exitCode = await runMcpServer(options);
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

  registerMcpCommand(program, (code) => {
    exitCode = code;
  });
  registerMemoriesCommand(program, (code) => {
    exitCode = code;
  });

  try {
    await program.parseAsync(argv, { from: "user" });
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode;
    process.stderr.write(`tscodex: ${errorMessage(error)}\n`);
    return 1;
  }
  return exitCode;
}
