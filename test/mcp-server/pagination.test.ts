/**
 * Pagination of long results: pages in order, stable opaque tokens, clear errors for bad and
 * forgotten tokens, page-size clamping, and no page ending inside a surrogate pair.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import {
  clampPageSize,
  DEFAULT_PAGE_SIZE,
  PageStore,
  pageBounds,
} from "../../src/frontends/mcp-server/pagination.js";

let store = new PageStore();

/** Read every page of `text` starting with paginate(); returns the pages. */
function allPages(threadId: string, text: string, pageSize: number): string[] {
  const first = store.paginate(threadId, text, pageSize);
  const pages = [first.text];
  let token = first.nextPageToken;
  while (token) {
    const page = store.readPage(token);
    if ("error" in page) throw new Error(page.error);
    pages.push(page.text);
    token = page.nextPageToken;
  }
  return pages;
}

beforeEach(() => {
  store = new PageStore();
});
afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllEnvs();
});

describe("paginate / readPage", () => {
  it("returns a short text whole, without a token", () => {
    expect(store.paginate("t-short", "hello", undefined)).toEqual({ text: "hello" });
  });

  it("splits a long text into 3 pages that join back to it", () => {
    const text = `${"a".repeat(1000)}${"b".repeat(1000)}${"c".repeat(500)}`;
    const first = store.paginate("t-three", text, 1000);
    expect(first.text).toBe("a".repeat(1000));
    expect(first.nextPageToken).toMatch(/^pt_[A-Za-z0-9_-]{22}$/);
    const second = store.readPage(first.nextPageToken ?? "");
    expect(second).toEqual({ text: "b".repeat(1000), nextPageToken: expect.any(String) });
    const third = store.readPage((second as { nextPageToken: string }).nextPageToken);
    expect(third).toEqual({ text: "c".repeat(500) });
    expect(allPages("t-three", text, 1000).join("")).toBe(text);
  });

  it("gives the same page for the same token every time, and fresh tokens for each call", () => {
    const text = "x".repeat(2500);
    const first = store.paginate("t-stable", text, 1000);
    const token = first.nextPageToken ?? "";
    expect(store.readPage(token)).toEqual(store.readPage(token));
    expect(store.paginate("t-stable", text, 1000).nextPageToken).not.toBe(token);
  });

  it("answers a malformed or unknown token with a clear error", () => {
    expect(store.readPage("nope")).toEqual({ error: expect.stringContaining("Invalid pageToken 'nope'") });
    expect(store.readPage("pt_AAAAAAAAAAAAAAAAAAAAAA")).toEqual({
      error: expect.stringContaining("Unknown or expired pageToken"),
    });
  });

  it("forgets a thread's tokens with the thread, and only that thread's", () => {
    const gone = store.paginate("t-gone", "g".repeat(3000), 1000).nextPageToken ?? "";
    const kept = store.paginate("t-kept", "k".repeat(3000), 1000).nextPageToken ?? "";
    store.forgetThread("t-gone");
    expect(store.readPage(gone)).toEqual({ error: expect.stringContaining("Unknown or expired") });
    expect(store.readPage(kept)).toMatchObject({ text: "k".repeat(1000) });
  });

  it("expires tokens whose thread has been idle for the session TTL", () => {
    vi.stubEnv("TSCODEX_SESSION_TTL_MS", "60000");
    vi.useFakeTimers({ now: 1_000_000 });
    const token = store.paginate("t-idle", "i".repeat(3000), 1000).nextPageToken ?? "";
    vi.setSystemTime(1_000_000 + 30_000);
    expect(store.readPage(token)).toMatchObject({ text: "i".repeat(1000) });
    vi.setSystemTime(1_000_000 + 30_000 + 60_001);
    expect(store.readPage(token)).toEqual({ error: expect.stringContaining("Unknown or expired") });
  });

  it("never ends a page between the halves of a surrogate pair", () => {
    const emoji = "😀"; // two UTF-16 units
    const text = `${"a".repeat(999)}${emoji.repeat(1000)}`;
    const pages = allPages("t-emoji", text, 1000);
    expect(pages.join("")).toBe(text);
    expect(pages[0]).toBe("a".repeat(999));
    for (const page of pages) {
      expect(page.charCodeAt(page.length - 1)).not.toSatisfy(
        (code: number) => code >= 0xd800 && code <= 0xdbff,
      );
      expect(page.charCodeAt(0)).not.toSatisfy((code: number) => code >= 0xdc00 && code <= 0xdfff);
    }
    expect(pageBounds(`${"a".repeat(1)}${emoji}`, 2)).toEqual([
      [0, 1],
      [1, 3],
    ]);
  });

  it("clamps the page size into 1000..200000", () => {
    expect(clampPageSize(undefined)).toBe(DEFAULT_PAGE_SIZE);
    expect(clampPageSize(10)).toBe(1000);
    expect(clampPageSize(5_000_000)).toBe(200_000);
    expect(clampPageSize(1500.7)).toBe(1500);
    expect(store.paginate("t-clamp", "z".repeat(1500), 10).text).toHaveLength(1000);
  });
});
