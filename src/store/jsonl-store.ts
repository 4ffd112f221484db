/**
 * The embedded ThreadStore: one JSONL rollout per thread under `$TSCODEX_HOME/sessions/`, archived
 * ones under `archived/sessions/` (the same layout), the proxy's parked-call index under
 * `proxy/parked-calls/`, its response records under `proxy/responses/`, idempotency keys
 * under `proxy/idempotency-keys/` (with `proxy/idempotency-answers/`: the key of each answer id),
 * deleted responses' tombstones under `proxy/deleted-responses/`, each thread's response ids under
 * `proxy/thread-responses/<thread>/`, and a lock file per held thread (thread-lock.ts). One machine, no set-up.
 */
import { createHash } from "node:crypto";
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import { basename, dirname, join, relative } from "node:path";
import {
  type RolloutLine,
  rolloutPath,
  type SessionMeta,
  sessionsDir,
  THREAD_ANNOTATIONS,
} from "./rollout.js";
import { RolloutRecorder } from "./rollout-recorder.js";
import {
  findRollout,
  forkRollout,
  newestRollout,
  ROLLOUT_NAME,
  readRolloutFile,
  rolloutFiles,
} from "./rollout-store.js";
import { linesUpToTurn, RolloutError, type StoredThread } from "./stored-thread.js";
import { FileThreadLeases, type ThreadLeases } from "./thread-lock.js";
import {
  deletedAnswer,
  type IdempotencyRecord,
  type ResponseRecord,
  StoreError,
  type ThreadPage,
  type ThreadQuery,
  type ThreadStore,
  type ThreadWriter,
  type WriterOptions,
} from "./thread-store.js";

export class JsonlThreadStore implements ThreadStore {
  readonly kind = "jsonl";
  readonly shared = false;
  readonly location: string;
  readonly leases: ThreadLeases;
  /**
   * Rollout paths found so far, by thread id ("live:ID" / "archived:ID"). A file keeps its path
   * for life (archive moves it, and updates this), so a lookup costs one stat, not a listing
   * of every rollout (resume, version, read and append each look the thread up).
   */
  private readonly known = new Map<string, string>();
  /** The proxy's record directories made so far: a record write need not make its directory again. */
  private readonly made = new Set<string>();

  constructor(
    private readonly home: string,
    leases?: ThreadLeases,
  ) {
    this.location = sessionsDir(home);
    this.leases = leases ?? new FileThreadLeases(home);
  }

  async create(meta: SessionMeta, options: WriterOptions = {}): Promise<ThreadWriter> {
    // A thread's file lies in the directory of its creation day: looking there (live and
    // archived) finds a second thread with the same id without listing every rollout.
    const created = new Date(meta.created);
    const days = [this.home, archivedHome(this.home)].map((home) =>
      dirname(rolloutPath(home, meta.id, created)),
    );
    const suffix = `-${meta.id}.jsonl`;
    for (const day of days) {
      const names = await readdir(day).catch(() => [] as string[]);
      if (names.some((name) => name.endsWith(suffix)))
        throw new StoreError(`a thread with id ${meta.id} already exists in ${this.location}`);
    }
    const recorder = await RolloutRecorder.create(this.home, meta, options);
    this.known.set(knownKey(meta.id, false), recorder.path);
    return recorder;
  }

  async append(id: string, options: WriterOptions = {}): Promise<ThreadWriter> {
    return RolloutRecorder.append(id, await this.requirePath(id), options);
  }

  async resolveId(idOrPrefix: string, options: { archived?: boolean } = {}): Promise<string | null> {
    const archived = options.archived ?? false;
    if (await this.knownPath(idOrPrefix, archived)) return idOrPrefix;
    const path = await this.find(idOrPrefix, archived);
    const id = path ? idOfPath(path) : null;
    if (path && id) this.known.set(knownKey(id, archived), path);
    return id;
  }

  async newestId(): Promise<string | null> {
    const path = await newestRollout(this.home);
    return path ? idOfPath(path) : null;
  }

  async read(id: string, options: { archived?: boolean } = {}): Promise<StoredThread | null> {
    // The path found before is read straight away; gone (moved by another process), it is looked up.
    const key = knownKey(id, options.archived ?? false);
    const known = this.known.get(key);
    const stored = known ? await readIfThere(known) : null;
    if (stored) return stored;
    this.known.delete(key);
    const path = await this.exactPath(id, options.archived);
    return path ? readIfThere(path) : null;
  }

