/**
 * A config check without zod: true only when `value` certainly satisfies the JSON Schema that
 * zod derived from config.toml's schema (built-config-schema.ts), so zod would accept it as is.
 * It knows a small set of keywords; any other keyword, or any doubt (non-plain objects, odd
 * numbers), answers false and the caller asks zod, which also words the error.
 */
import type { JsonSchemaNode } from "./built-config-schema.js";

const KNOWN = new Set([
  "$schema",
  "type",
  "enum",
  "properties",
  "required",
  "additionalProperties",
  "propertyNames",
  "items",
  "minItems",
  "maxItems",
  "minLength",
  "maxLength",
  "pattern",
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "anyOf",
  "description",
]);

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

function isNode(schema: unknown): schema is JsonSchemaNode {
  return isPlainObject(schema);
}

/** True when `value` certainly satisfies `schema`; false when it does not or this cannot tell. */
export function certainlyValid(value: unknown, schema: unknown): boolean {
  if (!isNode(schema)) return false;
  for (const keyword of Object.keys(schema)) if (!KNOWN.has(keyword)) return false;
  if (schema.anyOf !== undefined) {
    if (!Array.isArray(schema.anyOf) || !schema.anyOf.some((option) => certainlyValid(value, option)))
      return false;
  }
  if (schema.enum !== undefined && !(Array.isArray(schema.enum) && schema.enum.includes(value))) return false;
  switch (schema.type) {
    case undefined:
      // Only a union or an enum may leave the type out; an empty schema ({}) accepts anything.
      return true;
    case "string":
      return typeof value === "string" && stringOk(value, schema);
    case "boolean":
      return typeof value === "boolean";
    case "number":
      return typeof value === "number" && Number.isFinite(value) && numberOk(value, schema);
    case "integer":
      return typeof value === "number" && Number.isSafeInteger(value) && numberOk(value, schema);
    case "array":
      return Array.isArray(value) && arrayOk(value, schema);
    case "object":
      return isPlainObject(value) && objectOk(value, schema);
    default:
      return false;
  }
}

function stringOk(value: string, schema: JsonSchemaNode): boolean {
  const { minLength, maxLength, pattern } = schema;
  if (typeof minLength === "number" && value.length < minLength) return false;
  if (typeof maxLength === "number" && value.length > maxLength) return false;
  if (pattern !== undefined && !(typeof pattern === "string" && new RegExp(pattern).test(value)))
    return false;
  return true;
}

function numberOk(value: number, schema: JsonSchemaNode): boolean {
  const { minimum, maximum, exclusiveMinimum, exclusiveMaximum } = schema;
  if (typeof minimum === "number" && value < minimum) return false;
  if (typeof maximum === "number" && value > maximum) return false;
  if (typeof exclusiveMinimum === "number" && value <= exclusiveMinimum) return false;
  if (typeof exclusiveMaximum === "number" && value >= exclusiveMaximum) return false;
  return true;
}

function arrayOk(value: unknown[], schema: JsonSchemaNode): boolean {
  const { minItems, maxItems, items } = schema;
  if (typeof minItems === "number" && value.length < minItems) return false;
  if (typeof maxItems === "number" && value.length > maxItems) return false;
  return items === undefined || value.every((item) => certainlyValid(item, items));
}

function objectOk(value: Record<string, unknown>, schema: JsonSchemaNode): boolean {
  const properties = schema.properties ?? {};
  if (!isNode(properties)) return false;
  const required = schema.required ?? [];
  if (
    !Array.isArray(required) ||
    !required.every((key) => typeof key === "string" && Object.hasOwn(value, key))
  )
    return false;
  const { additionalProperties, propertyNames } = schema;
  for (const [key, item] of Object.entries(value)) {
    if (propertyNames !== undefined && !certainlyValid(key, propertyNames)) return false;
    if (Object.hasOwn(properties, key)) {
      if (!certainlyValid(item, properties[key])) return false;
    } else if (additionalProperties === undefined || additionalProperties === false) {
      // Unknown keys: a strict zod object refuses them, a plain one strips them; zod decides.
      return false;
    } else if (!certainlyValid(item, additionalProperties)) return false;
  }
  return true;
}
