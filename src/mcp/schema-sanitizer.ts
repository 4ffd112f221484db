/**
 * Makes a tool's JSON schema from outside (an MCP server's inputSchema) acceptable to the model
 * API, which rejects schemas that leave out `type`, objects without `properties` and arrays
 * without `items`. As Codex: `integer` becomes `number`; a missing `type` is inferred from the
 * keywords present (properties → object, items → array, enum/const → their values' type,
 * numeric bounds → number, otherwise string); boolean schemas become `{type:"string"}`.
 * The input is never modified.
 */
import type { JsonSchema } from "../protocol/tool-spec.js";

/** Keywords whose value is one schema. */
const SCHEMA_KEYS = ["items", "additionalProperties", "not", "contains", "propertyNames"] as const;
/** Keywords whose value is a list of schemas. */
const SCHEMA_LIST_KEYS = ["anyOf", "oneOf", "allOf", "prefixItems"] as const;
/** Keywords whose value maps names to schemas. */
const SCHEMA_MAP_KEYS = ["properties", "patternProperties", "$defs", "definitions"] as const;
/** A schema built from these takes its type from them; inferring one would change its meaning. */
const COMPOSED_KEYS = ["anyOf", "oneOf", "allOf", "$ref", "not"] as const;

/** The tool parameters schema: always an object schema with `properties`. */
export function sanitizeInputSchema(schema: unknown): JsonSchema {
  const node = sanitizeNode(schema);
  const rest: JsonSchema = isRecord(node) ? { ...node } : {};
  delete rest.type;
  return { type: "object", ...rest, properties: isRecord(rest.properties) ? rest.properties : {} };
}

function sanitizeNode(node: unknown): unknown {
  if (typeof node === "boolean") return { type: "string" };
  if (Array.isArray(node)) return node.map(sanitizeNode);
  if (!isRecord(node)) return node;
  const out: JsonSchema = {};
  for (const [key, value] of Object.entries(node)) out[key] = value;
  for (const key of SCHEMA_KEYS) {
    // additionalProperties: false stays a boolean (it is not a schema there).
    if (key === "additionalProperties" && typeof out[key] === "boolean") continue;
    if (key in out) out[key] = sanitizeNode(out[key]);
  }
  for (const key of SCHEMA_LIST_KEYS) if (Array.isArray(out[key])) out[key] = sanitizeNode(out[key]);
  for (const key of SCHEMA_MAP_KEYS) {
    const map = out[key];
    if (!isRecord(map)) continue;
    out[key] = Object.fromEntries(Object.entries(map).map(([name, value]) => [name, sanitizeNode(value)]));
  }
  const type = normalizeType(out.type) ?? inferType(out);
  if (type === undefined) return out;
  const { type: _dropped, ...rest } = out;
  const result: JsonSchema = { type, ...rest };
  const types = Array.isArray(type) ? type : [type];
  if (types.includes("object") && !isRecord(result.properties)) result.properties = {};
  if (types.includes("array") && result.items === undefined && result.prefixItems === undefined) {
    result.items = { type: "string" };
  }
  return result;
}

function normalizeType(type: unknown): string | string[] | undefined {
  if (typeof type === "string") return type === "integer" ? "number" : type;
  if (!Array.isArray(type)) return undefined;
  const names = type.filter((entry): entry is string => typeof entry === "string");
  const mapped = [...new Set(names.map((name) => (name === "integer" ? "number" : name)))];
  if (mapped.length === 0) return undefined;
  return mapped.length === 1 ? mapped[0] : mapped;
}

function inferType(node: JsonSchema): string | undefined {
  if (COMPOSED_KEYS.some((key) => key in node)) return undefined;
  if (has(node, "properties", "required", "additionalProperties", "patternProperties")) return "object";
  if (has(node, "items", "prefixItems", "minItems", "maxItems", "uniqueItems", "contains")) return "array";
  const values = Array.isArray(node.enum) ? node.enum : "const" in node ? [node.const] : null;
  if (values) return valueType(values);
  if (has(node, "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf")) return "number";
  return "string";
}

/** The one JSON type all `values` share; string when they are mixed or empty. */
function valueType(values: unknown[]): string {
  const kinds = new Set(
    values.map((value) =>
      value === null
        ? "null"
        : typeof value === "number"
          ? "number"
          : typeof value === "boolean"
            ? "boolean"
            : "string",
    ),
  );
  const [only] = kinds;
  return kinds.size === 1 && only !== undefined ? only : "string";
}

function has(node: JsonSchema, ...keys: string[]): boolean {
  return keys.some((key) => key in node);
}

function isRecord(value: unknown): value is JsonSchema {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
