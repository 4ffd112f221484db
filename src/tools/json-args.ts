/**
 * Parsing of function-call arguments with Codex's error texts. Codex deserializes arguments
 * with serde_json into Rust structs and answers the model with
 * `failed to parse function arguments: {serde message}`; this module produces the serde part
 * byte for byte (messages, `at line L column C`, first error in document order).
 *
 * Flow: zod schema -> serde shape (cached) -> position-tracking deserializer -> plain value
 * -> `schema.safeParse` for what serde has no notion of (refinements, bounds, transforms).
 *
 * Rust semantics applied to zod: unknown keys are ignored (zod `.strict()` rejects them as
 * `deny_unknown_fields`); optional and nullable fields accept `null`; `.int()` numbers reject
 * floats (`.nonnegative()` makes them u64, else i64, or name the type with `rust` metadata);
 * plain numbers are f64 and take anything numeric; a struct may also be given as an array.
 */
import { z } from "zod";
import { deserializeRoot } from "./json-args/deserialize.js";
import { SerdeError } from "./json-args/reader.js";
import { shapeOf } from "./json-args/shape.js";
import type { SerdeMeta } from "./json-args/zod-view.js";

export type { SerdeMeta } from "./json-args/zod-view.js";

/** Arguments that do not fit the tool's parameters. `message` is the serde-style text. */
export class ArgumentsError extends Error {
  override name = "ArgumentsError";
}

/**
 * Parse `text` as the arguments `schema` describes. Throws ArgumentsError whose message is
 * what serde_json would say (without Codex's `failed to parse function arguments: ` prefix),
 * or, for zod-only checks, `{path}: {zod message}`.
 */
export function parseToolArguments<T extends z.ZodType>(text: string, schema: T): z.infer<T> {
  let value: unknown;
  try {
    value = deserializeRoot(text, shapeOf(schema));
  } catch (error) {
    if (error instanceof SerdeError) throw new ArgumentsError(error.render(), { cause: error });
    throw error;
  }
  const result = schema.safeParse(value);
  if (!result.success) throw new ArgumentsError(describeIssue(result.error), { cause: result.error });
  return result.data;
}

function describeIssue(error: z.ZodError): string {
  const issue = error.issues[0];
  if (!issue) return error.message;
  let path = "";
  for (const segment of issue.path) {
    if (typeof segment === "number") path += `[${segment}]`;
    else path += path === "" ? String(segment) : `.${String(segment)}`;
  }
  return path === "" ? issue.message : `${path}: ${issue.message}`;
}

/**
 * A string enum validated like a Rust unit enum (`unknown variant …`) but shown to the model
 * as a plain string: its JSON schema has no `enum` (Codex's update_plan `status` is like that).
 */
export function looseEnum<const V extends readonly [string, ...string[]]>(values: V) {
  return z.enum(values).meta({ schemaEnum: false } satisfies SerdeMeta);
}

/**
 * Attach serde metadata (Rust type name for messages, aliases, enum visibility) to a schema.
 * Returns the copy zod `.meta()` makes; metadata lives in zod's global registry.
 */
export function withSerde<T extends z.ZodType>(schema: T, meta: SerdeMeta): T {
  return schema.meta({ ...meta });
}
