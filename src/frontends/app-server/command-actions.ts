/**
 * How a command reads, for clients to display: the shell wrapper's script split into simple
 * commands, each classified as Codex's app-server does (`read`, `listFiles`, `search`,
 * `unknown`). Display only: nothing here decides policy. Echo-style helpers are left out when
 * the script does something recognisable (`echo done && ls` shows `ls`), kept otherwise.
 */
import { basename } from "node:path";
import { shellScriptOf } from "../../policy/safe-commands.js";
import { parseSimpleScript } from "../../policy/shell-parse.js";
import { shellQuote } from "../../util/shell-quote.js";
import type { CommandAction } from "./protocol/common.js";

const LIST = new Set(["ls", "tree", "exa", "eza"]);
const READ = new Set(["cat", "head", "tail", "nl", "less", "more", "bat"]);
const SEARCH = new Set(["rg", "grep", "egrep", "fgrep", "ag", "ack", "git-grep"]);
const HELPERS = new Set(["echo", "true", "printf", ":"]);
/** find arguments that make it act on what it finds: no longer a search. */
const FIND_ACTIONS = new Set(["-delete", "-exec", "-execdir", "-ok", "-okdir", "-fprint"]);

/** The simple commands of `argv` (the script of `bash -lc SCRIPT`, else argv itself); null when unreadable. */
function simpleCommands(argv: readonly string[]): string[][] | null {
  const script = shellScriptOf(argv);
  return script === null ? [[...argv]] : parseSimpleScript(script);
}

/** The command actions of `argv`, in order. */
export function commandActions(argv: readonly string[]): CommandAction[] {
  const commands = simpleCommands(argv);
  if (commands === null) return [{ type: "unknown", command: shellScriptOf(argv) ?? shellQuote(argv) }];
  const actions = commands.map((words) => ({ words, action: classify(words) }));
  const recognised = actions.some(({ action }) => action.type !== "unknown");
  return actions
    .filter(({ words }) => !(recognised && HELPERS.has(words[0] ?? "")))
    .map(({ action }) => action);
}

/** What allowing `argv` for good would mean: its first command's words (Codex's proposal). */
export function proposedAmendment(argv: readonly string[]): string[] | null {
  return simpleCommands(argv)?.[0] ?? null;
}

function classify(words: readonly string[]): CommandAction {
  const command = shellQuote(words);
  const [program = "", ...args] = words;
  const operands = args.filter((arg) => !arg.startsWith("-"));
  if (LIST.has(program)) return { type: "listFiles", command, path: operands[0] ?? null };
  if (program === "rg" && args.includes("--files"))
    return { type: "listFiles", command, path: operands[0] ?? null };
  if (READ.has(program) || (program === "sed" && args.includes("-n"))) {
    // sed -n 1,5p FILE: the script is an operand too; the file is the last one.
    const path = operands.at(-1);
    if (path !== undefined && (program !== "sed" || operands.length >= 2))
      return { type: "read", command, name: basename(path), path };
  }
  if (SEARCH.has(program))
    return { type: "search", command, query: operands[0] ?? null, path: operands[1] ?? null };
  if (program === "find" && !args.some((arg) => FIND_ACTIONS.has(arg))) {
    const nameAt = args.findIndex((arg) => arg === "-name" || arg === "-iname");
    const query = nameAt >= 0 ? (args[nameAt + 1] ?? null) : null;
    return { type: "search", command, query, path: args[0] && !args[0].startsWith("-") ? args[0] : null };
  }
  return { type: "unknown", command };
}