  async readLines(id: string, options: { fromTurn?: number } = {}): Promise<RolloutLine[] | null> {
    const stored = await this.read(id);
    if (!stored) return null;
    const from = options.fromTurn ?? 1;
    return from <= 1 ? stored.lines : stored.lines.slice(linesUpToTurn(stored.lines, from - 1).length);
  }

  async version(id: string): Promise<number | null> {
    // Rollouts only grow (rollback rewrites them while nothing holds the thread). The path found
    // before is tried first: its stat is both the check that it is still there and the answer.
    const known = this.known.get(knownKey(id, false));
    const size = known ? await sizeOf(known) : null;
    if (size !== null) return size;
    const path = await this.exactPath(id);
    return path ? sizeOf(path) : null;
  }

  async list(query: ThreadQuery = {}): Promise<ThreadPage> {
    const all = await rolloutFiles(query.archived ? archivedHome(this.home) : this.home);
    // Rollout names end in their thread's id: the files of other threads are never read.
    const suffixes = query.ids?.map((id) => `-${id}.jsonl`);
    const files = suffixes ? all.filter((file) => suffixes.some((suffix) => file.endsWith(suffix))) : all;
    const limit = query.limit ?? Number.POSITIVE_INFINITY;
    const accept = (stored: StoredThread) =>
      (!query.providers?.length || query.providers.includes(stored.meta.provider)) &&
      (query.source === undefined || stored.meta.source === query.source) &&
      (!query.cwds?.length || query.cwds.includes(stored.meta.cwd));
    let position = cursorPosition(query.cursor);
    if (query.sort === "updated") {
      // Update times are inside the files: read them all, then sort.
      const all = (await Promise.all(files.map(readOrNull))).filter(
        (stored): stored is StoredThread => stored !== null && accept(stored),
      );
      all.sort((a, b) => (a.updated < b.updated ? 1 : a.updated > b.updated ? -1 : 0));
      const end = position + limit;
      return { threads: all.slice(position, end), nextCursor: end < all.length ? String(end) : null };
    }
    // Newest first is the files' name order: read only as many as the page needs.
    const threads: StoredThread[] = [];
    while (position < files.length && threads.length < limit) {
      const stored = await readOrNull(files[position] ?? "");
      position += 1;
      if (stored && accept(stored)) threads.push(stored);
    }
    return { threads, nextCursor: position < files.length ? String(position) : null };
  }

  async fork(id: string, options: { turns?: number; newId?: string } = {}): Promise<string> {
    return (await forkRollout(this.home, await this.requireId(id), options)).id;
  }

  async delete(id: string): Promise<boolean> {
    const path = (await this.exactPath(id)) ?? (await this.exactPath(id, true));
    if (!path) return false;
    // Keys first, then the answers: were the delete to stop half-way, no key would replay one.
    await this.forgetKeysOfThread(id);
    const index = threadResponsesDir(this.home, id);
    for (const name of await readdir(index).catch(() => [] as string[])) {
      const responseId = await readFile(join(index, name), "utf8").catch(() => null);
      if (responseId !== null) await this.tombstoneResponse(responseId);
    }
    await rm(index, { recursive: true, force: true });
    await rm(path, { force: true });
    this.known.delete(knownKey(id, false));
    this.known.delete(knownKey(id, true));
    return true;
  }

  async archive(id: string): Promise<boolean> {
    return this.moveRollout(id, false);
  }

  async unarchive(id: string): Promise<boolean> {
    return this.moveRollout(id, true);
  }

  /** Move thread `id`'s rollout between the live and archived trees (same relative path). */
  private async moveRollout(id: string, fromArchive: boolean): Promise<boolean> {
    const path = await this.exactPath(id, fromArchive);
    if (!path) return false;
    const [from, to] = fromArchive
      ? [archivedHome(this.home), this.home]
      : [this.home, archivedHome(this.home)];
    const target = join(sessionsDir(to), relative(sessionsDir(from), path));
    await mkdir(dirname(target), { recursive: true });
    await rename(path, target);
    this.known.delete(knownKey(id, fromArchive));
    this.known.set(knownKey(id, !fromArchive), target);
    return true;
  }

  async rollback(id: string, numTurns: number): Promise<boolean> {
    const path = await this.exactPath(id);
    if (!path) return false;
    const lines = (await readFile(path, "utf8")).split("\n").filter((line) => line.trim() !== "");
    const starts = lines.filter(isTurnStart).length;
    const kept = keepTurns(lines, Math.max(0, starts - numTurns));
    await rewrite(path, kept);
    return true;
  }

