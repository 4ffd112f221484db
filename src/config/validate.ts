/**
 * Checking config.toml's merged table against its schema. A bundled command first asks
 * quick-check.ts against the schema the build embedded (built-config-schema.ts): an ordinary
 * config passes without zod being loaded at all (it is ~40% of what a server loads to start).
 * Anything that check cannot vouch for, and every config when run from source, goes to the zod
 * schema (schema.ts), which accepts or words the first problem.
 */
import { builtConfigSchema, type JsonSchemaNode } from "./built-config-schema.js";
import { certainlyValid } from "./quick-check.js";
import type { ConfigFile } from "./schema.js";

/** One invalid value: its dotted key and why. */
export interface ConfigProblem {
  key: string;
  message: string;
}

/** The checked table, or every place where it is invalid. */
export type ConfigCheck = { ok: true; data: ConfigFile } | { ok: false; problems: ConfigProblem[] };

export interface ConfigValidator {
  /** config.toml's JSON Schema, for unknown keys inside tables (unknown-keys.ts). */
  schema: JsonSchemaNode;
  check(raw: Record<string, unknown>): Promise<ConfigCheck>;
}

/** The validator for this build: the embedded schema first when there is one, else zod. */
export async function configValidator(): Promise<ConfigValidator> {
  const built = builtConfigSchema;
  if (built && typeof built.properties === "object" && built.properties !== null) {
    return {
      schema: built,
      check: async (raw) =>
        certainlyValid(raw, built) ? { ok: true, data: raw as ConfigFile } : checkWithZod(raw),
    };
  }
  const { configJsonSchema } = await import("./config-json-schema.js");
  return { schema: configJsonSchema(), check: checkWithZod };
}

async function checkWithZod(raw: Record<string, unknown>): Promise<ConfigCheck> {
  const { configFileSchema } = await import("./schema.js");
  const result = configFileSchema.safeParse(raw);
  if (result.success) return { ok: true, data: result.data };
  const problems = result.error.issues.map((issue) => ({
    key: issue.path.length ? issue.path.join(".") : "(top level)",
    message: issue.message,
  }));
  return {
    ok: false,
    problems: problems.length ? problems : [{ key: "(top level)", message: "invalid value" }],
  };
}
