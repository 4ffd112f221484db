import { describe, expect, it } from "vitest";
import { fuzzyMatch } from "../../src/util/fuzzy-match.js";

describe("fuzzyMatch", () => {
  it("matches the query's characters in order, case-insensitively, and says where", () => {
    expect(fuzzyMatch("RdMe", "docs/README.md")?.indices).toEqual([5, 8, 9, 10]);
    expect(fuzzyMatch("emdr", "docs/README.md")).toBeNull();
    expect(fuzzyMatch("", "anything")).toBeNull();
  });

  it("needs every whitespace-separated term, in any order", () => {
    expect(fuzzyMatch("test app", "src/app/main.test.ts")?.indices).toEqual([4, 5, 6, 13, 14, 15, 16]);
    expect(fuzzyMatch("test nope", "src/app/main.test.ts")).toBeNull();
  });

  it("ranks consecutive, word-start and file-name matches above scattered ones", () => {
    const score = (query: string, path: string) => fuzzyMatch(query, path)?.score ?? 0;
    expect(score("main", "src/main.ts")).toBeGreaterThan(score("main", "src/my-animation.ts"));
    expect(score("cfg", "src/config-file.ts")).toBeLessThan(score("cfg", "src/Cfg.ts"));
    expect(score("util", "src/util/x.ts")).toBeLessThan(score("util", "x/util.ts"));
    expect(score("a", "a")).toBeGreaterThan(0);
  });

  it("tightens a match to the shortest window ending where the first one ends", () => {
    // "ab" first matches a(0)…b(4); the tighter a(3)b(4) is the one reported.
    expect(fuzzyMatch("ab", "axxab")?.indices).toEqual([3, 4]);
  });
});
