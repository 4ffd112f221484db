/**
 * The composer: a multi-line text buffer with a cursor, and the history of submitted prompts
 * (Up/Down recall them when the cursor is on the first/last line).
 */
export class Composer {
  text = "";
  cursor = 0;
  private readonly history: string[] = [];
  private historyIndex = -1;
  private draft = "";

  get empty(): boolean {
    return this.text === "";
  }

  insert(chars: string): void {
    this.text = this.text.slice(0, this.cursor) + chars + this.text.slice(this.cursor);
    this.cursor += chars.length;
  }

  backspace(): void {
    if (this.cursor === 0) return;
    this.text = this.text.slice(0, this.cursor - 1) + this.text.slice(this.cursor);
    this.cursor--;
  }

  deleteForward(): void {
    this.text = this.text.slice(0, this.cursor) + this.text.slice(this.cursor + 1);
  }

  left(): void {
    this.cursor = Math.max(0, this.cursor - 1);
  }

  right(): void {
    this.cursor = Math.min(this.text.length, this.cursor + 1);
  }

  home(): void {
    this.cursor = this.text.lastIndexOf("\n", this.cursor - 1) + 1;
  }

  end(): void {
    const next = this.text.indexOf("\n", this.cursor);
    this.cursor = next < 0 ? this.text.length : next;
  }

  clear(): void {
    this.text = "";
    this.cursor = 0;
    this.historyIndex = -1;
  }

  /** Takes the text out (to submit it) and remembers it. */
  take(): string {
    const text = this.text;
    if (text.trim() !== "" && this.history.at(-1) !== text) this.history.push(text);
    this.clear();
    return text;
  }

  /** Up: an earlier prompt, if the cursor is on the first line; else false (move in the text). */
  up(): boolean {
    if (this.text.lastIndexOf("\n", this.cursor - 1) >= 0) return this.moveLine(-1);
    if (this.history.length === 0) return false;
    if (this.historyIndex < 0) {
      this.draft = this.text;
      this.historyIndex = this.history.length;
    }
    if (this.historyIndex === 0) return true;
    this.historyIndex--;
    this.show(this.history[this.historyIndex] ?? "");
    return true;
  }

  down(): boolean {
    if (this.text.indexOf("\n", this.cursor) >= 0) return this.moveLine(1);
    if (this.historyIndex < 0) return false;
    this.historyIndex++;
    if (this.historyIndex >= this.history.length) {
      this.historyIndex = -1;
      this.show(this.draft);
    } else this.show(this.history[this.historyIndex] ?? "");
    return true;
  }

  private show(text: string): void {
    this.text = text;
    this.cursor = text.length;
  }

  private moveLine(direction: -1 | 1): boolean {
    const lineStart = this.text.lastIndexOf("\n", this.cursor - 1) + 1;
    const column = this.cursor - lineStart;
    if (direction < 0) {
      const prevStart = this.text.lastIndexOf("\n", lineStart - 2) + 1;
      this.cursor = Math.min(prevStart + column, lineStart - 1);
    } else {
      const nextStart = this.text.indexOf("\n", this.cursor) + 1;
      const nextEnd = this.text.indexOf("\n", nextStart);
      this.cursor = Math.min(nextStart + column, nextEnd < 0 ? this.text.length : nextEnd);
    }
    return true;
  }
}
