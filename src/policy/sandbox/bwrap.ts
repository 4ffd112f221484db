/**
 * The bubblewrap command line for a policy. The whole host is mounted read-only, writable
 * roots are bound writable on top, control dirs inside them read-only again; fresh /dev and
 * /proc; new pid (and, without network, net) namespace; all capabilities dropped.
 *
 * Killing: runCommand signals the process group of bwrap; --new-session puts the command in
 * another group, so it goes through --die-with-parent (SIGKILL when bwrap dies) and the pid
 * namespace (everything in it dies with its pid 1).
 */
import type { SandboxLayout } from "./layout.js";

export function bwrapArgv(
  bwrap: string,
  argv: readonly string[],
  cwd: string,
  layout: SandboxLayout,
  networkAccess: boolean,
): string[] {
  const args = [bwrap, "--new-session", "--die-with-parent", "--unshare-pid"];
  if (!networkAccess) args.push("--unshare-net");
  // Run as root, bwrap keeps root's capabilities: a command could remount / read-write.
  args.push("--cap-drop", "ALL");
  args.push("--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc");
  // A fresh procfs leaves sysctls writable for uid 0 even without capabilities.
  args.push("--ro-bind", "/proc/sys", "/proc/sys");
  for (const root of layout.writable) args.push("--bind", root, root);
  // -try: a nested .git found by the scan may be gone by now (/tmp is shared); gone is safe.
  for (const path of layout.readOnly) args.push("--ro-bind-try", path, path);
  args.push("--chdir", cwd, "--", ...argv);
  return args;
}
