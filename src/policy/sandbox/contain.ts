/**
 * Process containment: ending a call, or tscodex, ends everything the command started,
 * setsid daemons included. Sandboxed commands get a PID namespace (bwrap's, or the Landlock
 * helper's --pid-namespace); unsandboxed ones (danger-full-access, approved escalations) the
 * helper's keeper (--contain-only: no namespace, so they still see and signal host processes).
 * Where neither is possible, commands run as before (their process group and session are
 * killed, a daemon escapes) and one line on stderr says so, once per process.
 */
import { containmentStatus } from "./detect.js";
import { containArgv } from "./landlock.js";

let warned = false;

/** argv wrapped in the helper's keeper; argv itself (after one warning) when impossible. */
export async function containCommand(argv: readonly string[]): Promise<string[]> {
  const status = await containmentStatus();
  if (status.available) return containArgv(status.path, argv);
  warnUncontained(status.reason);
  return [...argv];
}

/** The one-line warning that commands are not contained (printed once per process). */
export function warnUncontained(reason: string): void {
  if (warned) return;
  warned = true;
  process.stderr.write(
    `tscodex: warning: commands cannot be contained here (${reason}); a daemon a command starts can outlive it\n`,
  );
}
