/**
 * The environment of spawned commands, from `shell_environment_policy`:
 * inherit all | core | none → drop secret-looking names (unless ignore_default_excludes)
 * → exclude patterns → `set` → include_only. Patterns are case-insensitive globs (`*`, `?`).
 */
import type { ShellEnvironmentPolicy } from "../config/schema.js";

const CORE_VARS = [
  "HOME",
  "LOGNAME",
  "PATH",
  "SHELL",
  "USER",
  "USERNAME",
  "TMPDIR",
  "TEMP",
  "TMP",
  "LANG",
  "TERM",
];
const DEFAULT_EXCLUDES = ["*KEY*", "*SECRET*", "*TOKEN*"];

export function buildShellEnvironment(
  policy: ShellEnvironmentPolicy,
  base: NodeJS.ProcessEnv = process.env,
): Record<string, string> {
  const inherit = policy.inherit ?? "all";
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(base)) {
    if (value === undefined) continue;
    if (inherit === "none") break;
    if (inherit === "core" && !CORE_VARS.includes(name)) continue;
    env[name] = value;
  }
  const excludes = [
    ...(policy.ignore_default_excludes ? [] : DEFAULT_EXCLUDES),
    ...(policy.exclude ?? []),
  ].map(globToRegExp);
  for (const name of Object.keys(env)) {
    if (excludes.some((pattern) => pattern.test(name))) delete env[name];
  }
  Object.assign(env, policy.set ?? {});
  if (policy.include_only && policy.include_only.length > 0) {
    const keep = policy.include_only.map(globToRegExp);
    for (const name of Object.keys(env)) {
      if (!keep.some((pattern) => pattern.test(name))) delete env[name];
    }
  }
  return env;
}

function globToRegExp(glob: string): RegExp {
  const source = glob
    .replace(/[.+^${}()|[\]\\]/g, "\\$&")
    .replace(/\*/g, ".*")
    .replace(/\?/g, ".");
  return new RegExp(`^${source}$`, "i");
}
