/**
 * The tools of one turn: the thread's built-in tools, its MCP servers' tools (once started) and
 * the client tools in force for the turn, in that order (Codex appends dynamic tools last).
 * Built fresh for every turn, so a turn that brings its own client tools never changes what
 * another turn sees.
 *
 * Names must be unique: a client tool named like a built-in or MCP tool is refused with an
 * error naming both, unless the front-end lets client tools win (the HTTP proxy: the client's
 * tool replaces ours for that turn).
 */
import type { ClientToolSpec } from "../protocol/client-tools.js";
import { clientToolDefinitions } from "./client-tools.js";
import { type ToolDefinition, toolName } from "./types.js";

export interface TurnToolsInput {
  builtins: readonly ToolDefinition[];
  mcp: readonly ToolDefinition[];
  client: readonly ClientToolSpec[];
  /** A client tool hides a built-in or MCP tool of the same name instead of being refused. */
  clientToolsWin?: boolean;
}

export class ToolNameClashError extends Error {
  override name = "ToolNameClashError";
}

/** The turn's definitions; throws ToolNameClashError on a name used twice. */
export function buildTurnTools(input: TurnToolsInput): ToolDefinition[] {
  const client = clientToolDefinitions(input.client);
  const clientNames = new Set<string>();
  for (const definition of client) {
    const name = toolName(definition);
    if (clientNames.has(name)) throw new ToolNameClashError(`client tool \`${name}\` is given twice`);
    clientNames.add(name);
  }
  const ours: ToolDefinition[] = [];
  for (const definition of [...input.builtins, ...input.mcp]) {
    const name = toolName(definition);
    if (!clientNames.has(name)) {
      ours.push(definition);
      continue;
    }
    if (input.clientToolsWin) continue;
    const what = definition.mcpTool
      ? `the MCP tool \`${name}\` (server \`${definition.mcpTool.server}\`)`
      : `the built-in tool \`${name}\``;
    throw new ToolNameClashError(`client tool \`${name}\` clashes with ${what}; rename the client tool`);
  }
  return [...ours, ...client];
}
