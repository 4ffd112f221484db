/**
 * `-p/--profile NAME` as Codex ≥0.134 reads it: `$CODEX_HOME/NAME.config.toml` holds top-level
 * keys layered over config.toml (below project layers and `-c`), and is the user layer that
 * session writes to. The 0.89 form, a `[profiles.NAME]` table in config.toml, still works with
 * a warning saying how to move it; both at once is refused, as Codex refuses it.
 */
import { join } from "node:path";
import type { ConfigOverride } from "./overrides.js";

/** Letters, digits, `-` and `_`: the name is part of a file name. */
const PROFILE_NAME = /^[A-Za-z0-9_-]+$/;

/** Why `name` cannot be a profile name, or null when it can. */
export function profileNameProblem(name: string): string | null {
  // Names an object's prototype answers to never select anything (no inherited "profile").
  return PROFILE_NAME.test(name) && !PROTOTYPE_NAMES.has(name)
    ? null
    : `invalid --profile value \`${name}\`; pass a plain name such as \`work\``;
}

const PROTOTYPE_NAMES = new Set(["__proto__", "constructor", "prototype"]);

/** The v2 profile file of `name`. */
export function profileFilePath(home: string, name: string): string {
  return join(home, `${name}.config.toml`);
}

/**
 * The profile asked for: `--profile`, else a `-c profile=NAME` override (what the UI passes),
 * else config.toml's own `profile = "NAME"` (`fromFile`: the legacy selector, warned about).
 */
export function selectedProfile(
  flag: string | undefined,
  overrides: readonly ConfigOverride[],
  userTable: Record<string, unknown>,
): { name: string; fromFile: boolean } | null {
  const override = overrides.findLast(({ path }) => path.length === 1 && path[0] === "profile");
  const chosen = flag ?? (typeof override?.value === "string" ? override.value : undefined);
  if (chosen !== undefined) return { name: chosen, fromFile: false };
  return typeof userTable.profile === "string" ? { name: userTable.profile, fromFile: true } : null;
}

/** A legacy `[profiles.NAME]` table and a NAME.config.toml both exist. */
export function legacyProfileConflict(name: string, configPath: string, profilePath: string): string {
  return (
    `--profile \`${name}\` cannot be used while ${configPath} contains legacy \`profile = "${name}"\` or ` +
    `\`[profiles.${name}]\` config; move those settings into ${profilePath} and remove the legacy profile selector/table`
  );
}

/** The warning for a profile read the 0.89 way (the `[profiles.NAME]` table). */
export function legacyProfileWarning(name: string, configPath: string, profilePath: string): string {
  return (
    `${configPath}: [profiles.${name}] is the legacy profile form (Codex ignores it since 0.134); ` +
    `move its keys to the top level of ${profilePath} and remove the table`
  );
}

/** The warning for config.toml's own `profile = "NAME"`. */
export function legacySelectorWarning(name: string, configPath: string, profilePath: string): string {
  return (
    `${configPath}: \`profile = "${name}"\` is the legacy profile selector (an error in Codex ≥0.134); ` +
    `remove it and pass \`--profile ${name}\`, which layers ${profilePath}`
  );
}
