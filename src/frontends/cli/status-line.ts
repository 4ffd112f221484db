/**
 * The last line of a terminal's stderr while `tscodex exec` waits: what it waits for and for how
 * long (`running npm test · 12s`, `thinking · 3s`), redrawn each second in place. Only on a
 * terminal (a pipe or a file gets no such line); other output clears it first and it comes back
 * below.
 */

const REDRAW_MS = 1000;

export class StatusLine {
  private label: string | null = null;
  private since = 0;
  private shown = false;
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly out: NodeJS.WritableStream) {}

  /** Show `label` with its own elapsed time from now. */
  set(label: string): void {
    this.label = label;
    this.since = Date.now();
    // Ticks counted from this label's start, so each whole second shows.
    if (this.timer) clearInterval(this.timer);
    this.timer = setInterval(() => this.draw(), REDRAW_MS).unref();
    this.draw();
  }

  /** Remove the line (before other output, or for good with stop()). */
  clear(): void {
    if (!this.shown) return;
    this.out.write("\r\u001b[2K");
    this.shown = false;
  }

  /** Draw it again after other output. */
  restore(): void {
    if (this.label !== null) this.draw();
  }

  stop(): void {
    this.clear();
    this.label = null;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  private draw(): void {
    if (this.label === null) return;
    const seconds = Math.floor((Date.now() - this.since) / 1000);
    this.out.write(`\r\u001b[2K${this.label} · ${seconds}s`);
    this.shown = true;
  }
}
