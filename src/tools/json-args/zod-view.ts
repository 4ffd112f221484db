/**
 * A narrow, typed view of the zod 4 schema internals that the argument parser and the
 * JSON-schema generator read, plus the serde-oriented metadata tool authors attach.
 */
import { z } from "zod";

type ZodSchema = z.core.$ZodType;

/** One entry of `def.checks` (number format, bounds). */
interface CheckView {
  _zod: { def: { check: string; format?: string; value?: unknown; inclusive?: boolean } };
}

/** The fields of `schema._zod.def` we use; which ones exist depends on `type`. */
export interface DefView {
  type: string;
  /** optional, nullable, default, prefault, readonly, catch, nonoptional */
  innerType?: ZodSchema;
  /** object */
  shape?: Record<string, ZodSchema>;
  catchall?: ZodSchema;
  /** array */
  element?: ZodSchema;
  /** enum */
  entries?: Record<string, string | number>;
  /** literal */
  values?: readonly unknown[];
  /** union */
  options?: readonly ZodSchema[];
  /** record */
  keyType?: ZodSchema;
  valueType?: ZodSchema;
  /** pipe (transforms are pipes) */
  in?: ZodSchema;
  /** lazy */
  getter?: () => ZodSchema;
  /** number checks; `z.int()` carries `format` on the def itself */
  checks?: readonly CheckView[];
  format?: string;
}

/** Read a schema's definition. The single cast into zod internals (`_zod.def` is typed loosely). */
export function defOf(schema: ZodSchema): DefView {
  return schema._zod.def as unknown as DefView;
}

/**
 * Metadata understood by the parser and the schema generator, set with `.meta({...})`
 * or the helpers below.
 */
export interface SerdeMeta {
  /**
   * The Rust type named in serde messages: a struct name for objects (`PlanItemArg` gives
   * "expected struct PlanItemArg"), an integer type for numbers (`u64`, `i32`, `usize`, `f64`),
   * or the enum name for unions ("untagged enum X").
   */
  rust?: string;
  /** `false` keeps `enum` out of the model-facing JSON schema; the values are still enforced. */
  schemaEnum?: boolean;
  /** Other accepted keys for an object field (serde `alias`). */
  aliases?: readonly string[];
}

/** Merged metadata of a schema and the wrappers it sits in; outer wrappers win. */
export interface ResolvedMeta extends SerdeMeta {
  description?: string;
}

/** Wrappers that do not change what JSON is accepted (beyond null/absence). */
const WRAPPERS = new Set(["optional", "nullable", "default", "prefault", "readonly", "catch", "nonoptional"]);

/** Follow wrappers, pipes and lazies down to the schema that decides the JSON shape. */
export function unwrap(schema: ZodSchema): ZodSchema {
  let current = schema;
  for (;;) {
    const def = defOf(current);
    if (WRAPPERS.has(def.type) && def.innerType) current = def.innerType;
    else if (def.type === "pipe" && def.in) current = def.in;
    else if (def.type === "lazy" && def.getter) current = def.getter();
    else return current;
  }
}

/** Metadata from the schema and every wrapper down to its core; the outermost setting wins. */
export function metaOf(schema: ZodSchema): ResolvedMeta {
  const out: ResolvedMeta = {};
  let current = schema;
  for (;;) {
    const meta = z.globalRegistry.get(current);
    if (meta) {
      if (out.description === undefined && typeof meta.description === "string") {
        out.description = meta.description;
      }
      if (out.rust === undefined && typeof meta.rust === "string") out.rust = meta.rust;
      if (out.schemaEnum === undefined && typeof meta.schemaEnum === "boolean") {
        out.schemaEnum = meta.schemaEnum;
      }
      if (out.aliases === undefined && Array.isArray(meta.aliases)) {
        out.aliases = meta.aliases.filter((a): a is string => typeof a === "string");
      }
    }
    const def = defOf(current);
    if (WRAPPERS.has(def.type) && def.innerType) current = def.innerType;
    else if (def.type === "pipe" && def.in) current = def.in;
    else return out;
  }
}

/**
 * How an object field behaves when absent (Rust `Option<T>` / `#[serde(default)]`):
 * `required` fields must be present; otherwise `missing` is the value to store.
 */
export function fieldPresence(schema: ZodSchema): { required: boolean; missing: null | undefined } {
  let current = schema;
  for (;;) {
    const def = defOf(current);
    switch (def.type) {
      case "optional":
      case "default":
      case "prefault":
      case "catch":
        return { required: false, missing: undefined };
      case "nullable":
        // zod rejects an absent nullable key; store null so Option semantics hold.
        return { required: false, missing: null };
      case "readonly":
        if (!def.innerType) return { required: true, missing: undefined };
        current = def.innerType;
        break;
      case "pipe":
        if (!def.in) return { required: true, missing: undefined };
        current = def.in;
        break;
      default:
        return { required: true, missing: undefined };
    }
  }
}

/** The string values of an enum-like schema (enum, string literals, union of those), else null. */
export function stringVariants(schema: ZodSchema): string[] | null {
  const def = defOf(schema);
  if (def.type === "enum" && def.entries) {
    const values = Object.values(def.entries);
    return values.every((v): v is string => typeof v === "string") ? values : null;
  }
  if (def.type === "literal" && def.values) {
    return def.values.every((v): v is string => typeof v === "string") ? [...def.values] : null;
  }
  if (def.type === "union" && def.options) {
    const all: string[] = [];
    for (const option of def.options) {
      const type = defOf(option).type;
      const values = type === "enum" || type === "literal" ? stringVariants(option) : null;
      if (!values) return null;
      all.push(...values);
    }
    return all;
  }
  return null;
}

/** Integer-ness and Rust name of a number schema, from metadata or zod checks. */
export function numberKind(schema: ZodSchema, meta: ResolvedMeta): string {
  if (meta.rust) return meta.rust;
  const def = defOf(schema);
  let format = def.format;
  let nonNegative = false;
  for (const check of def.checks ?? []) {
    const c = check._zod.def;
    if (c.check === "number_format" && c.format) format = c.format;
    // `.nonnegative()`, `.positive()`, `.min(0)`: an unsigned Rust integer.
    if (c.check === "greater_than" && typeof c.value === "number" && c.value >= 0) nonNegative = true;
  }
  switch (format) {
    case "int32":
      return "i32";
    case "uint32":
      return "u32";
    case "safeint":
      return nonNegative ? "u64" : "i64";
    default:
      return "f64";
  }
}
