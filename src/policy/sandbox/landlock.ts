/**
 * The command line of the fallback helper (native/tscodex-sandbox.c): Landlock for writes,
 * seccomp for sockets, a private mount namespace for read-only control dirs. The helper
 * exec's the command in place, so process groups and exit codes are the command's own.
 */
import type { SandboxLayout } from "./layout.js";

/** The helper's exit code when the kernel has no Landlock. */
export const HELPER_EXIT_NO_LANDLOCK = 120;

export function landlockArgv(
  helper: string,
  argv: readonly string[],
  layout: SandboxLayout,
  networkAccess: boolean,
  protectControlDirs: boolean,
): string[] {
  const args = [helper];
  if (networkAccess) args.push("--allow-network");
  for (const root of layout.writable) args.push("--writable", root);
  // bwrap's --dev gives a private /dev/shm; here it is the host's, so only with writable roots.
  if (layout.writable.length > 0) args.push("--writable", "/dev/shm");
  if (protectControlDirs) for (const path of layout.readOnly) args.push("--read-only", path);
  args.push("--", ...argv);
  return args;
}
