/**
 * Recognising apply_patch invocations inside shell tool calls, so the shell tools can apply the
 * patch natively instead of running a command. Accepted, as by Codex:
 * - argv `["apply_patch" | "applypatch", patchText]`;
 * - a script (a `shell_command` string, or the script of `["bash"|"zsh"|"sh", "-lc"|"-c", s]`)
 *   consisting of exactly `[cd DIR && ]apply_patch <<DELIM` + body + `DELIM`, nothing else.
 */
import { parsePatch } from "./parser.js";

export interface ExtractedPatch {
  /** The patch text (the heredoc body, or the argument). */
  patch: string;
  /** The `cd` directory of `cd DIR && apply_patch …`, as written (relative to the call's cwd). */
  workdir?: string;
}

const APPLY_PATCH_COMMANDS = new Set(["apply_patch", "applypatch"]);

/** Codex's text for a bare patch given as a command; reach the model as a verification failure. */
export const IMPLICIT_INVOCATION_MESSAGE =
  'apply_patch verification failed: patch detected without explicit call to apply_patch. Rerun as ["apply_patch", "<patch>"]';

/** The patch of an apply_patch invocation in `command` (string script or argv), else null. */
export function extractHeredocPatch(command: string | readonly string[]): ExtractedPatch | null {
  if (typeof command !== "string") {
    const [name, body] = command;
    if (command.length === 2 && name !== undefined && body !== undefined && APPLY_PATCH_COMMANDS.has(name)) {
      return { patch: body };
    }
  }
  const script = shellScript(command);
  return script === null ? null : extractFromScript(script);
}

/**
 * True when `command` is a bare patch (`["*** Begin Patch…"]`, or a shell script that is one)
 * rather than an apply_patch invocation; the caller answers with IMPLICIT_INVOCATION_MESSAGE.
 */
export function isImplicitPatchInvocation(command: string | readonly string[]): boolean {
  const candidate = typeof command !== "string" && command.length === 1 ? command[0]! : shellScript(command);
  if (candidate === null) return false;
  try {
    parsePatch(candidate);
    return true;
  } catch {
    return false;
  }
}

/** The script of a shell invocation (`bash -lc s`, `pwsh -NoProfile -Command s`, …), else null. */
function shellScript(command: string | readonly string[]): string | null {
  if (typeof command === "string") return command;
  let args = command;
  if (args.length === 4 && isPowerShell(args[0]!) && args[1]!.toLowerCase() === "-noprofile") {
    args = [args[0]!, args[2]!, args[3]!];
  }
  if (args.length !== 3) return null;
  const [shell, flag, script] = args as [string, string, string];
  const name = shellName(shell);
  if ((name === "bash" || name === "zsh" || name === "sh") && (flag === "-lc" || flag === "-c"))
    return script;
  if (isPowerShell(shell) && flag.toLowerCase() === "-command") return script;
  if (name === "cmd" && flag.toLowerCase() === "/c") return script;
  return null;
}

function shellName(shell: string): string {
  const base = shell.split(/[\\/]/).pop() ?? shell;
  const dot = base.lastIndexOf(".");
  return (dot > 0 ? base.slice(0, dot) : base).toLowerCase();
}

function isPowerShell(shell: string): boolean {
  const name = shellName(shell);
  return name === "pwsh" || name === "powershell";
}

/** `[cd DIR &&] apply_patch <<[-]DELIM` on the first line, then the heredoc. */
const OPENING =
  /^\s*(?:cd[ \t]+('[^']*'|"[^"$`\\]*"|[^\s'"`$;&|<>()\\]+)[ \t]*&&\s*)?(?:apply_patch|applypatch)[ \t]*<<(-?)[ \t]*('[^'\n]+'|"[^"\n]+"|[^\s'"`;&|<>()]+)[ \t]*\n/;

function extractFromScript(script: string): ExtractedPatch | null {
  const match = OPENING.exec(script);
  if (match === null) return null;
  const [opening, cdArg, dash, rawDelimiter] = match as unknown as [
    string,
    string | undefined,
    string,
    string,
  ];
  const delimiter = unquote(rawDelimiter);
  const stripTabs = dash === "-";
  const rest = script.slice(opening.length);
  const lines = rest.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = stripTabs ? lines[i]!.replace(/^\t+/, "") : lines[i]!;
    if (line !== delimiter) continue;
    // Nothing may follow the heredoc: `… EOF && echo done` is not an apply_patch call.
    if (
      lines
        .slice(i + 1)
        .join("\n")
        .trim() !== ""
    )
      return null;
    const patch = lines.slice(0, i).join("\n").replace(/\n+$/, "");
    return cdArg === undefined ? { patch } : { patch, workdir: unquote(cdArg) };
  }
  return null;
}

function unquote(word: string): string {
  const first = word[0];
  if ((first === "'" || first === '"') && word.length >= 2 && word.endsWith(first)) return word.slice(1, -1);
  return word;
}
