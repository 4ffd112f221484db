/**
 * `-c key.path=value` overrides: the value is parsed as a TOML value when it is one
 * (`-c model_context_window=1000`, `-c 'tools.web_search=true'`), else taken as a string
 * (`-c model=o3`), as Codex does.
 *
 * Every config tree built here (TOML files, -c values, MCP `config` maps) is made of
 * null-prototype objects, and the keys `__proto__`, `constructor` and `prototype` are refused
 * with a clear error: a dotted path such as `__proto__.sandbox_mode` must never reach
 * Object.prototype (it would change the settings of every later lookup in the process).
 */
import { parse as parseToml } from "smol-toml";

export interface ConfigOverride {
  path: string[];
  value: unknown;
}

export class ConfigOverrideError extends Error {
  override name = "ConfigOverrideError";
}

/** Keys that reach an object's prototype machinery; never valid config keys. */
const FORBIDDEN_KEYS = new Set(["__proto__", "constructor", "prototype"]);

/** Throws ConfigOverrideError when `path` (dotted key or TOML table path) has a forbidden key. */
export function checkConfigPath(path: readonly string[], what: string): void {
  const bad = path.find((part) => FORBIDDEN_KEYS.has(part));
  if (bad !== undefined) {
    throw new ConfigOverrideError(
      `${what}: the key '${bad}' is not allowed in configuration (in '${path.join(".")}')`,
    );
  }
}

export function parseOverride(raw: string): ConfigOverride {
  const eq = keyEnd(raw);
  if (eq <= 0) throw new ConfigOverrideError(`invalid -c override '${raw}': expected key.path=value`);
  const key = raw.slice(0, eq).trim();
  const path = splitKey(key, raw);
  if (path.some((part) => part.length === 0)) {
    throw new ConfigOverrideError(`invalid -c override '${raw}': empty segment in key '${key}'`);
  }
  checkConfigPath(path, `invalid -c override '${raw}'`);
  return { path, value: parseOverrideValue(raw.slice(eq + 1).trim(), path) };
}

/** The `=` that ends the key: the first one outside a quoted key segment. */
function keyEnd(raw: string): number {
  let quote: string | null = null;
  for (let i = 0; i < raw.length; i++) {
    const char = raw[i];
    if (quote) {
      if (char === "\\" && quote === '"') i++;
      else if (char === quote) quote = null;
    } else if (char === '"' || char === "'") quote = char;
    else if (char === "=") return i;
  }
  return -1;
}

/**
 * A dotted key's segments. A segment may be quoted as in TOML (`domains."x.test"`, `'a.b'`),
 * so a host name or a path can be one key.
 */
function splitKey(key: string, raw: string): string[] {
  const parts: string[] = [];
  let current = "";
  let quote: string | null = null;
  for (let i = 0; i < key.length; i++) {
    const char = key[i] as string;
    if (quote) {
      current += char;
      if (char === "\\" && quote === '"') current += key[++i] ?? "";
      else if (char === quote) quote = null;
    } else if (char === '"' || char === "'") {
      current += char;
      quote = char;
    } else if (char === ".") {
      parts.push(current);
      current = "";
    } else current += char;
  }
  if (quote)
    throw new ConfigOverrideError(`invalid -c override '${raw}': unterminated quote in key '${key}'`);
  parts.push(current);
  return parts.map((part) => unquoteKey(part.trim(), raw));
}

function unquoteKey(part: string, raw: string): string {
  if (part.startsWith("'") && part.endsWith("'") && part.length >= 2) return part.slice(1, -1);
  if (!(part.startsWith('"') && part.endsWith('"') && part.length >= 2)) return part;
  try {
    return JSON.parse(part) as string;
  } catch {
    throw new ConfigOverrideError(`invalid -c override '${raw}': bad quoted key ${part}`);
  }
}

function parseOverrideValue(text: string, path: readonly string[]): unknown {
  let parsed: unknown;
  try {
    parsed = parseToml(`v = ${text}`).v;
  } catch {
    return text.replace(/^"(.*)"$/, "$1");
  }
  return toPlain(parsed, [...path]);
}

/**
 * A config value as null-prototype tables all the way down (arrays and dates kept), refusing
 * forbidden keys; `path` names where the value sits, for the error.
 */
export function toPlain(value: unknown, path: string[] = []): unknown {
  if (Array.isArray(value)) return value.map((item) => toPlain(item, path));
  if (value !== null && typeof value === "object" && !(value instanceof Date)) {
    const out: Record<string, unknown> = Object.create(null);
    for (const [k, v] of Object.entries(value)) {
      const at = [...path, k];
      checkConfigPath(at, "invalid configuration");
      out[k] = toPlain(v, at);
    }
    return out;
  }
  return value;
}

/** Set `value` at `path` inside `target`, creating (null-prototype) tables on the way. */
export function applyOverride(target: Record<string, unknown>, { path, value }: ConfigOverride): void {
  checkConfigPath(path, `invalid override '${path.join(".")}'`);
  let node = target;
  for (const part of path.slice(0, -1)) {
    // Own keys only: an inherited property is never a table to descend into.
    const next = Object.hasOwn(node, part) ? node[part] : undefined;
    if (next === null || typeof next !== "object" || Array.isArray(next)) {
      const table: Record<string, unknown> = Object.create(null);
      node[part] = table;
      node = table;
    } else {
      node = next as Record<string, unknown>;
    }
  }
  node[path[path.length - 1] as string] = toPlain(value, path);
}
