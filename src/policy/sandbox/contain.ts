/**
 * Process containment: ending a call, or tscodex, ends everything the command started,
 * setsid daemons included. Sandboxed commands get a PID namespace (bwrap's, or the Landlock
 * helper's --pid-namespace); unsandboxed ones (danger-full-access, approved escalations) the
 * helper's keeper (--contain-only: no namespace, so they still see and signal host processes).
 * Where neither is possible, commands run as before (their process group and session are
 * killed, a daemon escapes) and one line on stderr says so, once per process.
 */
import { delimiter, join } from "node:path";
import { isExecutable } from "../../util/files.js";
import { containmentStatus } from "./detect.js";
import { containArgv } from "./landlock.js";

let warned = false;

/**
 * argv wrapped in the helper's keeper; argv itself (after one warning) when impossible. A
 * program that cannot be found stays unwrapped, so starting it fails as it always did (a
 * spawn error, not the helper's exit code 127): it would start nothing to contain.
 */
export async function containCommand(argv: readonly string[]): Promise<string[]> {
  const status = await containmentStatus();
  if (!status.available) {
    warnUncontained(status.reason);
    return [...argv];
  }
  if (!(await isRunnable(argv[0]))) return [...argv];
  return containArgv(status.path, argv);
}

/** Whether `program` names an executable, directly or on $PATH, as execvp would find it. */
async function isRunnable(program: string | undefined): Promise<boolean> {
  if (!program) return false;
  // Relative to the command's cwd, which is not ours: let the helper find it.
  if (program.includes("/") && !program.startsWith("/")) return true;
  const candidates = program.includes("/")
    ? [program]
    : (process.env.PATH ?? "").split(delimiter).map((dir) => join(dir || ".", program));
  for (const candidate of candidates) {
    if (await isExecutable(candidate)) return true;
  }
  return false;
}

/** The one-line warning that commands are not contained (printed once per process). */
export function warnUncontained(reason: string): void {
  if (warned) return;
  warned = true;
  process.stderr.write(
    `tscodex: warning: commands cannot be contained here (${reason}); a daemon a command starts can outlive it\n`,
  );
}
