/**
 * The MCP server's configuration, loaded before it serves (a broken config.toml stops the start
 * with its message), and with nothing else: the stdio server answers `initialize` with this alone
 * and opens the runtime (runtime.ts: threads, tools) on the first call that needs it.
 */
import { type Config, loadConfig } from "../../config/load.js";
import { type ConfigOverride, parseOverride } from "../../config/overrides.js";

export interface RuntimeOptions {
  /** Raw `-c key=value` overrides. */
  config?: string[];
  profile?: string;
  rawEvents?: boolean;
  env?: NodeJS.ProcessEnv;
}

/** The loaded config and the parsed `-c` overrides it was loaded with. */
export interface ServerConfig {
  config: Config;
  overrides: ConfigOverride[];
}

/** Load the config as the server's threads will see it. */
export async function loadServerConfig(options: RuntimeOptions = {}): Promise<ServerConfig> {
  const overrides = (options.config ?? []).map(parseOverride);
  const config = await loadConfig({
    overrides,
    ...(options.profile ? { profile: options.profile } : {}),
    ...(options.env ? { env: options.env } : {}),
  });
  return { config, overrides };
}
