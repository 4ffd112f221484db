/** `tscodex apply-patch` and `tscodex sandbox`: local tools that run without a model. */
import { Option } from "commander";
import { type CommandHost, collect } from "./command-options.js";
import type { SandboxCliOptions } from "./sandbox-command.js";

export function registerLocalCommands({ program, setExitCode }: CommandHost): void {
  program
    .command("apply-patch")
    .description("Apply a patch in the apply_patch format read from stdin")
    .option("-C, --cd <dir>", "directory the patch paths are relative to")
    .action(async (options: { cd?: string }) => {
      const { runApplyPatchCommand } = await import("./apply-patch-command.js");
      setExitCode(
        await runApplyPatchCommand({
          cwd: options.cd ?? process.cwd(),
          stdin: process.stdin,
          stdout: process.stdout,
          stderr: process.stderr,
        }),
      );
    });

  program
    .command("sandbox")
    .description(
      "Run a command under the permissions config chooses (default_permissions' profile, else sandbox_mode, else read-only), or -P/-s",
    )
    .argument("<command...>", "the command and its arguments (after --)")
    .option("--full-auto", "workspace-write: cwd, writable_roots and /tmp writable; network off")
    .addOption(
      new Option("-s, --sandbox <mode>", "sandbox mode").choices([
        "read-only",
        "workspace-write",
        "danger-full-access",
      ]),
    )
    .option(
      "-P, --permission-profile <name>",
      "a permission profile: :read-only, :workspace, :danger-full-access or [permissions.<name>]",
    )
    .option("-C, --cd <dir>", "run in this directory (the workspace root)")
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
      setExitCode(await runSandboxCommand(command, options));
    });
}
