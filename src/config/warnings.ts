/**
 * Config warnings (keys nobody reads) are shown once per process, however many times the
 * config is loaded (the MCP server loads it per thread).
 */
import type { Config } from "./load.js";

const shown = new Set<string>();

/**
 * Write each of `config.warnings` not yet shown by this process to `out`, through `show` (a
 * frontend passes its terminal sanitizer: a warning quotes keys and paths from config files).
 */
export function warnConfigOnce(
  config: Pick<Config, "warnings">,
  out: NodeJS.WritableStream,
  show: (text: string) => string,
): void {
  for (const warning of config.warnings) {
    if (shown.has(warning)) continue;
    shown.add(warning);
    out.write(`tscodex: warning: ${show(warning)}\n`);
  }
}
