/** One served method's entry in the method table (see client-requests.ts): schemas and Codex's type names. */
import { z } from "zod";

/** Where Codex files a method's types in its schema: v1/, v2/, or the top level ("."). */
export type SchemaDir = "v1" | "v2" | ".";

export function methodSpec<P extends z.ZodType, R extends z.ZodType, D extends SchemaDir = "v2">(
  params: P,
  result: R,
  paramsName: string,
  resultName: string,
  dir: D = "v2" as D,
) {
  return { params, result, paramsName, resultName, dir };
}

/** The `{}` most control methods answer. */
export const emptyResult = z.object({});
