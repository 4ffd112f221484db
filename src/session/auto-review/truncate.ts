/**
 * Approximate token budgets for the reviewer's input (4 characters a token, as elsewhere for
 * estimates), and the one marker every cut leaves so the reviewer knows something is missing.
 */

const CHARS_PER_TOKEN = 4;

export function approxTokens(text: string): number {
  return Math.ceil(text.length / CHARS_PER_TOKEN);
}

/** The marker standing in for removed text or entries (Codex's reviewer marks cuts alike). */
export function truncationMarker(omittedTokens: number): string {
  return `<truncated omitted_approx_tokens=${omittedTokens}/>`;
}

/**
 * `text` cut to about `maxTokens`: its head and its tail (where a command's verdict or an
 * error usually is) around a marker saying how much was left out.
 */
export function cutText(text: string, maxTokens: number): string {
  if (approxTokens(text) <= maxTokens) return text;
  const keep = Math.max(0, maxTokens * CHARS_PER_TOKEN);
  const head = Math.ceil(keep / 2);
  const tail = keep - head;
  const omitted = approxTokens(text) - maxTokens;
  return `${text.slice(0, head)}${truncationMarker(omitted)}${tail > 0 ? text.slice(text.length - tail) : ""}`;
}
