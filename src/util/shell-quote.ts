/** POSIX shell quoting for display: `['bash','-lc','echo hi']` → `bash -lc 'echo hi'`. */
export function shellQuote(argv: readonly string[]): string {
  return argv.map(quoteArg).join(" ");
}

function quoteArg(arg: string): string {
  if (arg !== "" && /^[A-Za-z0-9_\-./=:,@%+]+$/.test(arg)) return arg;
  return `'${arg.replace(/'/g, `'\\''`)}'`;
}
