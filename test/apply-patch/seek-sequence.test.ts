import { describe, expect, it } from "vitest";
import { LineIndex, seekSequence } from "../../src/apply-patch/index.js";

describe("seekSequence", () => {
  it("prefers an exact match over an earlier loose one", () => {
    expect(seekSequence(["foo ", "x", "foo"], ["foo"], 0, false)).toBe(2);
  });

  it("falls back to ignoring trailing, then surrounding whitespace", () => {
    expect(seekSequence(["a  ", "b\t"], ["a", "b"], 0, false)).toBe(0);
    expect(seekSequence(["  a  ", "\tb"], ["a", "b"], 0, false)).toBe(0);
  });

  it("folds typographic punctuation and odd spaces last", () => {
    const lines = ["x", "\u201cquoted\u201d \u2013 \u2018single\u2019\u00a0nbsp"];
    expect(seekSequence(lines, ["\"quoted\" - 'single' nbsp"], 0, false)).toBe(1);
  });

  it("does not treat U+FEFF as whitespace (Rust's trim)", () => {
    expect(seekSequence(["\ufeffa"], ["a"], 0, false)).toBe(-1);
  });

  it("searches from start and honours end-of-file anchoring", () => {
    const lines = ["a", "b", "a", "b"];
    expect(seekSequence(lines, ["a"], 1, false)).toBe(2);
    expect(seekSequence(lines, ["a", "b"], 0, true)).toBe(2);
    expect(seekSequence(lines, ["a"], 0, true)).toBe(-1);
  });

  it("handles empty and oversized patterns", () => {
    expect(seekSequence(["a"], [], 5, false)).toBe(5);
    expect(seekSequence(["a"], ["a", "b"], 0, false)).toBe(-1);
    expect(seekSequence(["a", "b"], ["b"], 3, false)).toBe(-1);
  });

  it("reuses normalised views across searches", () => {
    const index = new LineIndex(["  one", "  two", "  three"]);
    expect(index.seek(["two"], 0, false)).toBe(1);
    expect(index.seek(["three"], 2, false)).toBe(2);
  });
});
