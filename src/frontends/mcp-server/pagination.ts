/**
 * Pagination of long tool results: `paginate` returns a result's first page and, when more
 * follows, an opaque `nextPageToken`; `readPage` returns the page a token names. Tokens live in
 * a PageStore, one per server runtime: a token of one server means nothing to another.
 *
 * Contract:
 * - pageSize is in UTF-16 code units (JavaScript string length), default 40000. Out-of-range
 *   values are clamped to [1000, 200000] rather than rejected: `paginate` has no error channel,
 *   and a client asking for 10 or 10^9 characters is better served by the nearest size. Tools
 *   that validate their arguments may still reject a non-integer before calling it.
 * - A page never ends between the two halves of a surrogate pair.
 * - Tokens are random (128 bits), stable (reading one twice gives the same page) and live as
 *   long as their thread's pages: until `forgetThread(threadId)`, or until the thread's pages
 *   have gone unused for the session TTL ($TSCODEX_SESSION_TTL_MS, default 30 min), the same
 *   idle bound after which the ThreadManager drops the thread from memory.
 * - Memory is bounded: past MAX_STORED_CHARS the least recently used threads' pages go first.
 */
import { randomBytes } from "node:crypto";
import { DEFAULT_SESSION_TTL_MS } from "../../session/thread-manager.js";

export const DEFAULT_PAGE_SIZE = 40_000;
export const MIN_PAGE_SIZE = 1_000;
export const MAX_PAGE_SIZE = 200_000;
/** Characters of unread result text a store keeps across its threads before the oldest go. */
const MAX_STORED_CHARS = 64 * 1024 * 1024;
const TOKEN_PREFIX = "pt_";
const TOKEN_SHAPE = /^pt_[A-Za-z0-9_-]{22}$/;

export type Page = { text: string; nextPageToken?: string };

interface StoredPage {
  threadId: string;
  /** The whole result; pages are slices of it, so a result is stored once. */
  source: string;
  start: number;
  end: number;
  next: string | undefined;
}

interface ThreadPages {
  tokens: Set<string>;
  chars: number;
  lastUsed: number;
}

/** Clamp a requested page size into [MIN_PAGE_SIZE, MAX_PAGE_SIZE] (undefined → default). */
export function clampPageSize(pageSize: number | undefined): number {
  if (pageSize === undefined || !Number.isFinite(pageSize)) return DEFAULT_PAGE_SIZE;
  return Math.min(MAX_PAGE_SIZE, Math.max(MIN_PAGE_SIZE, Math.floor(pageSize)));
}

/** The pages of one server's long results (each server runtime owns one store). */
export class PageStore {
  // Insertion order of `threads` is recency order (re-inserted on use): the first is the oldest.
  private readonly threads = new Map<string, ThreadPages>();
  private readonly pages = new Map<string, StoredPage>();
  private storedChars = 0;

  /** The first page of `text`, with a token for the next one when `text` is longer than a page. */
  paginate(threadId: string, text: string, pageSize: number | undefined): Page {
    this.sweep();
    const size = clampPageSize(pageSize);
    if (text.length <= size) return { text };
    const bounds = pageBounds(text, size);
    // Tokens are made last-page-first so each page can name its successor.
    const tokens: string[] = [];
    let next: string | undefined;
    for (let index = bounds.length - 1; index >= 1; index--) {
      const [start, end] = bounds[index] as [number, number];
      const token = newToken();
      this.pages.set(token, { threadId, source: text, start, end, next });
      tokens.push(token);
      next = token;
    }
    const entry = this.useThread(threadId);
    for (const token of tokens) entry.tokens.add(token);
    // Everything after the first page is kept (the first page is returned, not stored).
    const kept = text.length - (bounds[0]?.[1] ?? 0);
    entry.chars += kept;
    this.storedChars += kept;
    this.evictOverBudget(threadId);
    const [, firstEnd] = bounds[0] as [number, number];
    return next ? { text: text.slice(0, firstEnd), nextPageToken: next } : { text: text.slice(0, firstEnd) };
  }

  /** The page a token names, or a clear error for a malformed, unknown or expired token. */
  readPage(token: string): Page | { error: string } {
    this.sweep();
    if (!TOKEN_SHAPE.test(token)) {
      return {
        error: `Invalid pageToken '${truncate(token)}': pass the nextPageToken value of a previous result unchanged.`,
      };
    }
    const page = this.pages.get(token);
    if (!page) {
      return {
        error:
          `Unknown or expired pageToken '${token}': page tokens last as long as their thread's results ` +
          "(deleted or idle threads lose them); call the tool again without pageToken for a fresh first page.",
      };
    }
    this.useThread(page.threadId);
    const text = page.source.slice(page.start, page.end);
    return page.next ? { text, nextPageToken: page.next } : { text };
  }

  /** Drop every page token of `threadId` (thread deleted or expired). */
  forgetThread(threadId: string): void {
    const entry = this.threads.get(threadId);
    if (!entry) return;
    for (const token of entry.tokens) this.pages.delete(token);
    this.storedChars -= entry.chars;
    this.threads.delete(threadId);
  }

  /** The thread's entry, marked as just used (moved to the recent end). */
  private useThread(threadId: string): ThreadPages {
    const entry = this.threads.get(threadId) ?? { tokens: new Set<string>(), chars: 0, lastUsed: 0 };
    entry.lastUsed = Date.now();
    this.threads.delete(threadId);
    this.threads.set(threadId, entry);
    return entry;
  }

  /** Forget threads whose pages have been idle past the session TTL (lazy: runs on each call). */
  private sweep(): void {
    const cutoff = Date.now() - sessionTtlMs();
    for (const [threadId, entry] of this.threads) if (entry.lastUsed <= cutoff) this.forgetThread(threadId);
  }

  private evictOverBudget(keep: string): void {
    for (const threadId of this.threads.keys()) {
      if (this.storedChars <= MAX_STORED_CHARS) return;
      if (threadId !== keep) this.forgetThread(threadId);
    }
  }
}

/** [start, end) of each page: `size` units, one less where a cut would split a surrogate pair. */
export function pageBounds(text: string, size: number): [number, number][] {
  const bounds: [number, number][] = [];
  let start = 0;
  while (start < text.length) {
    let end = Math.min(start + size, text.length);
    if (
      end < text.length &&
      isHighSurrogate(text.charCodeAt(end - 1)) &&
      isLowSurrogate(text.charCodeAt(end))
    )
      end -= 1;
    bounds.push([start, end]);
    start = end;
  }
  return bounds;
}

/** How long an idle thread stays in memory ($TSCODEX_SESSION_TTL_MS, default 30 min); read per call. */
export function sessionTtlMs(): number {
  const fromEnv = Number(process.env.TSCODEX_SESSION_TTL_MS);
  return fromEnv > 0 ? fromEnv : DEFAULT_SESSION_TTL_MS;
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

function newToken(): string {
  return `${TOKEN_PREFIX}${randomBytes(16).toString("base64url")}`;
}

function truncate(value: string): string {
  return value.length > 40 ? `${value.slice(0, 40)}…` : value;
}
