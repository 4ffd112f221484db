/**
 * How a command shows in an ACP client: the title is the command as the user would type it (the
 * script of a `bash -lc` wrapper, else the quoted argv); a command that only reads files is a
 * `read` tool call, one that only lists or searches a `search`, with the files and directories it
 * touches as follow-along locations (classified as the app-server's commandActions does).
 */
import { resolve } from "node:path";
import type { ToolCallLocation, ToolKind } from "@agentclientprotocol/sdk";
import { shellScriptOf } from "../../policy/safe-commands.js";
import { shellQuote } from "../../util/shell-quote.js";
import { commandActions } from "../app-server/command-actions.js";

export interface CommandView {
  /** The command line as typed (also the `rawInput.command`). */
  commandLine: string;
  title: string;
  kind: ToolKind;
  locations: ToolCallLocation[];
}

export function commandView(argv: readonly string[], cwd: string): CommandView {
  const commandLine = shellScriptOf(argv) ?? shellQuote(argv);
  const actions = commandActions(argv);
  const plain = { commandLine, title: commandLine, kind: "execute" as const, locations: [] };
  if (actions.length === 0 || actions.some((action) => action.type === "unknown")) return plain;
  const locations: ToolCallLocation[] = [];
  for (const action of actions) {
    const path = "path" in action ? action.path : null;
    if (path) locations.push({ path: resolve(cwd, path) });
  }
  if (actions.every((action) => action.type === "read")) return { ...plain, kind: "read", locations };
  return { ...plain, kind: "search", locations };
}
