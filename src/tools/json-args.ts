/**
 * Parsing of function-call arguments. Placeholder: replaced by the serde-compatible
 * parser (same messages and positions as Codex's `failed to parse function arguments`).
 */
import type { z } from "zod";

export class ArgumentsError extends Error {
  override name = "ArgumentsError";
}

/** Parse `text` as JSON and validate it with `schema`; throws ArgumentsError. */
export function parseToolArguments<T extends z.ZodType>(text: string, schema: T): z.infer<T> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new ArgumentsError((error as Error).message);
  }
  const result = schema.safeParse(value);
  if (!result.success) throw new ArgumentsError(result.error.message);
  return result.data;
}
