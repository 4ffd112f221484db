/**
 * Truncation of model-facing text, as Codex does it (reference section 4): keep the first
 * and last halves of a byte budget with a marker between them, no newline around it.
 *
 * - tokens mode (limit L): budget 4·L bytes; marker `…{N} tokens truncated…` with
 *   N = ceil(total_bytes / 4) − L.
 * - bytes mode (limit L): budget L bytes; marker `…{M} chars truncated…`, M the removed characters.
 *
 * Works on CapturedText so output whose middle was never kept (HeadTailBuffer) truncates
 * exactly as if it had been held whole: the totals describe the whole stream.
 */
import type { CapturedText } from "../exec/head-tail-buffer.js";
import type { TruncationPolicy } from "../protocol/policy.js";

const BYTES_PER_TOKEN = 4;

/** The byte budget of a policy. */
export function byteBudget(policy: TruncationPolicy): number {
  return policy.mode === "tokens" ? policy.limit * BYTES_PER_TOKEN : policy.limit;
}

/** A whole string as CapturedText (counts computed here). */
export function capturedFromString(text: string): CapturedText {
  return {
    head: text,
    tail: null,
    totalBytes: Buffer.byteLength(text, "utf8"),
    totalChars: countChars(text),
    totalLines: countLines(text),
  };
}

/** `prefix` followed by `text`, totals adjusted. */
export function prependText(prefix: string, text: CapturedText): CapturedText {
  if (prefix === "") return text;
  const last = text.tail ?? text.head;
  const textNewlines = text.totalLines - (text.totalBytes > 0 && !last.endsWith("\n") ? 1 : 0);
  const prefixNewlines = countNewlines(prefix);
  const endsWithNewline = text.totalBytes > 0 ? last.endsWith("\n") : prefix.endsWith("\n");
  return {
    head: prefix + text.head,
    tail: text.tail,
    totalBytes: Buffer.byteLength(prefix, "utf8") + text.totalBytes,
    totalChars: countChars(prefix) + text.totalChars,
    totalLines: prefixNewlines + textNewlines + (endsWithNewline ? 0 : 1),
  };
}

/** Each captured text's rendering: the sandbox-denial check and the end event share one. */
const rendered = new WeakMap<CapturedText, string>();

/**
 * The text as one string; a gap (bytes never kept) shows as a one-line note. Rendered once per
 * text: a capture holds up to a MiB, and every rendering is another MiB string in the heap.
 */
export function renderCaptured(text: CapturedText): string {
  if (text.tail === null) return text.head;
  let whole = rendered.get(text);
  if (whole === undefined) {
    const kept = Buffer.byteLength(text.head, "utf8") + Buffer.byteLength(text.tail, "utf8");
    whole = `${text.head}\n[… ${text.totalBytes - kept} bytes not kept …]\n${text.tail}`;
    rendered.set(text, whole);
  }
  return whole;
}

/**
 * Codex's `truncate_text`: the text unchanged when it fits the budget, else head + marker + tail.
 * `truncated` says whether anything was cut.
 */
export function truncateText(
  input: CapturedText | string,
  policy: TruncationPolicy,
): { text: string; truncated: boolean } {
  const text = typeof input === "string" ? capturedFromString(input) : input;
  const budget = byteBudget(policy);
  if (text.tail === null && text.totalBytes <= budget) return { text: text.head, truncated: false };

  const leftBudget = Math.floor(budget / 2);
  const rightBudget = budget - leftBudget;
  const headSource = text.head;
  const tailSource = text.tail ?? text.head;
  const head = prefixWithin(headSource, leftBudget);
  // Tokens mode rounds a character cut by the tail boundary into the tail (the reference's
  // é×30000 case keeps one more character there); bytes mode keeps the tail within budget.
  const tail = suffixWithin(tailSource, rightBudget, policy.mode === "tokens");
  let tailStart = tail.start;
  if (text.tail === null && tailStart < head.end) tailStart = head.end;

  let marker: string;
  if (policy.mode === "tokens") {
    const removedTokens = Math.ceil(text.totalBytes / BYTES_PER_TOKEN) - policy.limit;
    marker = `…${Math.max(0, removedTokens)} tokens truncated…`;
  } else {
    const removedChars =
      text.tail === null
        ? countChars(text.head.slice(head.end, tailStart))
        : text.totalChars - head.chars - tail.chars;
    marker = `…${Math.max(0, removedChars)} chars truncated…`;
  }
  return { text: headSource.slice(0, head.end) + marker + tailSource.slice(tailStart), truncated: true };
}

