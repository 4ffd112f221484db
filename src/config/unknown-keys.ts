/**
 * Keys tscodex does not read, at any depth: a table's schema lists its keys (`properties`),
 * a map of named entries (`[mcp_servers.NAME]`, `[profiles.NAME]`) checks each entry against
 * the entry schema, and a union accepts the keys of any of its branches. Read from config.toml's
 * JSON Schema (the one the build embeds, or computed from zod when run from source).
 */
import type { JsonSchemaNode } from "./built-config-schema.js";

/** Dotted paths of the keys in `value` that `schema` does not know, e.g. `sandbox_workspace_write.netwrok_access`. */
export function unknownKeyPaths(
  value: unknown,
  schema: JsonSchemaNode,
  prefix: readonly string[] = [],
): string[] {
  if (!isTable(value)) return [];
  const branches = Array.isArray(schema.anyOf) ? (schema.anyOf as JsonSchemaNode[]) : [schema];
  const tables = branches.filter(
    (branch) => isTable(branch.properties) || isTable(branch.additionalProperties),
  );
  if (tables.length === 0) return [];
  const found: string[] = [];
  for (const [key, child] of Object.entries(value)) {
    const at = [...prefix, key];
    const childSchemas = tables.flatMap((branch) => {
      const properties = isTable(branch.properties) ? branch.properties : {};
      if (Object.hasOwn(properties, key)) return [properties[key] as JsonSchemaNode];
      // A map of entries: `additionalProperties` is the entry's schema (not `{}`, which says "anything").
      const entry = branch.additionalProperties;
      if (isTable(entry) && Object.keys(entry).length > 0 && !isTable(branch.properties)) return [entry];
      return [];
    });
    if (childSchemas.length === 0) {
      found.push(at.join("."));
      continue;
    }
    // Known in several branches: unknown below only if every branch says so.
    const perBranch = childSchemas.map((childSchema) => unknownKeyPaths(child, childSchema, at));
    found.push(...perBranch.reduce((common, next) => common.filter((path) => next.includes(path))));
  }
  return found;
}

function isTable(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value) && !(value instanceof Date);
}
