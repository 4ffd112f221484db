/**
 * The picker on its own: a long list scrolls with the selection (wrapping at both ends), Home/End
 * jump, typed letters filter (Backspace widens again), Enter hands back the value, Esc cancels.
 */
import { describe, expect, it } from "vitest";
import { Picker } from "../../src/frontends/tui/picker.js";
import { createStyle } from "../../src/frontends/tui/style.js";

const plain = createStyle(false);
const items = Array.from({ length: 25 }, (_, i) => ({
  label: `item ${i + 1}`,
  detail: i % 2 ? "even" : "odd",
  value: `v${i + 1}`,
  current: i === 3,
}));
const picked = (rows: string[]) => rows.find((row) => row.startsWith("›"));
const labels = (rows: string[]) => rows.flatMap((row) => /item \d+/.exec(row) ?? []);

describe("Picker", () => {
  it("opens on the current item and scrolls a long list with the selection", () => {
    const picker = new Picker("Pick", items, () => {});
    let rows = picker.rows(plain, 80);
    expect(picked(rows)).toMatch(/^› item 4 \(current\) +even$/);
    expect(rows).toContain("  4/25");
    expect(labels(rows)).toHaveLength(10);
    for (let i = 0; i < 4; i++) picker.key({ name: "up" });
    rows = picker.rows(plain, 80);
    expect(picked(rows)).toMatch(/^› item 25 /);
    expect(labels(rows)).toEqual(Array.from({ length: 10 }, (_, i) => `item ${16 + i}`));
    picker.key({ name: "home" });
    expect(picked(picker.rows(plain, 80))).toMatch(/^› item 1 /);
    picker.key({ name: "end" });
    expect(picker.key({ name: "enter" })).toEqual({ pick: "v25" });
    expect(picker.key({ name: "escape" })).toBe("cancel");
  });

  it("filters by typed letters; Backspace widens the list again", () => {
    const picker = new Picker("Pick", items, () => {});
    for (const text of "m 2") picker.key({ name: "text", text });
    const rows = picker.rows(plain, 80);
    expect(rows).toContain("filter: m 2");
    expect(labels(rows)).toEqual([
      "item 2",
      "item 20",
      "item 21",
      "item 22",
      "item 23",
      "item 24",
      "item 25",
    ]);
    picker.key({ name: "text", text: "x" });
    expect(picker.rows(plain, 80)).toContain("  (nothing matches)");
    expect(picker.key({ name: "enter" })).toBeNull();
    picker.key({ name: "backspace" });
    picker.key({ name: "down" });
    expect(picker.key({ name: "enter" })).toEqual({ pick: "v20" });
  });
});
