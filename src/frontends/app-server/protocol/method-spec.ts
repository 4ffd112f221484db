/** The entry of one client method in the method table (client-requests.ts and its parts). */
import { z } from "zod";

/** Where Codex files a method's types in its schema: v1/, v2/, or the top level ("."). */
export type SchemaDir = "v1" | "v2" | ".";

/** One served method: params and result schemas, and Codex's type names for them. */
export interface MethodSpec {
  params: z.ZodType;
  result: z.ZodType;
  paramsName: string | null;
  resultName: string;
  /** Codex files initialize under v1/, fuzzyFileSearch at the top level ("."). */
  dir?: SchemaDir;
}

export function method<P extends z.ZodType, R extends z.ZodType>(
  params: P,
  result: R,
  paramsName: string | null,
  resultName: string,
  dir: "v1" | "v2" = "v2",
) {
  return { params, result, paramsName, resultName, dir } satisfies MethodSpec;
}

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
