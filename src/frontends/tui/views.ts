/**
 * The UI's modal states as one small stack: the composer is the base, and whatever asks the user
 * something (an approval, a picker, a question, an MCP elicitation) is a view pushed on top of it.
 * Keys go to the top view; a view that does not take a key passes it to the composer beneath
 * (questions are answered from the composer). Only the top view is drawn: the ones beneath wait
 * their turn, so two prompts at once never mix their rows or their keys.
 */
import type { Key } from "./keys.js";
import type { Style } from "./style.js";

/** What a view did with a key. */
export type KeyOutcome =
  /** Taken; the view stays. */
  | "consumed"
  /** Taken, and the view is done: the stack drops it. */
  | "closed"
  /** Not the view's key: the composer takes it. */
  | "passed";

export interface View {
  rows(style: Style, width: number): string[];
  onKey(key: Key): KeyOutcome;
  /** True when the view stands in place of the composer (a picker); else it is asked above it. */
  readonly replacesComposer?: boolean;
}

export class ViewStack {
  private readonly views: View[] = [];

  /** The composer: drawn under the top view (unless it replaces it), and the keys it passes. */
  constructor(private readonly base: View) {}

  /** The view keys go to; null when only the composer is open. */
  get top(): View | null {
    return this.views.at(-1) ?? null;
  }

  get size(): number {
    return this.views.length;
  }

  has(view: View): boolean {
    return this.views.includes(view);
  }

  push(view: View): void {
    this.views.push(view);
  }

  /** Drops `view` wherever it is (a view closed by its own key, or one the server withdrew). */
  remove(view: View): void {
    const index = this.views.lastIndexOf(view);
    if (index >= 0) this.views.splice(index, 1);
  }

  /** Hands `key` to the top view, or to the composer if it passes it (or no view is open). */
  onKey(key: Key): void {
    const top = this.top;
    const outcome = top ? top.onKey(key) : "passed";
    if (top && outcome === "closed") this.remove(top);
    if (outcome === "passed") this.base.onKey(key);
  }

  /** The top view's rows, then the composer's unless the top view replaces it. */
  rows(style: Style, width: number): string[] {
    const top = this.top;
    const rows = top ? top.rows(style, width) : [];
    if (!top?.replacesComposer) rows.push(...this.base.rows(style, width));
    return rows;
  }
}