  async truncate(id: string, lines: number): Promise<boolean> {
    const path = await this.exactPath(id);
    if (!path) return false;
    const { parseRollout } = await import("./rollout-reader.js");
    const raw = (await readFile(path, "utf8")).split("\n").filter((line) => line.trim() !== "");
    // Counted as readLines counts: a line that does not parse (a torn write) is not one, and goes.
    const valid = raw.filter((line) => parseRollout(line).lines.length === 1);
    const kept = valid.slice(0, Math.max(1, Math.floor(lines)));
    if (kept.length < raw.length) await rewrite(path, kept);
    return true;
  }

  async indexParkedCalls(threadId: string, callIds: readonly string[], responseId?: string): Promise<void> {
    const dir = await this.madeDir(parkedCallsDir(this.home));
    // Line 1: the thread; line 2: the response that made the call.
    const text = responseId ? `${threadId}\n${responseId}` : threadId;
    await Promise.all(callIds.map((id) => writeFile(join(dir, fileNameOf(id)), text)));
  }

  async threadOfCall(callId: string): Promise<string | null> {
    return (await this.parkedCallLines(callId))[0] || null;
  }

  async responseOfCall(callId: string): Promise<string | null> {
    return (await this.parkedCallLines(callId))[1] || null;
  }

  private async parkedCallLines(callId: string): Promise<string[]> {
    const path = join(parkedCallsDir(this.home), fileNameOf(callId));
    const text = await readFile(path, "utf8").catch(() => "");
    return text.split("\n").map((line) => line.trim());
  }

  async saveResponse(record: ResponseRecord): Promise<void> {
    if (await this.responseDeleted(record.id)) return;
    // Its thread's index of responses, so deleting the thread finds the record.
    const index = await this.madeDir(threadResponsesDir(this.home, record.threadId));
    await writeFile(join(index, fileNameOf(record.id)), record.id);
    const dir = await this.madeDir(responsesDir(this.home));
    // Written aside and renamed: a reader never sees half a record.
    const path = join(dir, `${fileNameOf(record.id)}.json`);
    const temporary = `${path}.${process.pid}.tmp`;
    await writeFile(temporary, JSON.stringify(record));
    await rename(temporary, path);
    // A delete may have come between the check and the rename: it tombstones before it removes,
    // so either it removes what was just written, or the tombstone is seen here.
    if (await this.responseDeleted(record.id)) await rm(path, { force: true });
  }

  async claimIdempotencyKey(record: IdempotencyRecord): Promise<IdempotencyRecord | null> {
    const path = await this.idempotencyPath(record.key);
    for (let attempt = 0; attempt < 3; attempt++) {
      try {
        // Exclusive create: of two processes claiming one key, one gets it.
        await writeFile(path, JSON.stringify(record), { flag: "wx" });
        return null;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      }
      const stored = await this.readIdempotencyKey(path);
      if (stored && stored.expires > Date.now()) return stored;
      await rm(path, { force: true }); // expired or damaged: the key is free
    }
    throw new StoreError(`idempotency key ${record.key} is claimed and released over and over; retry`);
  }

  async saveIdempotencyKey(record: IdempotencyRecord): Promise<void> {
    const answerId = record.work?.answerId;
    // The answer's index entry first: one left by a crash names a key that does not answer it,
    // which idempotencyKeysAnswering checks (and pruning removes).
    if (answerId) {
      const dir = await this.madeDir(idempotencyAnswersDir(this.home));
      await writeFile(join(dir, fileNameOf(answerId)), record.key);
    }
    const path = await this.idempotencyPath(record.key);
    const temporary = `${path}.${process.pid}.tmp`;
    await writeFile(temporary, JSON.stringify(record));
    await rename(temporary, path);
  }

  async dropIdempotencyKey(key: string): Promise<void> {
    await rm(await this.idempotencyPath(key), { force: true });
  }

  async idempotencyKeysAnswering(answerId: string): Promise<IdempotencyRecord[]> {
    const record = await this.keyAnswering(answerId, Date.now());
    return record ? [record] : [];
  }

  async pruneIdempotencyKeys(now: number): Promise<number> {
    const dir = idempotencyDir(this.home);
    const names = await readdir(dir).catch(() => [] as string[]);
    let pruned = 0;
    for (const name of names) {
      if (!name.endsWith(".json")) continue;
      const record = await this.readIdempotencyKey(join(dir, name));
      if (record && record.expires > now) continue;
      await rm(join(dir, name), { force: true });
      pruned += 1;
    }
    // Index entries whose key is gone, expired or answers something else now.
    const answers = idempotencyAnswersDir(this.home);
    for (const name of await readdir(answers).catch(() => [] as string[])) {
      const key = await readFile(join(answers, name), "utf8").catch(() => null);
      const record = key === null ? null : await this.readIdempotencyKey(await this.idempotencyPath(key));
      const answerId = record?.work?.answerId;
      if (record && answerId && fileNameOf(answerId) === name && record.expires > now) continue;
      await rm(join(answers, name), { force: true });
    }
    return pruned;
  }

