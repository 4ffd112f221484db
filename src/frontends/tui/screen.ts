/**
 * The differential renderer. The UI draws inline in the terminal's normal buffer (no alternate
 * screen), so whatever scrolls off stays in the terminal's own scrollback. Each frame is a list
 * of rows; against the previous frame only the rows from the first change down are rewritten.
 * A change above the visible part (or a resize) clears and redraws everything.
 *
 * Every row written passes `guardOutput` (terminal-text.ts): the rows' builders show text from
 * outside visibly before styling it; should one forget, its controls are still shown, not
 * obeyed: only the UI's own SGR styling and the renderer's own cursor moves reach the terminal.
 */
import { guardOutput } from "../common/terminal-text.js";

export interface TerminalOut {
  write(text: string): void;
}

export class Screen {
  private previous: string[] = [];
  private fullRedrawNext = true;

  constructor(
    private readonly out: TerminalOut,
    public rows: number,
  ) {}

  /** After a resize: the next frame is drawn from scratch. */
  invalidate(rows: number): void {
    this.rows = rows;
    this.fullRedrawNext = true;
  }

  /** Writes the difference between the last frame and `frame`; returns the rows written. */
  draw(frame: string[]): number {
    const previous = this.previous;
    let first = 0;
    const common = Math.min(previous.length, frame.length);
    while (first < common && previous[first] === frame[first]) first++;
    if (!this.fullRedrawNext && first === frame.length && first === previous.length) return 0;
    const visibleTop = Math.max(0, previous.length - this.rows);
    let text: string;
    const rowsFrom = (index: number) => frame.slice(index).map(guardRow).join("\r\n");
    if (this.fullRedrawNext || first < visibleTop) {
      // Home, clear screen and scrollback, then everything.
      text = `\x1b[H\x1b[2J\x1b[3J${rowsFrom(0)}`;
      first = 0;
      this.fullRedrawNext = false;
    } else {
      const up = previous.length - 1 - first;
      const move = up > 0 ? `\x1b[${up}A` : "";
      // From the first changed row: rewrite it and everything below (clearing leftovers).
      text = `${move}\r\x1b[J${rowsFrom(first)}`;
      if (first === previous.length && previous.length > 0) text = `\x1b[999C\r\n${rowsFrom(first)}`;
    }
    // Synchronized update: terminals that know it show the frame at once (no tearing).
    this.out.write(`\x1b[?2026h${text}\x1b[?2026l`);
    this.previous = frame;
    return frame.length - first;
  }

  /** Leaves the cursor below the last frame (on exit). */
  release(): void {
    this.out.write("\r\n\x1b[?25h");
  }
}

/** A row is one line: a newline in it is shown, not written. */
function guardRow(row: string): string {
  return guardOutput(row, { newlines: "show" });
}
