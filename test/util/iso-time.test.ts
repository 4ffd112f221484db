import { describe, expect, it } from "vitest";
import { isoTimestamp } from "../../src/util/iso-time.js";

describe("isoTimestamp", () => {
  it("writes what Date.prototype.toISOString writes", () => {
    const samples = [
      0,
      1,
      999,
      Date.UTC(2026, 0, 1, 0, 0, 0, 5),
      Date.UTC(2026, 10, 26, 9, 59, 59, 950),
      Date.UTC(1999, 11, 31, 23, 59, 59, 999),
      Date.UTC(2024, 1, 29, 12, 30, 0, 40),
      Date.UTC(9999, 11, 31, 23, 59, 59, 999),
      Date.UTC(5, 6, 7),
      -1,
      -62198755200001, // year -1: toISOString's six-digit form
      Date.UTC(10000, 0, 1), // year 10000: likewise
    ];
    // And a spread of instants across 1970-2100, milliseconds included.
    for (let step = 0; step < 500; step++) samples.push(Math.floor((step * 4_102_444_800_000) / 500) + step);
    for (const ms of samples) expect(isoTimestamp(ms)).toBe(new Date(ms).toISOString());
  });

  it("defaults to now", () => {
    const before = Date.now();
    const stamped = Date.parse(isoTimestamp());
    expect(stamped).toBeGreaterThanOrEqual(before);
    expect(stamped).toBeLessThanOrEqual(Date.now());
  });
});
