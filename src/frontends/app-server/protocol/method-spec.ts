/** The entry of one client method in the method table (client-requests.ts and its parts). */
import type { z } from "zod";

/** One served method: params and result schemas, and Codex's type names for them. */
export interface MethodSpec {
  params: z.ZodType;
  result: z.ZodType;
  paramsName: string | null;
  resultName: string;
  /** Codex files initialize under v1/. */
  dir?: "v1" | "v2";
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
