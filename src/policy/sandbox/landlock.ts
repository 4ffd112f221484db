/**
 * The command line of the fallback helper (native/tscodex-sandbox.c): a private mount
 * namespace that makes everything but the writable roots read-only (and control dirs inside
 * them), a private /dev/shm and /dev/pts, Landlock for writes, seccomp for sockets, and the
 * .git guard (native/git-guard.c: a supervisor that makes every name-creating call for the
 * command and refuses any new `.git`, `.codex`, `.agents` or `.tscodex`). The helper stays as the command's stand-in (same process
 * group, same exit status or fatal signal); with a PID namespace (native/contain.c) one more
 * stand-in stays outside it.
 */
import type { SandboxLayout } from "./layout.js";

/** The helper's exit code when the kernel has no Landlock. */
export const HELPER_EXIT_NO_LANDLOCK = 120;

/** Socket rules the helper's seccomp filter applies (both backends use them). */
export interface SocketRules {
  networkAccess: boolean;
  allowUnixSockets: boolean;
}

export function landlockArgv(
  helper: string,
  argv: readonly string[],
  layout: SandboxLayout,
  sockets: SocketRules,
  pidNamespace: boolean,
): string[] {
  const args = [helper, ...socketFlags(sockets)];
  if (pidNamespace) args.push("--pid-namespace");
  for (const root of layout.writable) args.push("--writable", root);
  // The helper mounts a private /dev/shm: writable like the roots, only when there are some.
  if (layout.writable.length > 0) args.push("--writable", "/dev/shm");
  for (const path of layout.readOnly) args.push("--read-only", path);
  args.push("--", ...argv);
  return args;
}

/**
 * The helper inside bwrap, in seccomp-only mode: its seccomp layer (unix sockets when network
 * is off, terminal ioctls) and its .git guard (a supervisor that refuses every new name `.git`,
 * `.codex`, `.agents` or `.tscodex`).
 */
export function seccompOnlyArgv(helper: string, argv: readonly string[], sockets: SocketRules): string[] {
  return [helper, "--seccomp-only", ...socketFlags(sockets), "--", ...argv];
}

/**
 * The helper's containment only (danger-full-access): a keeper process (a child subreaper in
 * a session of its own, see native/contain.c) ends everything the command started when the
 * command or tscodex ends. No namespace: host pids and /proc stay as they are. No file,
 * network or socket rule.
 */
export function containArgv(helper: string, argv: readonly string[]): string[] {
  return [helper, "--contain-only", "--", ...argv];
}

function socketFlags(sockets: SocketRules): string[] {
  const flags: string[] = [];
  if (sockets.networkAccess) flags.push("--allow-network");
  if (sockets.allowUnixSockets) flags.push("--allow-unix-sockets");
  return flags;
}
