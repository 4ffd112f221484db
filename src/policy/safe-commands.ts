/**
 * Known-safe commands: read-only commands that may run without asking, even under the
 * `untrusted` approval policy (they still run inside the sandbox the policy picks).
 *
 * A command is known safe when it is one of the read-only programs below with arguments that
 * keep it read-only, or a shell invocation (`bash -lc "…"`) whose script parses (strictly,
 * see shell-parse.ts) into such commands joined by && || ; |. Anything we cannot read is not
 * safe: being wrong here means running something without asking, so every check errs towards
 * "ask".
 */
import { type OptionSpec, parseGnuArgs } from "./gnu-options.js";
import { parseSimpleScript } from "./shell-parse.js";

/** Shells whose `-c` / `-lc` script we read. */
const SHELLS = new Set(["bash", "sh", "zsh", "dash"]);
/** Where an absolute shell path may live (a shell elsewhere could be anything). */
const SHELL_DIRS = ["/bin/", "/usr/bin/", "/usr/local/bin/"];

/** Programs that only read, whatever their arguments. */
const READ_ONLY = new Set([
  "basename",
  "cat",
  "cd",
  "cmp",
  "cut",
  "df",
  "diff",
  "dirname",
  "du",
  "echo",
  "egrep",
  "expr",
  "false",
  "fgrep",
  "grep",
  "head",
  "id",
  "ls",
  "nl",
  "paste",
  "printf",
  "pwd",
  "readlink",
  "realpath",
  "rev",
  "seq",
  "stat",
  "tac",
  "tail",
  "tr",
  "true",
  "uname",
  "wc",
  "which",
  "whoami",
]);

/** Programs that are read-only only with some arguments (a Map: no prototype keys). */
const CHECKED = new Map<string, (args: readonly string[]) => boolean>(
  Object.entries({
    find: (args: readonly string[]) => !args.some((arg) => FIND_ACTIONS.has(arg)),
    rg: safeRipgrep,
    git: safeGit,
    sed: (args: readonly string[]) =>
      args[0] === "-n" && SED_PRINT.test(args[1] ?? "") && args.slice(2).every(isOperand),
    sort: safeSort,
    uniq: safeUniq,
    base64: (args: readonly string[]) =>
      !args.some((arg) => arg.startsWith("--output") || shortHas(arg, "o")),
    date: (args: readonly string[]) => args.every((arg) => arg.startsWith("+") || DATE_FLAGS.test(arg)),
  }),
);

/** find's actions that run programs or write files. */
const FIND_ACTIONS = new Set([
  "-exec",
  "-execdir",
  "-ok",
  "-okdir",
  "-delete",
  "-fls",
  "-fprint",
  "-fprint0",
  "-fprintf",
]);
/** `sed -n` scripts that only print lines: `5p`, `1,20p`, `$p`. */
const SED_PRINT = /^(\d+|\$)(,(\d+|\$))?p$/;
const DATE_FLAGS = /^(-u|--utc|--universal|-R|--rfc-email|-I\w*|--iso-8601(=\w+)?)$/;

/** True when argv is a known-safe, read-only command (see the module comment). */
export function isKnownSafeCommand(argv: readonly string[]): boolean {
  return isSafe(argv, 0);
}

function isSafe(argv: readonly string[], depth: number): boolean {
  const script = shellScriptOf(argv);
  if (script === null) return isSafeSimpleCommand(argv, depth);
  if (depth >= 2) return false;
  const commands = parseSimpleScript(script);
  return commands?.every((command) => isSafeSimpleCommand(command, depth + 1)) ?? false;
}

/**
 * The script of a shell invocation `SHELL -c|-lc SCRIPT` (also `-l -c`), or null when argv
 * is not one. SHELL is bash, sh, zsh or dash, by bare name or from a system bin directory.
 */
export function shellScriptOf(argv: readonly string[]): string | null {
  const [shell, ...rest] = argv;
  if (shell === undefined || !isSystemShell(shell)) return null;
  if (rest.length === 2 && (rest[0] === "-c" || rest[0] === "-lc")) return rest[1] ?? null;
  if (rest.length === 3 && rest[0] === "-l" && rest[1] === "-c") return rest[2] ?? null;
  return null;
}

function isSystemShell(path: string): boolean {
  if (!path.includes("/")) return SHELLS.has(path);
  const dir = SHELL_DIRS.find((prefix) => path.startsWith(prefix));
  return dir !== undefined && SHELLS.has(path.slice(dir.length));
}

/** One command's words: a read-only program with arguments that keep it read-only. */
function isSafeSimpleCommand(words: readonly string[], depth: number): boolean {
  const [program, ...args] = words;
  if (program === undefined) return false;
  if (shellScriptOf(words) !== null) return isSafe(words, depth);
  // Only bare names: `./ls` or `/tmp/x/cat` could be anything.
  if (program.includes("/")) return false;
  if (READ_ONLY.has(program)) return true;
  return CHECKED.get(program)?.(args) ?? false;
}