  /** The live key whose `work.answerId` is `answerId`, found through its index entry. */
  private async keyAnswering(answerId: string, now: number): Promise<IdempotencyRecord | null> {
    const indexPath = join(idempotencyAnswersDir(this.home), fileNameOf(answerId));
    const key = await readFile(indexPath, "utf8").catch(() => null);
    if (key === null) return null;
    const record = await this.readIdempotencyKey(await this.idempotencyPath(key));
    return record?.work?.answerId === answerId && record.expires > now ? record : null;
  }

  async pruneParkedCalls(before: number): Promise<number> {
    const dir = parkedCallsDir(this.home);
    const names = await readdir(dir).catch(() => [] as string[]);
    let pruned = 0;
    for (const name of names) {
      const path = join(dir, name);
      const made = await stat(path).then(
        (info) => info.mtimeMs,
        () => null,
      );
      if (made === null || made >= before) continue;
      await rm(path, { force: true });
      pruned += 1;
    }
    return pruned;
  }

  private async idempotencyPath(key: string): Promise<string> {
    return join(await this.madeDir(idempotencyDir(this.home)), `${fileNameOf(key)}.json`);
  }

  private async madeDir(dir: string): Promise<string> {
    if (!this.made.has(dir)) {
      await mkdir(dir, { recursive: true });
      this.made.add(dir);
    }
    return dir;
  }

  private async readIdempotencyKey(path: string): Promise<IdempotencyRecord | null> {
    const text = await readFile(path, "utf8").catch(() => null);
    if (text === null) return null;
    const { parseIdempotencyRecord } = await import("./response-records.js");
    try {
      return parseIdempotencyRecord(JSON.parse(text));
    } catch {
      return null;
    }
  }

  async deleteResponse(id: string): Promise<boolean> {
    if (!(await this.readResponse(id))) return false;
    await this.tombstoneResponse(id);
    return true;
  }

  /** Response `id` gone for good: its tombstone (which saveResponse checks), then its record. */
  private async tombstoneResponse(id: string): Promise<void> {
    const dir = await this.madeDir(deletedResponsesDir(this.home));
    await writeFile(join(dir, fileNameOf(id)), id);
    await rm(join(responsesDir(this.home), `${fileNameOf(id)}.json`), { force: true });
  }

  private async responseDeleted(id: string): Promise<boolean> {
    return stat(join(deletedResponsesDir(this.home), fileNameOf(id))).then(
      () => true,
      () => false,
    );
  }

  /** Every live key whose work is on thread `threadId` replays `deletedAnswer` from now on. */
  private async forgetKeysOfThread(threadId: string): Promise<void> {
    const dir = idempotencyDir(this.home);
    const now = Date.now();
    for (const name of await readdir(dir).catch(() => [] as string[])) {
      if (!name.endsWith(".json")) continue;
      const record = await this.readIdempotencyKey(join(dir, name));
      // Only an answered key replays anything; one still running (or left by a dead process, which
      // a takeover runs again) is its request's own to settle.
      if (!record?.result || record.work?.threadId !== threadId || record.expires <= now) continue;
      const result = deletedAnswer(record.work.answerId ?? threadId, threadId);
      await this.saveIdempotencyKey({ ...record, result });
    }
  }

  async readResponse(id: string): Promise<ResponseRecord | null> {
    const path = join(responsesDir(this.home), `${fileNameOf(id)}.json`);
    const text = await readFile(path, "utf8").catch(() => null);
    if (text === null) return null;
    // zod loads on the first read, not with the store.
    const { parseResponseRecord } = await import("./response-records.js");
    try {
      const record = parseResponseRecord(JSON.parse(text));
      return record?.id === id ? record : null;
    } catch {
      return null;
    }
  }

  async close(): Promise<void> {}

  /** Thread `idOrPrefix`'s rollout; ambiguity is a StoreError. */
  private async find(idOrPrefix: string, archived = false): Promise<string | null> {
    try {
      return await findRollout(archived ? archivedHome(this.home) : this.home, idOrPrefix);
    } catch (error) {
      if (error instanceof RolloutError) throw new StoreError(error.message);
      throw error;
    }
  }

