/**
 * Fuzzy matching of a typed query against paths, as a file picker does: every character of each
 * whitespace-separated term appears in the path in order, case-insensitively. A match scores
 * higher when its characters are consecutive, start words (after `/`, `_`, `-`, `.`, a space, or
 * a lower → upper case step) and fall in the file name; gaps cost a little. The matched positions
 * come back for highlighting.
 */

export interface FuzzyMatch {
  /** Higher is better; always positive. */
  score: number;
  /** Positions (UTF-16 indices) of `text` that matched, ascending. */
  indices: number[];
}

const SCORE_MATCH = 16;
const BONUS_BOUNDARY = 10;
const BONUS_CONSECUTIVE = 8;
const BONUS_FILE_NAME = 6;
const PENALTY_GAP_START = 3;
const PENALTY_GAP = 1;

/** The match of `query` in `text`, or null when some term does not occur in order. */
export function fuzzyMatch(query: string, text: string): FuzzyMatch | null {
  const terms = query.toLowerCase().split(/\s+/).filter(Boolean);
  if (terms.length === 0) return null;
  const lower = text.toLowerCase();
  const nameStart = text.lastIndexOf("/") + 1;
  const taken = new Set<number>();
  let score = 0;
  for (const term of terms) {
    const found = matchTerm(term, lower, text, nameStart);
    if (!found) return null;
    score += found.score;
    for (const index of found.indices) taken.add(index);
  }
  return { score: Math.max(1, score), indices: [...taken].sort((a, b) => a - b) };
}

/**
 * One term: the first occurrence in order, then tightened backwards from where it ends (the
 * shortest window ending there), which keeps the scan linear in the text's length.
 */
function matchTerm(term: string, lower: string, text: string, nameStart: number): FuzzyMatch | null {
  let position = 0;
  let end = -1;
  for (const char of term) {
    end = lower.indexOf(char, position);
    if (end < 0) return null;
    position = end + 1;
  }
  const indices: number[] = new Array(term.length);
  let cursor = end;
  for (let i = term.length - 1; i >= 0; i--) {
    cursor = lower.lastIndexOf(term[i] ?? "", cursor);
    indices[i] = cursor;
    cursor--;
  }
  return { score: scoreOf(indices, text, nameStart), indices };
}

function scoreOf(indices: readonly number[], text: string, nameStart: number): number {
  let score = 0;
  let previous = -2;
  for (const index of indices) {
    score += SCORE_MATCH;
    if (isBoundary(text, index)) score += BONUS_BOUNDARY;
    if (index === previous + 1) score += BONUS_CONSECUTIVE;
    else if (previous >= 0) score -= PENALTY_GAP_START + PENALTY_GAP * (index - previous - 1);
    if (index >= nameStart) score += BONUS_FILE_NAME;
    previous = index;
  }
  // Shorter paths win ties: a query that names most of a path beats one lost in a long one.
  return score - Math.floor(text.length / 8);
}

function isBoundary(text: string, index: number): boolean {
  if (index === 0) return true;
  const before = text[index - 1] ?? "";
  if ("/_-. ".includes(before)) return true;
  const char = text[index] ?? "";
  return before === before.toLowerCase() && char !== char.toLowerCase();
}
