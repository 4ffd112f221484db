/**
 * The JSON schema a function tool's parameters are shown to the model with, in the exact
 * shape Codex 0.89 sends (its `JsonSchema` enum serialized by serde):
 *
 * - object: `{type:"object", properties, required?, additionalProperties:false}`; properties
 *   in key order (Rust BTreeMap), `required` in declaration order and left out when empty;
 *   objects carry no description.
 * - string / number / boolean: `{type, description?}`; integers are `"number"`.
 * - enum: `{type:"string", description?, enum}`, or no `enum` when the schema has
 *   `schemaEnum: false` metadata (see `looseEnum` in json-args.ts).
 * - array: `{type:"array", items, description?}`.
 * - optional / nullable / default: the inner schema, not required.
 *
 * Outside what Codex's own tools use: objects with a catchall (`z.looseObject`) leave out
 * `additionalProperties`; records become `{type:"object", properties:{}, additionalProperties:
 * <value>}`; other unions `anyOf`; null `{type:"null"}`; any/unknown `{}`.
 */
import type { z } from "zod";
import type { JsonSchema } from "../protocol/tool-spec.js";
import { defOf, fieldPresence, metaOf, stringVariants, unwrap } from "./json-args/zod-view.js";

type ZodSchema = z.core.$ZodType;

/** The `parameters` schema of a function tool. */
export function toParametersSchema(schema: z.ZodObject): JsonSchema {
  return convert(schema, new Set());
}

function convert(schema: ZodSchema, active: Set<ZodSchema>): JsonSchema {
  const meta = metaOf(schema);
  const core = unwrap(schema);
  // A schema that contains itself (z.lazy) cannot be expanded; accept anything there.
  if (active.has(core)) return {};
  active.add(core);
  try {
    return convertCore(core, meta.description, meta.schemaEnum !== false, active);
  } finally {
    active.delete(core);
  }
}

function convertCore(
  core: ZodSchema,
  description: string | undefined,
  showEnum: boolean,
  active: Set<ZodSchema>,
): JsonSchema {
  const def = defOf(core);
  const described = (base: JsonSchema): JsonSchema =>
    description === undefined ? base : { ...base, description };
  switch (def.type) {
    case "string":
    case "template_literal":
      return described({ type: "string" });
    case "number":
      return described({ type: "number" });
    case "boolean":
      return described({ type: "boolean" });
    case "null":
      return described({ type: "null" });
    case "array":
      return described({ type: "array", items: def.element ? convert(def.element, active) : {} });
    case "object": {
      const catchall = def.catchall ? defOf(def.catchall).type : "never";
      // Plain and strict objects are closed, as Codex's are; a catchall opens them.
      return convertObject(def.shape ?? {}, catchall === "never", active);
    }
    case "record":
      return {
        type: "object",
        properties: {},
        additionalProperties: def.valueType ? convert(def.valueType, active) : {},
      };
    case "enum":
    case "literal":
    case "union": {
      const variants = stringVariants(core);
      if (variants) {
        const base = described({ type: "string" });
        return showEnum ? { ...base, enum: variants } : base;
      }
      if (def.type === "union" && def.options) {
        return described({ anyOf: def.options.map((option) => convert(option, active)) });
      }
      return described({});
    }
    default:
      return described({});
  }
}

function convertObject(
  shape: Record<string, ZodSchema>,
  closed: boolean,
  active: Set<ZodSchema>,
): JsonSchema {
  const properties: JsonSchema = {};
  // BTreeMap order; keys are ASCII identifiers, where UTF-16 and byte order agree.
  for (const key of Object.keys(shape).sort()) {
    const field = shape[key];
    if (field) properties[key] = convert(field, active);
  }
  const required = Object.keys(shape).filter((key) => {
    const field = shape[key];
    return field !== undefined && fieldPresence(field).required;
  });
  const out: JsonSchema = { type: "object", properties };
  if (required.length > 0) out.required = required;
  if (closed) out.additionalProperties = false;
  return out;
}
