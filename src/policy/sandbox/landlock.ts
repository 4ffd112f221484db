/**
 * The command line of the fallback helper (native/tscodex-sandbox.c): a private mount
 * namespace that makes everything but the writable roots read-only (and control dirs inside
 * them; or a profile's rules, in order, denied paths hidden), a private /dev/shm and /dev/pts,
 * Landlock for writes (and reads, without `/`), seccomp for sockets, with proxy routes a
 * network namespace whose only way out is the helper's bridge to the proxy, and the
 * .git guard (native/git-guard.c: a supervisor that makes every name-creating call for the
 * command and refuses any new `.git`, `.codex`, `.agents` or `.tscodex`). The helper stays as the command's stand-in (same process
 * group, same exit status or fatal signal); with a PID namespace (native/contain.c) one more
 * stand-in stays outside it.
 */
import type { RuleLayout } from "./fs-rules.js";
import type { SandboxLayout } from "./layout.js";
import type { ProxyRoute } from "./types.js";

/** How many --writable, --read-only and --deny paths the helper takes (MAX_PATHS). */
export const HELPER_MAX_PATHS = 4096;

/** The helper's exit code when the kernel has no Landlock. */
export const HELPER_EXIT_NO_LANDLOCK = 120;

/** Socket rules the helper's seccomp filter applies (both backends use them). */
export interface SocketRules {
  networkAccess: boolean;
  allowUnixSockets: boolean;
  /**
   * Proxy-only network: a namespace with only loopback, where 127.0.0.1:port leads to the
   * unix socket (the helper's bridge); AF_INET/AF_INET6 sockets are then allowed.
   */
  proxyRoutes?: readonly ProxyRoute[] | undefined;
}

export function landlockArgv(
  helper: string,
  argv: readonly string[],
  layout: SandboxLayout,
  sockets: SocketRules,
  pidNamespace: boolean,
  rules?: RuleLayout,
): string[] {
  const args = [helper, ...socketFlags(sockets)];
  if (pidNamespace) args.push("--pid-namespace");
  if (rules) {
    args.push(...ruleFlags(rules));
    args.push("--", ...argv);
    return args;
  }
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

/**
 * A profile's rules for the helper, in order. Without `/` reads are restricted too (Landlock
 * handles reads: only beneath the rules' read and write paths, /proc and the usual devices).
 * `/` writable is refused before (prepare.ts): the helper's read-only pass cannot be undone.
 */
function ruleFlags(rules: RuleLayout): string[] {
  const flags: string[] = [];
  if (rules.root === null) flags.push("--restrict-reads");
  // The helper mounts a private /dev/shm: writable like the rules' paths, only when there are some.
  if (rules.mounts.some((mount) => mount.access === "write")) flags.push("--writable", "/dev/shm");
  const option = { read: "--read-only", write: "--writable", deny: "--deny" } as const;
  for (const mount of rules.mounts) flags.push(option[mount.access], mount.path);
  return flags;
}

function socketFlags(sockets: SocketRules): string[] {
  const flags: string[] = [];
  for (const route of sockets.proxyRoutes ?? [])
    flags.push("--proxy-route", `${route.port}=${route.socketPath}`);
  if (sockets.networkAccess) flags.push("--allow-network");
  if (sockets.allowUnixSockets) flags.push("--allow-unix-sockets");
  return flags;
}
