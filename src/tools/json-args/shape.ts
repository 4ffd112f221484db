/**
 * A zod schema compiled into the Rust type serde would deserialize: struct, Vec, Option,
 * unit enum, integer of a given width, … Compiled once per schema and cached.
 */
import type { z } from "zod";
import { defOf, fieldPresence, metaOf, numberKind, stringVariants, unwrap } from "./zod-view.js";

type ZodSchema = z.core.$ZodType;

/** Inclusive bounds of a Rust integer type. */
export interface IntRange {
  min: bigint;
  max: bigint;
}

export interface FieldShape {
  /** The canonical key (what the parsed object uses). */
  name: string;
  shape: Shape;
  required: boolean;
  /** Stored when the field is absent and not required. */
  missing: null | undefined;
  /** `#[serde(default)]`: may be absent from the array form of a struct too. */
  hasDefault: boolean;
}

export interface StructShape {
  kind: "struct";
  /** "struct Name", the text in `expected …` messages. */
  expecting: string;
  fields: FieldShape[];
  /** Canonical keys and aliases. */
  byKey: Map<string, FieldShape>;
  /** zod `.strict()`: serde `deny_unknown_fields`. */
  denyUnknown: boolean;
  /** zod `.catchall()` / `z.looseObject`: unknown keys are kept, parsed as this shape. */
  extra: Shape | null;
}

export type Shape =
  | { kind: "string" }
  | { kind: "bool" }
  /** `range` null: a float (f64/f32) accepting any number. */
  | { kind: "number"; rust: string; range: IntRange | null }
  | { kind: "enum"; variants: readonly string[] }
  /** Rust Option: JSON null gives `none`. */
  | { kind: "option"; inner: Shape; none: null | undefined }
  | { kind: "seq"; item: Shape }
  | { kind: "map"; keyVariants: readonly string[] | null; value: Shape }
  | StructShape
  | { kind: "unit" }
  | { kind: "any" }
  /** Anything zod checks as a whole (serde untagged enum). */
  | { kind: "untagged"; name: string; schema: ZodSchema }
  | { kind: "lazy"; resolve: () => Shape };

const INT_RANGES: Record<string, IntRange> = {
  u8: { min: 0n, max: 255n },
  u16: { min: 0n, max: 65535n },
  u32: { min: 0n, max: 4294967295n },
  u64: { min: 0n, max: 18446744073709551615n },
  usize: { min: 0n, max: 18446744073709551615n },
  i8: { min: -128n, max: 127n },
  i16: { min: -32768n, max: 32767n },
  i32: { min: -2147483648n, max: 2147483647n },
  i64: { min: -9223372036854775808n, max: 9223372036854775807n },
  isize: { min: -9223372036854775808n, max: 9223372036854775807n },
};

const cache = new WeakMap<ZodSchema, Shape>();

/** The serde shape of a zod schema (cached per schema object). */
export function shapeOf(schema: ZodSchema): Shape {
  const hit = cache.get(schema);
  if (hit) return hit;
  const shape = compile(schema);
  cache.set(schema, shape);
  return shape;
}

function compile(schema: ZodSchema): Shape {
  const def = defOf(schema);
  switch (def.type) {
    case "optional":
    case "nullable":
      if (!def.innerType) return { kind: "any" };
      return {
        kind: "option",
        inner: shapeOf(def.innerType),
        none: def.type === "nullable" ? null : undefined,
      };
    case "default":
    case "prefault":
    case "readonly":
    case "catch":
    case "nonoptional":
      return def.innerType ? shapeOf(def.innerType) : { kind: "any" };
    case "pipe":
      return def.in ? shapeOf(def.in) : { kind: "any" };
    case "lazy": {
      const getter = def.getter;
      if (!getter) return { kind: "any" };
      let resolved: Shape | undefined;
      return { kind: "lazy", resolve: () => (resolved ??= shapeOf(getter())) };
    }
    case "string":
    case "template_literal":
      return { kind: "string" };
    case "boolean":
      return { kind: "bool" };
    case "number": {
      const rust = numberKind(schema, metaOf(schema));
      return { kind: "number", rust, range: INT_RANGES[rust] ?? null };
    }
    case "null":
      return { kind: "unit" };
    case "enum":
    case "literal":
    case "union": {
      const variants = stringVariants(schema);
      if (variants) return { kind: "enum", variants };
      if (def.type !== "union") return { kind: "any" };
      return { kind: "untagged", name: metaOf(schema).rust ?? "Value", schema };
    }
    case "array":
      return def.element ? { kind: "seq", item: shapeOf(def.element) } : { kind: "any" };
    case "record": {
      const keyVariants = def.keyType ? stringVariants(unwrap(def.keyType)) : null;
      return { kind: "map", keyVariants, value: def.valueType ? shapeOf(def.valueType) : { kind: "any" } };
    }
    case "object":
      return compileStruct(schema);
    default:
      // any, unknown and the rest: any JSON value, judged by zod afterwards.
      return { kind: "any" };
  }
}

function compileStruct(schema: ZodSchema): StructShape {
  const def = defOf(schema);
  const catchall = def.catchall;
  const denyUnknown = catchall !== undefined && defOf(catchall).type === "never";
  const struct: StructShape = {
    kind: "struct",
    expecting: `struct ${metaOf(schema).rust ?? "Arguments"}`,
    fields: [],
    byKey: new Map(),
    denyUnknown,
    extra: null,
  };
  // Cache before compiling fields so self-referencing shapes terminate.
  cache.set(schema, struct);
  for (const [name, fieldSchema] of Object.entries(def.shape ?? {})) {
    const presence = fieldPresence(fieldSchema);
    const field: FieldShape = {
      name,
      shape: shapeOf(fieldSchema),
      required: presence.required,
      missing: presence.missing,
      hasDefault: hasDefault(fieldSchema),
    };
    struct.fields.push(field);
    struct.byKey.set(name, field);
    for (const alias of metaOf(fieldSchema).aliases ?? []) struct.byKey.set(alias, field);
  }
  if (catchall && !denyUnknown) struct.extra = shapeOf(catchall);
  return struct;
}

function hasDefault(schema: ZodSchema): boolean {
  const type = defOf(schema).type;
  return type === "default" || type === "prefault";
}
