/**
 * Response records as stored (thread-store.ts `ResponseRecord`): read back from a file or a
 * database row, so they are a parse boundary, checked here for both stores.
 */
import { z } from "zod";
import type { ResponseRecord } from "./thread-store.js";

const responseRecordSchema = z.object({
  id: z.string(),
  threadId: z.string(),
  turns: z.number().int().nonnegative(),
  parkedTurnId: z.string().nullable(),
  transcript: z.string(),
  body: z.record(z.string(), z.unknown()),
  created: z.number(),
});

/** The record in `value`, or null when it is not one (a damaged file, a foreign row). */
export function parseResponseRecord(value: unknown): ResponseRecord | null {
  const parsed = responseRecordSchema.safeParse(value);
  return parsed.success ? parsed.data : null;
}