/**
 * Codex's `formatted_truncate_text` (legacy JSON output): unchanged when it fits, else
 * `Total output lines: {k}\n\n` + the truncated text.
 */
export function formattedTruncateText(input: CapturedText | string, policy: TruncationPolicy): string {
  const text = typeof input === "string" ? capturedFromString(input) : input;
  if (text.tail === null && text.totalBytes <= byteBudget(policy)) return text.head;
  return `Total output lines: ${text.totalLines}\n\n${truncateText(text, policy).text}`;
}

/** Lines as Rust's `str::lines` counts them. */
export function countLines(text: string): number {
  if (text === "") return 0;
  return countNewlines(text) + (text.endsWith("\n") ? 0 : 1);
}

function countNewlines(text: string): number {
  let count = 0;
  for (let at = text.indexOf("\n"); at !== -1; at = text.indexOf("\n", at + 1)) count++;
  return count;
}

/** Code points (a lone surrogate counts as one, as its U+FFFD would). */
function countChars(text: string): number {
  let surrogatePairs = 0;
  for (let i = 0; i < text.length - 1; i++) {
    const unit = text.charCodeAt(i);
    if (unit >= 0xd800 && unit < 0xdc00 && isLowSurrogate(text.charCodeAt(i + 1))) {
      surrogatePairs++;
      i++;
    }
  }
  return text.length - surrogatePairs;
}

function isLowSurrogate(unit: number): boolean {
  return unit >= 0xdc00 && unit < 0xe000;
}

/** UTF-8 width and UTF-16 length of the character starting (or, backwards, ending) at `i`. */
function charAt(text: string, i: number, backwards: boolean): { bytes: number; units: number } {
  const unit = text.charCodeAt(i);
  if (unit < 0x80) return { bytes: 1, units: 1 };
  if (unit < 0x800) return { bytes: 2, units: 1 };
  const pair = backwards
    ? isLowSurrogate(unit) && i > 0 && isHighSurrogate(text.charCodeAt(i - 1))
    : isHighSurrogate(unit) && isLowSurrogate(text.charCodeAt(i + 1));
  return pair ? { bytes: 4, units: 2 } : { bytes: 3, units: 1 };
}

function isHighSurrogate(unit: number): boolean {
  return unit >= 0xd800 && unit < 0xdc00;
}

/** The longest prefix of at most `budget` UTF-8 bytes, on a character boundary. */
function prefixWithin(text: string, budget: number): { end: number; chars: number } {
  let bytes = 0;
  let chars = 0;
  let i = 0;
  while (i < text.length) {
    const char = charAt(text, i, false);
    if (bytes + char.bytes > budget) break;
    bytes += char.bytes;
    i += char.units;
    chars++;
  }
  return { end: i, chars };
}

/**
 * The suffix holding the last `budget` UTF-8 bytes, on a character boundary: at most
 * `budget` bytes, or, with `roundOut`, including the character the boundary falls in.
 */
function suffixWithin(text: string, budget: number, roundOut: boolean): { start: number; chars: number } {
  let bytes = 0;
  let chars = 0;
  let i = text.length;
  while (i > 0 && bytes < budget) {
    const char = charAt(text, i - 1, true);
    if (!roundOut && bytes + char.bytes > budget) break;
    bytes += char.bytes;
    i -= char.units;
    chars++;
  }
  return { start: i, chars };
}
