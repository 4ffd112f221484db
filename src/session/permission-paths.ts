/**
 * A permissions value's symbolic paths made concrete for one command: `:workspace_roots` is the
 * turn's cwd plus the profile's roots, `:tmpdir` the $TMPDIR commands get. Synchronous and
 * without I/O (no realpath, no globs): what the prompt and the patch gate need. The sandbox
 * resolves the same rules against the file system before each command.
 */
import { join } from "node:path";
import type { Permissions } from "../protocol/permissions.js";

export interface PathContext {
  cwd: string;
  /** The $TMPDIR commands get; null when unset. */
  tmpdir: string | null;
}

/** The runtime paths `:minimal` stands for: what common tools need to start. */
export const MINIMAL_PATHS = [
  "/bin",
  "/sbin",
  "/usr",
  "/lib",
  "/lib32",
  "/lib64",
  "/libx32",
  "/etc",
] as const;

/** The concrete paths a rule path stands for (several for `:workspace_roots` and `:minimal`). */
export function expandRulePath(path: string, workspaceRoots: readonly string[], ctx: PathContext): string[] {
  const [head, ...rest] = path.split("/");
  const sub = rest.filter((part) => part !== "" && part !== ".").join("/");
  const under = (roots: readonly string[]): string[] => roots.map((root) => (sub ? join(root, sub) : root));
  switch (head) {
    case "":
      return [path];
    case ":root":
      return ["/"];
    case ":minimal":
      return [...MINIMAL_PATHS];
    case ":slash_tmp":
      return ["/tmp"];
    case ":tmpdir":
      return ctx.tmpdir ? [ctx.tmpdir] : [];
    case ":workspace_roots":
      return under([ctx.cwd, ...workspaceRoots]);
    default:
      return [];
  }
}

/** Every path a value lets commands write (before rules that deny inside them). */
export function writablePaths(permissions: Permissions, ctx: PathContext): string[] {
  if (permissions.kind === "danger-full-access") return ["/"];
  const { rules, workspaceRoots } = permissions.filesystem;
  const paths = rules
    .filter((rule) => rule.access === "write")
    .flatMap((rule) => expandRulePath(rule.path, workspaceRoots, ctx));
  return [...new Set(paths)];
}

/** The $TMPDIR commands get (their environment's), which `:tmpdir` stands for. */
export function tmpdirOf(services: { shellEnvironment: Readonly<Record<string, string>> }): string | null {
  return services.shellEnvironment.TMPDIR || null;
}
