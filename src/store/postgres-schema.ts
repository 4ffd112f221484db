/**
 * The PostgreSQL store's schema, as numbered migrations applied on start. Several processes may
 * start at once: each migrates inside one transaction holding a transaction-level advisory lock,
 * so exactly one applies a version and the others find it recorded in `tscodex_migrations`.
 * Never edit a released migration: append a new one.
 */
import type { Sql } from "postgres";

/** Key of the advisory lock around migrating (an arbitrary constant of ours). */
const MIGRATION_LOCK = 0x7473636f646578n; // "tscodex"

interface Migration {
  version: number;
  name: string;
  sql: string;
}

const MIGRATIONS: Migration[] = [
  {
    version: 1,
    name: "threads, lines, parked calls, lease holders",
    sql: `
      CREATE TABLE tscodex_threads (
        id          text PRIMARY KEY,
        created     timestamptz NOT NULL,
        updated     timestamptz NOT NULL,
        archived    boolean NOT NULL DEFAULT false,
        source      text NOT NULL,
        provider    text NOT NULL,
        forked_from text,
        meta        json NOT NULL,
        last_seq    integer NOT NULL,
        version     bigint NOT NULL DEFAULT 1
      );
      CREATE INDEX tscodex_threads_by_created ON tscodex_threads (archived, created DESC, id DESC);
      CREATE INDEX tscodex_threads_by_updated ON tscodex_threads (archived, updated DESC, id DESC);
      CREATE INDEX tscodex_threads_by_id ON tscodex_threads (id text_pattern_ops);

      -- Append-only: one row per rollout line, seq 0 is the metadata line. The payload is json,
      -- not jsonb: it keeps the line's text as written (key order, every character).
      CREATE TABLE tscodex_thread_lines (
        thread_id text NOT NULL REFERENCES tscodex_threads (id) ON DELETE CASCADE,
        seq       integer NOT NULL,
        ts        text NOT NULL,
        type      text NOT NULL,
        event     text,
        payload   json NOT NULL,
        PRIMARY KEY (thread_id, seq)
      );
      CREATE INDEX tscodex_thread_lines_turns ON tscodex_thread_lines (thread_id, seq)
        WHERE event = 'turn_started';

      CREATE TABLE tscodex_parked_calls (
        call_id   text PRIMARY KEY,
        thread_id text NOT NULL REFERENCES tscodex_threads (id) ON DELETE CASCADE,
        created   timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX tscodex_parked_calls_thread ON tscodex_parked_calls (thread_id);

      -- Who holds a thread's lease, for the busy message. The lease itself is a session-level
      -- advisory lock, gone with its holder's connection; a row left by a killed holder is
      -- overwritten by the next one.
      CREATE TABLE tscodex_leases (
        thread_id text PRIMARY KEY,
        pid       integer NOT NULL,
        host      text NOT NULL,
        since     text NOT NULL,
        backend   integer NOT NULL
      );
    `,
  },
  {
    version: 2,
    name: "proxy responses, the response that made each parked call, idempotency keys",
    sql: `
      ALTER TABLE tscodex_parked_calls ADD COLUMN response_id text;

      -- One row per response the proxy gave; its id is the capability previous_response_id names.
      CREATE TABLE tscodex_responses (
        id        text PRIMARY KEY,
        thread_id text NOT NULL REFERENCES tscodex_threads (id) ON DELETE CASCADE,
        created   timestamptz NOT NULL DEFAULT now(),
        record    json NOT NULL
      );
      CREATE INDEX tscodex_responses_thread ON tscodex_responses (thread_id);

      -- Idempotency-Key of proxy requests: the request's fingerprint and, once answered, the answer.
      CREATE TABLE tscodex_idempotency_keys (
        key     text PRIMARY KEY,
        expires timestamptz NOT NULL,
        record  json NOT NULL
      );
      CREATE INDEX tscodex_idempotency_keys_expires ON tscodex_idempotency_keys (expires);
    `,
  },
  {
    version: 3,
    name: "idempotency keys by the response that answers them",
    sql: `
      -- Deleting a response finds the key that would replay it (its record's work.answerId).
      CREATE INDEX tscodex_idempotency_keys_answer
        ON tscodex_idempotency_keys ((record->'work'->>'answerId'));
    `,
  },
];

/** The newest schema version this build knows. */
export const SCHEMA_VERSION = Math.max(...MIGRATIONS.map((migration) => migration.version));

/** Apply the migrations the database lacks; safe when several processes start together. */
export async function migrate(sql: Sql): Promise<void> {
  await sql.begin(async (tx) => {
    await tx`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK.toString()}::bigint)`;
    await tx`CREATE TABLE IF NOT EXISTS tscodex_migrations (
      version integer PRIMARY KEY,
      name    text NOT NULL,
      applied timestamptz NOT NULL DEFAULT now()
    )`;
    const rows = await tx<{ version: number }[]>`SELECT version FROM tscodex_migrations`;
    const applied = new Set(rows.map((row) => row.version));
    const newest = Math.max(0, ...applied);
    if (newest > SCHEMA_VERSION)
      throw new Error(
        `the thread store's schema (version ${newest}) is newer than this tscodex knows (${SCHEMA_VERSION}); upgrade tscodex`,
      );
    for (const migration of MIGRATIONS) {
      if (applied.has(migration.version)) continue;
      await tx.unsafe(migration.sql);
      await tx`INSERT INTO tscodex_migrations (version, name) VALUES (${migration.version}, ${migration.name})`;
    }
  });
}