/** GNU sort's options (coreutils 9). */
const SORT_OPTIONS: OptionSpec = {
  shortFlags: "bdfgiMhnRrVcCmsuz",
  shortValued: "koStT",
  long: {
    "ignore-leading-blanks": "none",
    "dictionary-order": "none",
    "ignore-case": "none",
    "general-numeric-sort": "none",
    "ignore-nonprinting": "none",
    "month-sort": "none",
    "human-numeric-sort": "none",
    "numeric-sort": "none",
    "random-sort": "none",
    "random-source": "required",
    reverse: "none",
    sort: "required",
    "version-sort": "none",
    "batch-size": "required",
    check: "optional",
    "compress-program": "required",
    debug: "none",
    "files0-from": "required",
    key: "required",
    merge: "none",
    output: "required",
    stable: "none",
    "buffer-size": "required",
    "field-separator": "required",
    "temporary-directory": "required",
    parallel: "required",
    unique: "none",
    "zero-terminated": "none",
    help: "none",
    version: "none",
  },
};
/** sort options that write a file (-o), run a program, or write temporaries somewhere chosen. */
const SORT_UNSAFE = new Set(["o", "output", "compress-program", "T", "temporary-directory"]);

function safeSort(args: readonly string[]): boolean {
  const parsed = parseGnuArgs(args, SORT_OPTIONS);
  return parsed !== null && !parsed.options.some((option) => SORT_UNSAFE.has(option.name));
}

/** GNU uniq's options; `-N` / `+N` (obsolete skip counts) are not read, so they are not safe. */
const UNIQ_OPTIONS: OptionSpec = {
  shortFlags: "cdDiuz",
  shortValued: "fsw",
  long: {
    count: "none",
    repeated: "none",
    "all-repeated": "optional",
    group: "optional",
    "ignore-case": "none",
    "skip-fields": "required",
    "skip-chars": "required",
    "check-chars": "required",
    unique: "none",
    "zero-terminated": "none",
    help: "none",
    version: "none",
  },
};

/** `uniq IN OUT` writes OUT: at most one operand (any word after `--` is one). */
function safeUniq(args: readonly string[]): boolean {
  const parsed = parseGnuArgs(args, UNIQ_OPTIONS);
  return (
    parsed !== null && parsed.operands.length <= 1 && !parsed.operands.some((arg) => arg.startsWith("+"))
  );
}

function safeRipgrep(args: readonly string[]): boolean {
  // --pre runs a program per file; -z / --search-zip run decompressors; --hostname-bin runs one.
  return !args.some(
    (arg) =>
      arg === "--pre" ||
      arg.startsWith("--pre=") ||
      arg.startsWith("--hostname-bin") ||
      arg === "--search-zip" ||
      shortHas(arg, "z"),
  );
}

const GIT_READ_ONLY = new Set(["status", "log", "diff", "show", "branch", "ls-files", "rev-parse", "blame"]);
/** Options of `git branch` that list (anything else may create, move or delete branches). */
const GIT_BRANCH_LISTING =
  /^(-a|--all|-r|--remotes|-v|-vv|--verbose|-l|--list|--show-current|--no-color|--color(=\w+)?|--no-column|--sort=.+|--format=.+)$/;
/** `git branch` options that take the next word as their value. */
const GIT_BRANCH_VALUE = new Set(["--contains", "--no-contains", "--merged", "--no-merged", "--points-at"]);

function safeGit(args: readonly string[]): boolean {
  // Global options (-c, --exec-path, -C …) can change what runs; only --no-pager is allowed.
  const rest = args[0] === "--no-pager" ? args.slice(1) : args;
  const [sub, ...subArgs] = rest;
  if (sub === undefined || !GIT_READ_ONLY.has(sub)) return false;
  // --output writes a file; --ext-diff runs a configured program.
  if (subArgs.some((arg) => arg.startsWith("--output") || arg === "--ext-diff")) return false;
  return sub !== "branch" || safeGitBranch(subArgs);
}

function safeGitBranch(args: readonly string[]): boolean {
  const listing = args.includes("-l") || args.includes("--list");
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    if (GIT_BRANCH_VALUE.has(arg)) {
      i += 1;
      continue;
    }
    if (GIT_BRANCH_LISTING.test(arg)) continue;
    // A bare word names a branch to create, unless --list made it a pattern.
    if (isOperand(arg) && listing) continue;
    return false;
  }
  return true;
}

function isOperand(arg: string): boolean {
  return !arg.startsWith("-");
}

/** `arg` is a bundle of short options (`-rzn`) that includes `letter`. */
function shortHas(arg: string, letter: string): boolean {
  return /^-[A-Za-z]+$/.test(arg) && arg.includes(letter);
}
