/**
 * Checking config.toml's merged table against its schema. A bundled command first asks
 * quick-check.ts against the schema the build embedded (built-config-schema.ts): an ordinary
 * config passes without zod being loaded at all (it is ~40% of what a server loads to start).
 * Anything that check cannot vouch for, and every config when run from source, goes to the zod
 * schema (schema.ts), which accepts or words the first problem.
 */
import { builtConfigSchema } from "./built-config-schema.js";
import { certainlyValid } from "./quick-check.js";
import type { ConfigFile } from "./schema.js";

/** The checked table, or where and why it is invalid. */
export type ConfigCheck = { ok: true; data: ConfigFile } | { ok: false; key: string; message: string };

export interface ConfigValidator {
  /** The top-level keys tscodex reads. */
  known: ReadonlySet<string>;
  check(raw: Record<string, unknown>): Promise<ConfigCheck>;
}

/** The validator for this build: the embedded schema first when there is one, else zod. */
export async function configValidator(): Promise<ConfigValidator> {
  const built = builtConfigSchema;
  if (built && typeof built.properties === "object" && built.properties !== null) {
    return {
      known: new Set(Object.keys(built.properties)),
      check: async (raw) =>
        certainlyValid(raw, built) ? { ok: true, data: raw as ConfigFile } : checkWithZod(raw),
    };
  }
  const { configFileSchema } = await import("./schema.js");
  return { known: new Set(Object.keys(configFileSchema.shape)), check: checkWithZod };
}

async function checkWithZod(raw: Record<string, unknown>): Promise<ConfigCheck> {
  const { configFileSchema } = await import("./schema.js");
  const result = configFileSchema.safeParse(raw);
  if (result.success) return { ok: true, data: result.data };
  const issue = result.error.issues[0];
  return {
    ok: false,
    key: issue?.path.length ? issue.path.join(".") : "(top level)",
    message: issue?.message ?? "invalid value",
  };
}
