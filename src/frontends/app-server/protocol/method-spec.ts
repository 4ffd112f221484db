/**
 * The entry of one client method in the method table (client-requests.ts and its parts). A
 * method's schemas are built at their first use, not when the table loads: a server builds the
 * params schemas of the methods its clients call (for a handshake, initialize's alone), and only
 * `generate-json-schema` builds every result.
 */
import { z } from "zod";

/** Where Codex files a method's types in its schema: v1/, v2/, or the top level ("."). */
export type SchemaDir = "v1" | "v2" | ".";

/** `build()`'s value, built on the first call and then kept: one schema object, one `meta` id. */
export function lazy<T>(build: () => T): () => T {
  let built: { value: T } | null = null;
  return () => {
    built ??= { value: build() };
    return built.value;
  };
}

/** One served method: its params and result schemas (each built on first use), and Codex's type names. */
export interface MethodSpec {
  params: () => z.ZodType;
  result: () => z.ZodType;
  paramsName: string | null;
  resultName: string;
  /** Codex files initialize under v1/, fuzzyFileSearch at the top level ("."). */
  dir?: SchemaDir;
}

export function method<P extends z.ZodType, R extends z.ZodType>(
  params: () => P,
  result: () => R,
  paramsName: string | null,
  resultName: string,
  dir: "v1" | "v2" = "v2",
) {
  return { params: lazy(params), result: lazy(result), paramsName, resultName, dir } satisfies MethodSpec;
}

export function methodSpec<P extends z.ZodType, R extends z.ZodType, D extends SchemaDir = "v2">(
  params: () => P,
  result: () => R,
  paramsName: string,
  resultName: string,
  dir: D = "v2" as D,
) {
  return { params: lazy(params), result: lazy(result), paramsName, resultName, dir };
}

/** The `{}` most control methods answer. */
export const emptyResult = lazy(() => z.object({}));
