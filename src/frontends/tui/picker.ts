/**
 * A selectable list in place of the composer, as Codex's /model and /resume pickers: Up/Down
 * (wrapping) and Home/End move, Enter picks, Esc cancels; typed letters narrow the list to the
 * entries containing them (Backspace widens it again). Long lists scroll with the selection.
 */
import { visibleLine } from "../common/terminal-text.js";
import type { Key } from "./keys.js";
import { type Style, wrapLine } from "./style.js";
import type { View } from "./views.js";

export interface PickerItem {
  label: string;
  /** Shown dimmed after the label. */
  detail?: string | undefined;
  /** What Enter hands to `onPick`. */
  value: string;
  /** Marked "(current)", and selected when the picker opens. */
  current?: boolean | undefined;
  /** Selected when the picker opens if no item is current (a model's default effort). */
  preferred?: boolean | undefined;
}

const VISIBLE_ROWS = 10;
const MAX_LABEL = 40;

export class Picker {
  private selected: number;
  private filter = "";

  constructor(
    readonly title: string,
    private readonly items: readonly PickerItem[],
    /** Called with the picked item's value (after the picker has closed). */
    readonly onPick: (value: string) => void | Promise<void>,
    /** Called when Esc closes it. */
    readonly onCancel?: () => void | Promise<void>,
    /** What the key hint says Esc does. */
    private readonly escapeDoes = "cancel",
  ) {
    const current = items.findIndex((item) => item.current);
    this.selected = Math.max(0, current >= 0 ? current : items.findIndex((item) => item.preferred));
  }

  private get shown(): readonly PickerItem[] {
    if (this.filter === "") return this.items;
    const needle = this.filter.toLowerCase();
    return this.items.filter((item) => `${item.label} ${item.detail ?? ""}`.toLowerCase().includes(needle));
  }

  /** Handles a key: "pick" (the value to use), "cancel", or null while the picker stays open. */
  key(key: Key): { pick: string } | "cancel" | null {
    const count = this.shown.length;
    switch (key.name) {
      case "up":
      case "down":
        if (count > 0) this.selected = (this.selected + (key.name === "up" ? -1 : 1) + count) % count;
        return null;
      case "home":
        this.selected = 0;
        return null;
      case "end":
        this.selected = Math.max(0, count - 1);
        return null;
      case "enter": {
        const item = this.shown[this.selected];
        return item ? { pick: item.value } : null;
      }
      case "escape":
      case "ctrl-c":
        return "cancel";
      case "backspace":
        this.filter = this.filter.slice(0, -1);
        this.selected = 0;
        return null;
      case "text":
        this.filter += key.text.replace(/[\r\n]/g, "");
        this.selected = 0;
        return null;
      default:
        return null;
    }
  }

  rows(style: Style, width: number): string[] {
    const shown = this.shown;
    const rows = [style.dim("─".repeat(Math.max(1, width))), style.bold(visibleLine(this.title))];
    if (this.filter !== "") rows.push(style.dim(`filter: ${visibleLine(this.filter)}`));
    if (shown.length === 0) rows.push(style.dim("  (nothing matches)"));
    const first = Math.min(
      Math.max(0, this.selected - Math.floor(VISIBLE_ROWS / 2)),
      Math.max(0, shown.length - VISIBLE_ROWS),
    );
    // Labels and details come from the server (thread previews, cwds, model names): shown visibly.
    const labelOf = (item: PickerItem) => `${visibleLine(item.label)}${item.current ? " (current)" : ""}`;
    // Details in one column (labels past MAX_LABEL push theirs along).
    const column = Math.min(MAX_LABEL, Math.max(0, ...shown.map((item) => labelOf(item).length)));
    shown.slice(first, first + VISIBLE_ROWS).forEach((item, i) => {
      const picked = first + i === this.selected;
      const label = item.detail ? labelOf(item).padEnd(column) : labelOf(item);
      const detail = item.detail ? `  ${style.dim(visibleLine(item.detail))}` : "";
      const row = picked ? `${style.bold(style.cyan(`› ${label}`))}${detail}` : `  ${label}${detail}`;
      rows.push(wrapLine(row, width)[0] ?? "");
    });
    if (shown.length > VISIBLE_ROWS) rows.push(style.dim(`  ${this.selected + 1}/${shown.length}`));
    rows.push(style.dim(`↑/↓ select · Enter confirm · Esc ${this.escapeDoes} · type to filter`));
    return rows;
  }
}

/**
 * `picker` as a view in place of the composer: it closes on a pick or Esc, then runs onPick or
 * onCancel (which may open the next picker); `settled` hears how that ended.
 */
export function pickerView(picker: Picker, settled: (error: Error | null) => void): View {
  return {
    replacesComposer: true,
    onKey: (key) => {
      const result = picker.key(key);
      if (result === null) return "consumed";
      Promise.resolve(result === "cancel" ? picker.onCancel?.() : picker.onPick(result.pick)).then(
        () => settled(null),
        (error: Error) => settled(error),
      );
      return "closed";
    },
    rows: (style, width) => picker.rows(style, width),
  };
}
