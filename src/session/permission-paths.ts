/**
 * A permissions value's symbolic paths made concrete for one command: `:workspace_roots` is the
 * turn's cwd plus the profile's roots, `:tmpdir` the $TMPDIR commands get. Synchronous and
 * without I/O (no realpath, no globs): what the prompt and the patch gate need. The sandbox
 * resolves the same rules against the file system before each command.
 */
import { expandRulePath } from "../protocol/permission-paths.js";
import type { Permissions } from "../protocol/permissions.js";

export interface PathContext {
  cwd: string;
  /** The $TMPDIR commands get; null when unset. */
  tmpdir: string | null;
}

/** Every path a value lets commands write (before rules that deny inside them). */
export function writablePaths(permissions: Permissions, ctx: PathContext): string[] {
  if (permissions.kind === "danger-full-access") return ["/"];
  const { rules, workspaceRoots } = permissions.filesystem;
  const paths = rules
    .filter((rule) => rule.access === "write")
    .flatMap((rule) =>
      expandRulePath(rule.path, { roots: [ctx.cwd, ...workspaceRoots], tmpdir: ctx.tmpdir, home: null }),
    );
  return [...new Set(paths)];
}

/** The $TMPDIR commands get (their environment's), which `:tmpdir` stands for. */
export function tmpdirOf(services: { shellEnvironment: Readonly<Record<string, string>> }): string | null {
  return services.shellEnvironment.TMPDIR || null;
}
