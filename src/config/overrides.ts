/**
 * `-c key.path=value` overrides: the value is parsed as a TOML value when it is one
 * (`-c model_context_window=1000`, `-c 'tools.web_search=true'`), else taken as a string
 * (`-c model=o3`), as Codex does.
 */
import { parse as parseToml } from "smol-toml";

export interface ConfigOverride {
  path: string[];
  value: unknown;
}

export class ConfigOverrideError extends Error {
  override name = "ConfigOverrideError";
}

export function parseOverride(raw: string): ConfigOverride {
  const eq = raw.indexOf("=");
  if (eq <= 0) throw new ConfigOverrideError(`invalid -c override '${raw}': expected key.path=value`);
  const key = raw.slice(0, eq).trim();
  const path = key.split(".").map((part) => part.trim());
  if (path.some((part) => part.length === 0)) {
    throw new ConfigOverrideError(`invalid -c override '${raw}': empty segment in key '${key}'`);
  }
  return { path, value: parseOverrideValue(raw.slice(eq + 1).trim()) };
}

function parseOverrideValue(text: string): unknown {
  try {
    return toPlain(parseToml(`v = ${text}`).v);
  } catch {
    return text.replace(/^"(.*)"$/, "$1");
  }
}

/** smol-toml returns null-prototype objects; normalise so zod and spreads behave. */
export function toPlain(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(toPlain);
  if (value !== null && typeof value === "object" && !(value instanceof Date)) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = toPlain(v);
    return out;
  }
  return value;
}

/** Set `value` at `path` inside `target`, creating tables on the way. */
export function applyOverride(target: Record<string, unknown>, { path, value }: ConfigOverride): void {
  let node = target;
  for (const part of path.slice(0, -1)) {
    const next = node[part];
    if (next === null || typeof next !== "object" || Array.isArray(next)) {
      const table: Record<string, unknown> = {};
      node[part] = table;
      node = table;
    } else {
      node = next as Record<string, unknown>;
    }
  }
  node[path[path.length - 1] as string] = value;
}
