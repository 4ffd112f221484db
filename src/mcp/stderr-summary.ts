/**
 * The line of a dead MCP server's stderr that says why it died. A Node server that throws at
 * start-up ends its stderr with the stack, the error's own properties and `Node.js vXX`; the
 * message is the line that starts with `Error:` (or `TypeError:`, `Error [CODE]:`, ...). Other
 * servers: the last lines that are not stack frames or blank.
 */

const ERROR_LINE = /^(?:Uncaught )?[A-Z]?\w*(?:Error|Exception)(?: \[[\w-]+\])?: \S/;
const NOISE = /^(?:at |Node\.js v\d|[{}[\]^]+$|\.\.\. \d+ lines|Require stack:|- \/)/;

/** One short summary of `stderr` (empty when it holds nothing useful). */
export function stderrSummary(stderr: string): string {
  const lines = stderr
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "");
  const errorLine = lines.findLast((line) => ERROR_LINE.test(line));
  if (errorLine) return errorLine;
  return lines
    .filter((line) => !NOISE.test(line))
    .slice(-3)
    .join(" | ");
}
