/**
 * Adding and removing `[mcp_servers.NAME]` in config.toml text, keeping everything else as
 * written (comments, order, formatting): a new server is appended as its own tables; a removed
 * one loses exactly its table lines. Every edit is checked by parsing the result: when the file
 * defines the servers in a form a line edit cannot handle (inline tables, dotted keys), the
 * whole file is re-serialized instead and `preserved` is false (comments are then lost).
 */
import { isDeepStrictEqual } from "node:util";
import { parse, stringify } from "smol-toml";

export interface TomlEdit {
  text: string;
  /** False when the file had to be re-serialized (its comments and layout are gone). */
  preserved: boolean;
}

type Table = Record<string, unknown>;

function serversOf(doc: Table): Table {
  const servers = doc.mcp_servers;
  return typeof servers === "object" && servers !== null && !Array.isArray(servers) ? (servers as Table) : {};
}

/** `text` with server `name` set to `server` (replacing an existing entry of that name). */
export function addMcpServer(text: string, name: string, server: Table): TomlEdit {
  const doc = parse(text) as Table;
  const base = name in serversOf(doc) ? removeMcpServer(text, name).text : text;
  const expected: Table = { ...doc, mcp_servers: { ...serversOf(doc), [name]: server } };
  const snippet = stringify({ mcp_servers: { [name]: server } });
  const trimmed = base.replace(/\s+$/, "");
  const candidate = `${trimmed === "" ? "" : `${trimmed}\n\n`}${snippet.replace(/\s+$/, "")}\n`;
  return verified(candidate, expected);
}

/** `text` without server `name`. Throws when there is no such server. */
export function removeMcpServer(text: string, name: string): TomlEdit {
  const doc = parse(text) as Table;
  const servers = serversOf(doc);
  if (!(name in servers)) throw new Error(`no MCP server named '${name}'`);
  const rest = { ...servers };
  delete rest[name];
  const expected: Table = { ...doc, mcp_servers: rest };
  if (Object.keys(rest).length === 0) delete expected.mcp_servers;
  const kept: string[] = [];
  let dropped: string[] = [];
  // Comments just above the next table belong to that table: keep them.
  const closeBlock = () => {
    let keepFrom = dropped.length;
    while (keepFrom > 0 && /^\s*(#.*)?$/.test(dropped[keepFrom - 1] ?? "")) keepFrom--;
    kept.push(...dropped.slice(keepFrom));
    dropped = [];
  };
  let inServer = false;
  for (const line of text.split("\n")) {
    if (/^\s*\[/.test(line)) {
      const ours = headerServer(line) === name;
      if (inServer && !ours) closeBlock();
      inServer = ours;
    }
    (inServer ? dropped : kept).push(line);
  }
  if (inServer) closeBlock();
  const candidate = `${kept
    .join("\n")
    .replace(/\n{3,}/g, "\n\n")
    .replace(/\s+$/, "")}\n`;
  return verified(candidate, expected);
}

/** The server a `[mcp_servers.NAME…]` header belongs to, or null for any other header. */
function headerServer(line: string): string | null {
  const match = /^\s*\[\s*mcp_servers\s*\.\s*(?:"([^"]*)"|'([^']*)'|([A-Za-z0-9_-]+))\s*[.\]]/.exec(line);
  if (!match) return null;
  return match[1] ?? match[2] ?? match[3] ?? null;
}

/** `candidate` when it parses to `expected`; else `expected` re-serialized (layout lost). */
export function verified(candidate: string, expected: Table): TomlEdit {
  try {
    if (isDeepStrictEqual(normalize(parse(candidate)), normalize(expected))) {
      return { text: candidate, preserved: true };
    }
  } catch {
    // The line edit broke the file: fall through to a full rewrite.
  }
  return { text: stringify(expected), preserved: false };
}

/** Plain data (no class instances), so parsed and built documents compare equal. */
function normalize(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value));
}
