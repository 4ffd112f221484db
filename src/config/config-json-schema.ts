/**
 * config.toml's zod schema as JSON Schema, for the build to embed (built-config-schema.ts).
 * A node whose zod schema has a refinement (a check JSON Schema cannot say) is marked with
 * `x-tscodex-refined`, a keyword quick-check.ts does not know, so such values go to zod.
 */
import { z } from "zod";
import type { JsonSchemaNode } from "./built-config-schema.js";
import { configFileSchema } from "./schema.js";

/** The JSON Schema of configFileSchema, refinements marked. */
export function configJsonSchema(): JsonSchemaNode {
  return z.toJSONSchema(configFileSchema, {
    override: ({ zodSchema, jsonSchema }) => {
      const checks = (zodSchema._zod.def as { checks?: { _zod: { def: { check: string } } }[] }).checks ?? [];
      if (checks.some((check) => check._zod.def.check === "custom")) jsonSchema["x-tscodex-refined"] = true;
    },
  }) as JsonSchemaNode;
}
