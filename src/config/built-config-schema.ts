/**
 * config.toml's schema as JSON Schema, as the build computed it from the zod schema
 * (config-json-schema.ts): scripts/build.mjs replaces this module's source with it, so a
 * bundled command checks an ordinary config without loading zod (quick-check.ts). Run from
 * source (tests), there is none and zod checks every config.
 */

/** A JSON Schema node (the subset quick-check.ts reads; anything else makes it defer to zod). */
export interface JsonSchemaNode {
  [keyword: string]: unknown;
}

export const builtConfigSchema: JsonSchemaNode | undefined = undefined;
