/**
 * A call's configuration from the server's settings (no zod: the stdio server's first `codex`
 * call runs before zod is loaded).
 */
import { type Config, loadConfig } from "../../config/load.js";
import type { ServerSettings } from "./server-tool.js";

/**
 * The configuration of `settings` (home, profile, the CLI's -c overrides); a call's own
 * `overrides` apply after the server's, and its `profile` replaces the server's. With `cwd`,
 * that project's trusted `.codex/config.toml` layers apply too (project-trust.ts).
 */
export function loadSettingsConfig(
  settings: ServerSettings,
  overrides: Record<string, unknown> = {},
  profile: string | undefined = settings.profile,
  cwd?: string,
): Promise<Config> {
  const merged = { ...settings.configOverrides, ...overrides };
  return loadConfig({
    ...(cwd ? { cwd } : {}),
    ...(settings.home ? { home: settings.home } : {}),
    ...(profile ? { profile } : {}),
    overrides: Object.entries(merged).map(([key, value]) => ({ path: key.split("."), value })),
  });
}
