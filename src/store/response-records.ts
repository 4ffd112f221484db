/**
 * The proxy's records as stored (thread-store.ts `ResponseRecord`, `IdempotencyRecord`): read
 * back from a file or a database row, so they are a parse boundary, checked here for both stores.
 */
import { z } from "zod";
import type { IdempotencyRecord, ResponseRecord } from "./thread-store.js";

const responseRecordSchema = z.object({
  id: z.string(),
  threadId: z.string(),
  turns: z.number().int().nonnegative(),
  parkedTurnId: z.string().nullable(),
  transcript: z.string(),
  body: z.record(z.string(), z.unknown()),
  status: z.number().int().optional(),
  input: z.array(z.record(z.string(), z.unknown())).optional(),
  answeredBy: z.string().nullable().optional(),
  created: z.number(),
});

/** The record in `value`, or null when it is not one (a damaged file, a foreign row). */
export function parseResponseRecord(value: unknown): ResponseRecord | null {
  const parsed = responseRecordSchema.safeParse(value);
  return parsed.success ? parsed.data : null;
}

const idempotencyRecordSchema = z.object({
  key: z.string(),
  fingerprint: z.string(),
  result: z.object({ status: z.number().int(), body: z.unknown() }).nullable(),
  created: z.number(),
  expires: z.number(),
  work: z
    .object({
      threadId: z.string(),
      linesBefore: z.number().int().nonnegative().nullable(),
      answerId: z.string().nullable(),
      continues: z.string().nullable(),
    })
    .nullable()
    .optional(),
});

/** The idempotency record in `value`, or null when it is not one. */
export function parseIdempotencyRecord(value: unknown): IdempotencyRecord | null {
  const parsed = idempotencyRecordSchema.safeParse(value);
  return parsed.success ? (parsed.data as IdempotencyRecord) : null;
}
