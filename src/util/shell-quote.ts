/** POSIX shell quoting for display: `['bash','-lc','echo hi']` → `bash -lc 'echo hi'`. */
export function shellQuote(argv: readonly string[]): string {
  return argv.map(quoteArg).join(" ");
}

function quoteArg(arg: string): string {
  if (arg !== "" && /^[A-Za-z0-9_\-./=:,@%+]+$/.test(arg)) return arg;
  return `'${arg.replace(/'/g, `'\\''`)}'`;
}

/**
 * A command line back into its words, as a POSIX shell reads them (single and double quotes,
 * backslash escapes; no expansion): `bash -lc 'echo hi'` → `['bash','-lc','echo hi']`, the
 * inverse of shellQuote. For commands that arrive as one string (the app-server's wire).
 */
export function shellSplit(line: string): string[] {
  const words: string[] = [];
  let word = "";
  /** Whether a word has begun (a quoted empty word `''` is a word). */
  let inWord = false;
  let quote: "'" | '"' | null = null;
  for (let i = 0; i < line.length; i++) {
    const char = line.charAt(i);
    const next = line.charAt(i + 1);
    if (quote === "'") {
      if (char === "'") quote = null;
      else word += char;
    } else if (quote === '"') {
      if (char === '"') quote = null;
      else if (char === "\\" && next !== "" && '"\\$`\n'.includes(next)) {
        word += next;
        i++;
      } else word += char;
    } else if (char === " " || char === "\t" || char === "\n") {
      if (inWord) words.push(word);
      word = "";
      inWord = false;
    } else {
      inWord = true;
      if (char === "'" || char === '"') quote = char;
      else if (char === "\\" && next !== "") {
        word += next;
        i++;
      } else word += char;
    }
  }
  if (inWord) words.push(word);
  return words;
}
