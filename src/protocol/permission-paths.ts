/**
 * A rule's symbolic path made concrete, without I/O: `:workspace_roots` is the turn's cwd plus
 * the profile's roots, `:tmpdir` the $TMPDIR commands get, `~/` the user's home. Globs stay
 * patterns and `:minimal` lists every candidate; config/fs-paths.ts then matches and filters
 * against the file system for the sandbox, while the prompt and the patch gate use this as is.
 */
import { isAbsolute, join, resolve } from "node:path";
import { MINIMAL_PATHS, type Permissions } from "./permissions.js";

export interface RulePathContext {
  /** The workspace roots: the turn's cwd first, then the profile's. */
  roots: readonly string[];
  /** The $TMPDIR commands get; null when unset (a `:tmpdir` rule then stands for nothing). */
  tmpdir: string | null;
  /** The user's home, for a `~/` path a value may still hold; null: such a path stands for nothing. */
  home: string | null;
}

/** The absolute paths one symbolic path stands for; a relative path that is none of the forms: none. */
export function expandRulePath(path: string, ctx: RulePathContext): string[] {
  const [head = "", ...rest] = path.split("/");
  const sub = rest.filter((part) => part !== "" && part !== ".");
  const under = (base: string) => (sub.length ? join(base, ...sub) : base);
  switch (head) {
    case ":root":
      return ["/"];
    case ":minimal":
      return [...MINIMAL_PATHS];
    case ":slash_tmp":
      return ["/tmp"];
    case ":tmpdir":
      return ctx.tmpdir && isAbsolute(ctx.tmpdir) ? [resolve(ctx.tmpdir)] : [];
    case ":workspace_roots":
      return ctx.roots.map(under);
    case "~":
      return ctx.home ? [under(ctx.home)] : [];
    default:
      return isAbsolute(path) ? [resolve(path)] : [];
  }
}

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
