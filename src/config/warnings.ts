/**
 * Config warnings (keys nobody reads) are shown once per process, however many times the
 * config is loaded (the MCP server loads it per thread).
 */
import { visibleLine } from "../frontends/common/terminal-text.js";
import type { Config } from "./load.js";

const shown = new Set<string>();

/**
 * Write each of `config.warnings` not yet shown by this process to `out`, its controls shown (a
 * key or path from a project's config file; terminal-text.ts).
 */
export function warnConfigOnce(config: Pick<Config, "warnings">, out: NodeJS.WritableStream): void {
  for (const warning of config.warnings) {
    if (shown.has(warning)) continue;
    shown.add(warning);
    out.write(`tscodex: warning: ${visibleLine(warning)}\n`);
  }
}
