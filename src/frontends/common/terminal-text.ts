/**
 * Text from outside (the model, commands, files, MCP servers, the server) made safe to print on
 * a terminal. A terminal acts on control characters: ESC starts sequences that set the window
 * title (OSC 2), write the clipboard (OSC 52), make links (OSC 8) or move the cursor and erase
 * what was written (a command `touch X #\r\e[2KRun ls -la` would read `Run ls -la`); CR returns
 * to the line's start; C1 controls (U+009B is an 8-bit CSI, U+009D an 8-bit OSC) do the same
 * as ESC sequences on some terminals; bidi controls reorder what follows. Each of them is shown
 * instead, in one notation:
 *
 * - C0 controls and DEL in caret notation, as `cat -v` and `less` print them: ESC `^[`, CR `^M`,
 *   BEL `^G`, NUL `^@`, DEL `^?`;
 * - C1 controls (U+0080–U+009F) and the bidi controls (U+061C, U+200E, U+200F, U+202A–U+202E,
 *   U+2066–U+2069) as `<U+XXXX>`.
 *
 * Newline is kept (or, for text that must stay on one line, shown as `^J`); a tab is expanded
 * to spaces up to the next 8-column stop (the terminal UI counts columns) or kept (exec's
 * output, where a tab only moves the cursor right).
 *
 * Where it applies, one rule for every writer to stdout/stderr:
 *
 * - Text meant for people is shown always, terminal or not: the TUI, exec's progress on stderr,
 *   listings (`sessions list/show`, `mcp list/get`, `hooks list`, `skills list`, `memories
 *   list`), and every error, warning and log line (a server's or model's message, a client's
 *   key). Redirected, such text is still read by a person later (`less`, a CI log), and a
 *   script wants the `--json` form, which stays exact.
 * - Data a command exists to print is shown only when its stream is a terminal
 *   (`visibleOnTerminal`): exec's final answer, `memories show`'s text. Redirected
 *   (`> answer.txt`, a pipe) it is exactly what was written.
 */

/** Every character shown in notation, plus newline and tab (handled by the options). */
const CONTROL_CLASS = "[\\u0000-\\u001f\\u007f-\\u009f\\u061c\\u200e\\u200f\\u202a-\\u202e\\u2066-\\u2069]";
const CONTROL = new RegExp(CONTROL_CLASS, "g");
const HAS_CONTROL = new RegExp(CONTROL_CLASS);
const TAB_STOP = 8;
const ESC = "\u001b";

/** The visible form of one control character (see the module comment). */
export function controlNotation(char: string): string {
  const code = char.charCodeAt(0);
  if (code < 0x20) return `^${String.fromCharCode(code + 0x40)}`;
  if (code === 0x7f) return "^?";
  return `<U+${code.toString(16).toUpperCase().padStart(4, "0")}>`;
}

export interface VisibleOptions {
  /** Keep newlines (default), or show them as `^J` for text that must stay on one line. */
  newlines?: "keep" | "show";
  /** Expand tabs to the next 8-column stop (default), or keep them. */
  tabs?: "expand" | "keep";
}

/** `text` with every control character shown in notation; nothing a terminal acts on is left. */
export function visibleText(text: string, options: VisibleOptions = {}): string {
  if (!HAS_CONTROL.test(text)) return text;
  const keepNewlines = options.newlines !== "show";
  const expandTabs = options.tabs !== "keep";
  let out = "";
  let last = 0;
  for (const match of text.matchAll(CONTROL)) {
    const at = match.index;
    const char = match[0];
    out += text.slice(last, at);
    last = at + 1;
    if (char === "\n" && keepNewlines) out += "\n";
    else if (char === "\t" && expandTabs) {
      const column = out.length - (out.lastIndexOf("\n") + 1);
      out += " ".repeat(TAB_STOP - (column % TAB_STOP));
    } else if (char === "\t") out += "\t";
    else out += controlNotation(char);
  }
  return out + text.slice(last);
}

/** `text` on one line: as `visibleText`, newlines shown as `^J`. */
export function visibleLine(text: string): string {
  return visibleText(text, { newlines: "show" });
}

/**
 * Data for `stream`: shown as `visibleText` when the stream is a terminal, exact otherwise (see
 * the module comment).
 */
export function visibleOnTerminal(
  text: string,
  stream: { isTTY?: boolean },
  options: VisibleOptions = {},
): string {
  return stream.isTTY ? visibleText(text, options) : text;
}

/**
 * A copy of a JSON-like value (an event, a request) with every string in it, object keys too,
 * passed through `visibleText`: a renderer given the copy cannot print a raw control. Arrays
 * and plain objects are copied; anything else (bytes, class instances) is kept as it is.
 */
export function visibleStrings<T>(value: T, options: VisibleOptions = {}): T {
  return mapStrings(value, (text) => visibleText(text, options)) as T;
}

function mapStrings(value: unknown, map: (text: string) => string): unknown {
  if (typeof value === "string") return map(value);
  if (Array.isArray(value)) return value.map((item) => mapStrings(item, map));
  if (value === null || typeof value !== "object") return value;
  // Only plain objects are copied: bytes (an output chunk) and class instances stay as they are.
  const prototype = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null) return value;
  const copy: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) copy[map(key)] = mapStrings(item, map);
  return copy;
}

/** The SGR codes the UI's own styles write (bold, dim, italic, inverse, colours, their resets). */
const OWN_SGR = new RegExp(`^${ESC}\\[(?:0|1|2|3|7|22|23|27|31|32|33|35|36|39)m`);

/**
 * The last guard before a write: every control character shown in notation except the UI's
 * own SGR styling and (with `newlines: "keep"`) newlines; tabs are kept. Text from outside goes
 * through `visibleText` before it is styled; this catches any path that forgot, so at worst a
 * forgotten string can colour text, never move the cursor, erase, retitle or write the clipboard.
 */
export function guardOutput(text: string, options: { newlines: "keep" | "show" }): string {
  if (!HAS_CONTROL.test(text)) return text;
  let out = "";
  let last = 0;
  for (const match of text.matchAll(CONTROL)) {
    const at = match.index;
    const char = match[0];
    out += text.slice(last, at);
    last = at + 1;
    const own = char === ESC ? OWN_SGR.exec(text.slice(at, at + 8)) : null;
    if (own) {
      out += own[0];
      last = at + own[0].length;
    } else if (char === "\t" || (char === "\n" && options.newlines === "keep")) out += char;
    else out += controlNotation(char);
  }
  return out + text.slice(last);
}
