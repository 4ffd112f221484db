/**
 * `shell_command`: a script string run by the user's shell (`$SHELL -lc script`), answered
 * in the freeform envelope `Exit code / Wall time / Output` (reference section 3).
 */
import { basename, isAbsolute } from "node:path";
import { z } from "zod";
import { isExecutable } from "../../util/files.js";
import { defineFunctionTool } from "../define-tool.js";
import type { ToolDefinition } from "../types.js";
import { callCwd, commandRunParameters, escalationOf, prepareShellCall } from "./shell.js";

const SUPPORTED_SHELLS = new Set(["bash", "zsh", "sh"]);
let detectedShell: Promise<string> | undefined;

/** The user's shell: $SHELL when it is bash, zsh or sh, else /bin/bash (else /bin/sh). Computed once. */
export function userShellPath(): Promise<string> {
  detectedShell ??= detectShell(process.env.SHELL);
  return detectedShell;
}

async function detectShell(shell: string | undefined): Promise<string> {
  const candidates = [
    ...(shell && isAbsolute(shell) && SUPPORTED_SHELLS.has(basename(shell)) ? [shell] : []),
    "/bin/bash",
  ];
  for (const candidate of candidates) {
    if (await isExecutable(candidate)) return candidate;
  }
  return "/bin/sh";
}

const parameters = z.object({
  command: z
    .string()
    .describe('The script to run, as one string, e.g. "ls -la src" or "npm test 2>&1 | tail -40".'),
  login: z
    .boolean()
    .optional()
    .describe("Start a login shell so profile files are read (default true); false for a plain `-c` shell."),
  ...commandRunParameters,
});

const DESCRIPTION =
  "Run a script in the user's shell and get back its exit code, wall time and interleaved stdout/stderr. " +
  "Long output keeps its beginning and end. Use `workdir` rather than starting the script with `cd`.";

/** The shell_command tool. `shellPath` overrides the detected user shell (tests, config). */
export function shellCommandTool(options: { shellPath?: string } = {}): ToolDefinition {
  return defineFunctionTool({
    name: "shell_command",
    description: DESCRIPTION,
    parameters,
    supportsParallel: true,
    // Commands are judged when they run (policy/orchestrator.ts); a heredoc patch when prepared.
    prepare: async (args, inv) => {
      const shell = options.shellPath ?? (await userShellPath());
      return prepareShellCall(
        {
          command: args.command,
          argv: [shell, args.login === false ? "-c" : "-lc", args.command],
          cwd: callCwd(inv, args.workdir),
          timeoutMs: args.timeout_ms,
          envelope: "freeform",
          escalation: escalationOf(args),
        },
        inv,
      );
    },
  });
}
