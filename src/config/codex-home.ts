/**
 * A Codex user's home, read beside tscodex's own. Codex keeps everything in `$CODEX_HOME`, else
 * `~/.codex`; tscodex's home (load.ts `tscodexHome`: `$TSCODEX_HOME`, else `$CODEX_HOME`, else
 * `~/.tscodex`) holds its config.toml and is the only home tscodex writes. When the Codex home is
 * another existing directory, its hooks (hooks.json, config.toml `[hooks]`), skills, rules and
 * AGENTS.md apply too, so a Codex user's deny policy is never silently off. Precedence: tscodex's
 * home first. Hooks and rules of both run (a rule's strictest decision wins, as within one home);
 * a skill name found in both is tscodex's; AGENTS.md is the first home's that has one. The Codex
 * home's config.toml is read only for its `[hooks]` (and their trust), never as settings.
 */
import { readFile, stat } from "node:fs/promises";
import { homedir } from "node:os";
import { join, resolve } from "node:path";

/** Where Codex looks for its home: `$CODEX_HOME`, else `~/.codex` (`$HOME` first, as Codex). */
export function codexHomePath(env: NodeJS.ProcessEnv): string {
  return env.CODEX_HOME ? resolve(env.CODEX_HOME) : join(env.HOME || homedir(), ".codex");
}

/** The Codex home when it is an existing directory other than tscodex's `home`; else null. */
export async function codexHomeBeside(home: string, env: NodeJS.ProcessEnv): Promise<string | null> {
  const codex = codexHomePath(env);
  if (codex === resolve(home)) return null;
  const info = await stat(codex).catch(() => null);
  return info?.isDirectory() ? codex : null;
}

/** tscodex's home, then the Codex home beside it when there is one: the order of precedence. */
export async function userHomes(home: string, env: NodeJS.ProcessEnv): Promise<string[]> {
  const beside = await codexHomeBeside(home, env);
  return beside ? [resolve(home), beside] : [resolve(home)];
}

/**
 * The user's instructions for every project: `AGENTS.override.md`, else `AGENTS.md`, of the first
 * of `homes` that has one with text (so tscodex's own wins over the Codex home's); null: none.
 */
export async function globalAgentsMd(
  homes: readonly string[],
): Promise<{ path: string; text: string } | null> {
  for (const home of homes) {
    for (const name of ["AGENTS.override.md", "AGENTS.md"]) {
      const path = join(home, name);
      const text = await readFile(path, "utf8").catch(() => undefined);
      if (text !== undefined && text.trim() !== "") return { path, text };
    }
  }
  return null;
}
