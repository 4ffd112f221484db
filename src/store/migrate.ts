/**
 * Copying threads from one store to another (`tscodex sessions migrate --to postgres://…`).
 * Each thread is copied under its lease in the target, line by line with the original
 * timestamps. Resumable and idempotent: a thread the target already has is topped up with the
 * lines it lacks, so a run that stopped half way is simply run again.
 */
import type { RolloutLine } from "./rollout.js";
import type { StoredThread } from "./rollout-reader.js";
import type { ThreadStore } from "./thread-store.js";

export interface MigrationReport {
  /** Threads created in the target. */
  copied: number;
  /** Threads the target had in part, topped up. */
  resumed: number;
  /** Threads the target already had whole. */
  unchanged: number;
  /** Lines written in all. */
  lines: number;
  /** Threads that could not be copied, with the reason. */
  failed: { id: string; error: string }[];
}

export interface MigrationProgress {
  id: string;
  done: number;
  total: number;
  outcome: "copied" | "resumed" | "unchanged" | "failed";
}

/** Copy every thread of `from` (live and archived) into `to`. */
export async function migrateThreads(
  from: ThreadStore,
  to: ThreadStore,
  onProgress: (progress: MigrationProgress) => void = () => {},
): Promise<MigrationReport> {
  const report: MigrationReport = { copied: 0, resumed: 0, unchanged: 0, lines: 0, failed: [] };
  const threads = [
    ...(await allThreads(from, false)).map((stored) => ({ stored, archived: false })),
    ...(await allThreads(from, true)).map((stored) => ({ stored, archived: true })),
  ];
  let done = 0;
  for (const { stored, archived } of threads) {
    const id = stored.meta.id;
    let outcome: MigrationProgress["outcome"];
    try {
      outcome = await copyThread(stored, archived, to, report);
    } catch (error) {
      outcome = "failed";
      report.failed.push({ id, error: error instanceof Error ? error.message : String(error) });
    }
    if (outcome !== "failed") report[outcome] += 1;
    onProgress({ id, done: ++done, total: threads.length, outcome });
  }
  return report;
}

async function allThreads(store: ThreadStore, archived: boolean): Promise<StoredThread[]> {
  const all: StoredThread[] = [];
  let cursor: string | null = null;
  do {
    const page = await store.list({ archived, cursor, limit: 200 });
    all.push(...page.threads);
    cursor = page.nextCursor;
  } while (cursor !== null);
  // Oldest first: a parent is in the target before its sub-agents and forks.
  return all.reverse();
}

async function copyThread(
  stored: StoredThread,
  archived: boolean,
  to: ThreadStore,
  report: MigrationReport,
): Promise<"copied" | "resumed" | "unchanged"> {
  const id = stored.meta.id;
  const lease = await to.leases.acquire(id);
  try {
    const have = (await to.readLines(id)) ?? (archived ? await linesOfArchived(to, id) : null);
    const lines = stored.lines;
    if (have && have.length >= lines.length) return "unchanged";
    if (have && !sameStart(have, lines))
      throw new Error(`the target's thread ${id} differs from the source; not overwritten`);
    const writer = have ? await to.append(id) : await to.create(stored.meta);
    const start = have ? have.length : 1; // create() wrote the metadata line
    try {
      for (const line of lines.slice(start)) writer.writeLine(line);
      await writer.flush();
    } finally {
      await writer.close();
    }
    report.lines += lines.length - (have ? have.length : 0);
    if (archived) await to.archive(id);
    return have ? "resumed" : "copied";
  } finally {
    await lease.release();
  }
}

/** An archived thread's lines in `store` (readLines sees live threads only). */
async function linesOfArchived(store: ThreadStore, id: string): Promise<RolloutLine[] | null> {
  return (await store.read(id, { archived: true }))?.lines ?? null;
}

/** Whether the target's lines can be the source's first lines (the same line types, in order). */
function sameStart(have: RolloutLine[], lines: RolloutLine[]): boolean {
  return have.every((line, i) => line.type === lines[i]?.type);
}
