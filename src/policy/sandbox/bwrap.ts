/**
 * The bubblewrap command line for a policy. Legacy modes: the whole host is mounted read-only,
 * writable roots are bound writable on top, control dirs inside them read-only again. A
 * profile's rules (fs-rules.ts): the host root only when a rule covers `/`, then every rule's
 * path in order, denied ones hidden (an empty tmpfs or file of mode 000, read-only). Fresh /dev
 * and /proc; new pid namespace, and a net namespace without network (or with proxy routes: the
 * helper inside bridges its loopback ports to the proxy's sockets, bound in); all capabilities
 * dropped.
 *
 * Killing: runCommand signals the process group of bwrap; --new-session puts the command in
 * another group, so it goes through --die-with-parent (SIGKILL when bwrap dies) and the pid
 * namespace (everything in it dies with its pid 1).
 */

import { dirname } from "node:path";
import type { RuleLayout } from "./fs-rules.js";
import type { SandboxLayout } from "./layout.js";
import { isWithin } from "./layout.js";

/** What bwrapArgv mounts and which network it gives. */
export interface BwrapMounts {
  layout: SandboxLayout;
  /** A profile's rules: replace `layout` when present. */
  rules?: RuleLayout | undefined;
  /** The empty mode-000 file bound over denied files (fs-rules.ts deniedFilePlaceholder). */
  deniedFile?: string | undefined;
  /** The host's network (no --unshare-net). */
  networkAccess: boolean;
  /** Unix sockets the helper inside connects to (the proxy's), bound in at their paths. */
  sockets?: readonly string[] | undefined;
  /** The helper run inside: bound in at its path when the rules do not cover `/`. */
  helper?: string | undefined;
}

export function bwrapArgv(
  bwrap: string,
  argv: readonly string[],
  cwd: string,
  mounts: BwrapMounts,
): string[] {
  const args = [bwrap, "--new-session", "--die-with-parent", "--unshare-pid"];
  if (!mounts.networkAccess) args.push("--unshare-net");
  // Run as root, bwrap keeps root's capabilities: a command could remount / read-write.
  args.push("--cap-drop", "ALL");
  const rules = mounts.rules;
  if (!rules) args.push("--ro-bind", "/", "/");
  else if (rules.root === "read") args.push("--ro-bind", "/", "/");
  else if (rules.root === "write") args.push("--bind", "/", "/");
  args.push("--dev", "/dev", "--proc", "/proc");
  // A fresh procfs leaves sysctls writable for uid 0 even without capabilities.
  args.push("--ro-bind", "/proc/sys", "/proc/sys");
  if (rules) {
    args.push(...ruleMounts(rules, mounts));
  } else {
    for (const root of mounts.layout.writable) args.push("--bind", root, root);
    // -try: a nested .git found by the scan may be gone by now (/tmp is shared); gone is safe.
    for (const path of mounts.layout.readOnly) args.push("--ro-bind-try", path, path);
    for (const socket of mounts.sockets ?? []) args.push("--ro-bind", socket, socket);
  }
  args.push("--chdir", cwd, "--", ...argv);
  return args;
}

function ruleMounts(rules: RuleLayout, { deniedFile, sockets = [], helper }: BwrapMounts): string[] {
  const args: string[] = [];
  // The helper inside (no capabilities) must reach a proxy socket bound into a denied directory.
  const traversable = (mount: { path: string; reopened: boolean }) =>
    mount.reopened || sockets.some((socket) => isWithin(socket, mount.path));
  const made = new Set<string>();
  // Directories bwrap would make (0755, listable) between a denied directory and what it reopens.
  const traverseOnly = (path: string) => {
    const deny = nearestMount(rules, path);
    if (deny?.access !== "deny" || !deny.directory) return;
    for (let dir = dirname(path); dir !== deny.path && isWithin(dir, deny.path); dir = dirname(dir)) {
      if (!made.has(dir)) args.push("--perms", "0111", "--dir", dir);
      made.add(dir);
    }
  };
  for (const mount of rules.mounts) {
    if (mount.access !== "deny") traverseOnly(mount.path);
    if (mount.access === "read") args.push("--ro-bind-try", mount.path, mount.path);
    else if (mount.access === "write") args.push("--bind-try", mount.path, mount.path);
    else if (mount.directory)
      args.push("--perms", traversable(mount) ? "0111" : "0000", "--tmpfs", mount.path);
    else if (deniedFile) args.push("--ro-bind", deniedFile, mount.path);
    else throw new Error(`bwrapArgv: no placeholder to deny the file ${mount.path}`);
  }
  // Before the read-only remounts: their mount points may have to be made in a tmpfs.
  for (const socket of sockets) {
    traverseOnly(socket);
    args.push("--ro-bind", socket, socket);
  }
  if (rules.root === null) {
    for (const link of rules.links) args.push("--symlink", link.target, link.path);
    if (helper) args.push("--ro-bind", helper, helper);
  }
  // Read-only last, once the mount points of the rules beneath were made in them.
  for (const mount of rules.mounts) {
    if (mount.access === "deny" && mount.directory) args.push("--remount-ro", mount.path);
  }
  // Without `/`, bwrap's root is a writable tmpfs holding the mount points.
  if (rules.root === null) args.push("--remount-ro", "/");
  return args;
}

/** The most specific mount strictly above `path`. */
function nearestMount(rules: RuleLayout, path: string): RuleLayout["mounts"][number] | undefined {
  let best: RuleLayout["mounts"][number] | undefined;
  for (const mount of rules.mounts) {
    if (mount.path !== path && isWithin(path, mount.path) && (!best || mount.path.length > best.path.length))
      best = mount;
  }
  return best;
}
