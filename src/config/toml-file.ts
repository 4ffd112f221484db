/** Reading one TOML config file: its text (for error positions) and its table. */
import { readFile } from "node:fs/promises";
import { parse as parseToml } from "smol-toml";
import { ConfigError } from "./errors.js";
import { ConfigOverrideError, toPlain } from "./overrides.js";

export interface TomlFile {
  text: string;
  table: Record<string, unknown>;
}

/** The file at `path` parsed, or null when there is none; a bad file is a ConfigError naming it. */
export async function readTomlFile(path: string): Promise<TomlFile | null> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw new ConfigError(`${path}: cannot read: ${(error as Error).message}`, { cause: error });
  }
  let parsed: unknown;
  try {
    parsed = parseToml(text);
  } catch (error) {
    throw new ConfigError(`${path}: invalid TOML: ${(error as Error).message}`, { cause: error });
  }
  try {
    return { text, table: toPlain(parsed) as Record<string, unknown> };
  } catch (error) {
    if (error instanceof ConfigOverrideError)
      throw new ConfigError(`${path}: ${error.message}`, { cause: error });
    throw error;
  }
}
