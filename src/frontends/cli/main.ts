/**
 * `tscodex` command line. Sub-commands are imported lazily so `tscodex exec` pays only
 * for what it uses.
 */
import { Command, CommanderError, Option } from "commander";
import { VERSION } from "../../version.js";
import type { ExecCliOptions } from "./exec.js";
import type { SandboxCliOptions } from "./sandbox-command.js";

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

export async function main(argv: string[]): Promise<number> {
  let exitCode = 0;
  const program = new Command("tscodex")
    .description("The Codex coding agent runtime, in TypeScript.")
    .version(VERSION, "-V, --version")
    .showHelpAfterError()
    .enablePositionalOptions()
    .exitOverride();

  program
    .command("exec")
    .description("Run the agent non-interactively on one prompt; the final message goes to stdout")
    .argument("[prompt]", "the task; read from stdin when omitted or '-'")
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
    .option("--skip-git-repo-check", "allow running outside a git repository")
    .option("--color <when>", "colour human output: always, never, auto", "auto")
    .action(async (prompt: string | undefined, options: ExecCliOptions) => {
      const { runExec } = await import("./exec.js");
      exitCode = await runExec(prompt, options);
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

  try {
    await program.parseAsync(argv, { from: "user" });
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode;
    process.stderr.write(`tscodex: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
  return exitCode;
}
