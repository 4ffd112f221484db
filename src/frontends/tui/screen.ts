/**
 * The differential renderer. The UI draws inline in the terminal's normal buffer (no alternate
 * screen), below what the shell printed before it, so that output and whatever scrolls off stay
 * in the terminal's own scrollback. Each frame is a list of rows; against the previous frame
 * only the rows from the first change down are rewritten, never above the screen's top row
 * (the scrollback is the terminal's). Only /clear wipes the scrollback, as Codex's does.
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
  /** What the next frame must do first: nothing, re-lay out after a resize, or wipe (/clear). */
  private redrawNext: "none" | "resize" | "wipe" = "none";

  constructor(
    private readonly out: TerminalOut,
    public rows: number,
  ) {}

  /** After a resize: the next frame redraws the screen (the terminal's scrollback is kept). */
  invalidate(rows: number): void {
    this.rows = rows;
    if (this.redrawNext === "none") this.redrawNext = "resize";
  }

  /** /clear: the next frame wipes the screen and the terminal's scrollback first (as Codex's /clear). */
  wipe(): void {
    this.redrawNext = "wipe";
  }

  /** Writes the difference between the last frame and `frame`; returns the rows written. */
  draw(frame: string[]): number {
    const previous = this.previous;
    let first = 0;
    const common = Math.min(previous.length, frame.length);
    while (first < common && previous[first] === frame[first]) first++;
    const redraw = this.redrawNext;
    if (redraw === "none" && first === frame.length && first === previous.length) return 0;
    this.redrawNext = "none";
    // Rows scrolled into the terminal's scrollback cannot be rewritten: the rewrite starts at
    // the top row still on screen (an older copy of a row above it stays in the scrollback).
    const visibleTop = Math.max(0, previous.length - this.rows);
    // Each row erases its line before it is written. Never "erase to the end of the screen":
    // from the screen's top-left corner tmux (scroll-on-clear) would first copy the whole
    // screen, composer included, into the scrollback.
    const rowsFrom = (index: number) =>
      frame
        .slice(index)
        .map((row) => `${ERASE_LINE}${guardRow(row)}`)
        .join("\r\n");
    let text: string;
    let leftover = 0;
    if (redraw === "wipe") {
      text = `\x1b[H\x1b[2J\x1b[3J${rowsFrom(0)}`;
      first = 0;
    } else if (redraw === "resize") {
      // The terminal re-flowed the old rows: where the frame began is unknown, so the screen is
      // redrawn from its top with the frame's last rows (the shell's output scrolled above stays).
      first = Math.max(0, frame.length - this.rows);
      text = `\x1b[H${rowsFrom(first)}`;
      leftover = this.rows - (frame.length - first);
    } else if (previous.length === 0) {
      // The first frame starts on the cursor's row, below whatever the shell printed before.
      text = `\r${rowsFrom(0)}`;
    } else {
      const target = Math.max(first, visibleTop);
      const up = previous.length - 1 - target;
      const move = up > 0 ? `\x1b[${up}A` : "";
      // A frame that shrank above the screen's top row: its last rows fill the screen from the top.
      first = target <= frame.length ? target : Math.max(0, frame.length - this.rows);
      // From the first changed row: rewrite it and everything below; erase what is left of the old.
      text = target === previous.length ? `\x1b[999C\r\n${rowsFrom(first)}` : `${move}\r${rowsFrom(first)}`;
      leftover = previous.length - target - (frame.length - first);
    }
    if (leftover > 0) {
      // The cursor stays on the frame's last row (or, with no row written, where the frame began).
      const written = frame.length > first;
      const erase = written ? `\r\n${ERASE_LINE}` : ERASE_LINE;
      text += erase + `\r\n${ERASE_LINE}`.repeat(leftover - 1);
      const back = written ? leftover : leftover - 1;
      if (back > 0) text += `\x1b[${back}A`;
    }
    // Synchronized update: terminals that know it show the frame at once (no tearing).
    this.out.write(`\x1b[?2026h${text}\x1b[?2026l`);
    this.previous = frame;
    return frame.length - first;
  }

  /** Leaves the cursor below the last frame (on exit). */
  release(): void {
    // After an empty frame the cursor already sits where the UI began.
    this.out.write(this.previous.length > 0 ? "\r\n\x1b[?25h" : "\x1b[?25h");
  }
}

const ERASE_LINE = "\x1b[2K";

/** A row is one line: a newline in it is shown, not written. */
function guardRow(row: string): string {
  return guardOutput(row, { newlines: "show" });
}