  /** The rollout of exactly thread `id` (no prefix matching). */
  private async exactPath(id: string, archived = false): Promise<string | null> {
    const known = await this.knownPath(id, archived);
    if (known) return known;
    const path = await this.find(id, archived).catch(() => null);
    if (!path || idOfPath(path) !== id) return null;
    this.known.set(knownKey(id, archived), path);
    return path;
  }

  /** Thread `id`'s path as found before, if the file is still there (another process may have moved it). */
  private async knownPath(id: string, archived: boolean): Promise<string | null> {
    const key = knownKey(id, archived);
    const known = this.known.get(key);
    if (!known) return null;
    if (
      await stat(known).then(
        () => true,
        () => false,
      )
    )
      return known;
    this.known.delete(key);
    return null;
  }

  private async requirePath(id: string): Promise<string> {
    const path = await this.exactPath(id);
    if (!path) throw new StoreError(`no stored thread with id ${id}`);
    return path;
  }

  private async requireId(idOrPrefix: string): Promise<string> {
    const id = await this.resolveId(idOrPrefix);
    if (!id) throw new StoreError(`no stored thread with id ${idOrPrefix}`);
    return id;
  }
}

/** The home whose `sessions/` holds archived rollouts. */
export function archivedHome(home: string): string {
  return join(home, "archived");
}

function knownKey(id: string, archived: boolean): string {
  return `${archived ? "archived" : "live"}:${id}`;
}

function parkedCallsDir(home: string): string {
  return join(home, "proxy", "parked-calls");
}

function idempotencyDir(home: string): string {
  return join(home, "proxy", "idempotency-keys");
}

function idempotencyAnswersDir(home: string): string {
  return join(home, "proxy", "idempotency-answers");
}

/** A deleted response's tombstone: its id is never stored again. */
function deletedResponsesDir(home: string): string {
  return join(home, "proxy", "deleted-responses");
}

/** The ids of thread `threadId`'s response records (one file each). */
function threadResponsesDir(home: string, threadId: string): string {
  return join(home, "proxy", "thread-responses", fileNameOf(threadId));
}

function responsesDir(home: string): string {
  return join(home, "proxy", "responses");
}

/** Call and response ids are the client's strings: hashed, so any id makes a safe file name. */
function fileNameOf(id: string): string {
  return createHash("sha256").update(id).digest("hex").slice(0, 40);
}

function idOfPath(path: string): string | null {
  return ROLLOUT_NAME.exec(basename(path))?.[2] ?? null;
}

function cursorPosition(cursor: string | null | undefined): number {
  if (cursor === null || cursor === undefined) return 0;
  const position = Number(cursor);
  if (!Number.isSafeInteger(position) || position < 0) throw new StoreError(`invalid cursor: ${cursor}`);
  return position;
}

/** Rollout `path` replayed; null when it is not there (deleted or archived meanwhile). */
async function readIfThere(path: string): Promise<StoredThread | null> {
  try {
    return await readRolloutFile(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw error;
  }
}

function sizeOf(path: string): Promise<number | null> {
  return stat(path).then(
    (info) => info.size,
    () => null,
  );
}

function readOrNull(path: string): Promise<StoredThread | null> {
  // A file without metadata, or one deleted meanwhile, is not a thread to show.
  return readRolloutFile(path).catch(() => null);
}

/** The lines before turn number `turns + 1` starts. */
/** The lines of the first `turns` turns, and the thread's name and metadata lines after them. */
/** Replace rollout `path` with `lines` (raw text, so kept lines are not rewritten): written whole, then renamed into place. */
async function rewrite(path: string, lines: string[]): Promise<void> {
  const draft = `${path}.rewrite`;
  await writeFile(draft, `${lines.join("\n")}\n`);
  await rename(draft, path);
}

function keepTurns(lines: string[], turns: number): string[] {
  let started = 0;
  const kept: string[] = [];
  for (const line of lines) {
    if (isTurnStart(line)) started += 1;
    if (started <= turns || isAnnotation(line)) kept.push(line);
  }
  return kept;
}

function isAnnotation(line: string): boolean {
  if (!THREAD_ANNOTATIONS.some((type) => line.includes(`"${type}"`))) return false;
  try {
    const parsed = JSON.parse(line) as { type?: unknown; payload?: { type?: unknown } };
    return parsed.type === "event" && THREAD_ANNOTATIONS.includes(String(parsed.payload?.type));
  } catch {
    return false;
  }
}

function isTurnStart(line: string): boolean {
  if (!line.includes('"turn_started"')) return false;
  try {
    const parsed = JSON.parse(line) as { type?: unknown; payload?: { type?: unknown } };
    return parsed.type === "event" && parsed.payload?.type === "turn_started";
  } catch {
    return false;
  }
}
