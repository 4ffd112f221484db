/**
 * `list_mcp_resources`, `list_mcp_resource_templates`, `read_mcp_resource`: the model browses
 * what the configured MCP servers expose as resources. Offered always, as Codex does (with no
 * servers the lists are empty). Outputs are Codex's JSON (reference section 3): each resource
 * carries its `server`, other keys sorted; an unknown server is
 * `resources/list failed: unknown MCP server '{s}'`.
 */
import { z } from "zod";
import { describeMcpError, sortKeys } from "../../mcp/render.js";
import { defineFunctionTool } from "../define-tool.js";
import { type ToolDefinition, ToolError } from "../types.js";

/** One page of a server's list. */
export interface McpListPage {
  items: Record<string, unknown>[];
  nextCursor: string | undefined;
}

/** What the resource tools need from the MCP client manager. */
export interface McpResourceSource {
  /** Servers that started, in name order. */
  readyServers(): string[];
  /** Whether the server declared the resources capability. */
  hasResources(server: string): boolean;
  listResources(server: string, cursor?: string): Promise<McpListPage>;
  listResourceTemplates(server: string, cursor?: string): Promise<McpListPage>;
  readResource(server: string, uri: string): Promise<Record<string, unknown>[]>;
}

/** Where the tools find the servers; null while none are configured. */
export type McpResourceSourceRef = () => McpResourceSource | null;

// Codex lists these keys in sorted order.
const listParameters = z.object({
  cursor: z
    .string()
    .optional()
    .describe("The nextCursor of a previous answer, to get the next page; needs `server`."),
  server: z.string().optional().describe("Only this MCP server's entries; omit to list every server's."),
});

const readParameters = z.object({
  server: z.string().describe("The MCP server that listed the resource."),
  uri: z.string().describe("The resource URI, as listed by list_mcp_resources."),
});

type ListKind = "resources" | "resourceTemplates";

const METHOD: Record<ListKind, string> = {
  resources: "resources/list",
  resourceTemplates: "resources/templates/list",
};

/** The three resource tools, in Codex's order. */
export function mcpResourceTools(source: McpResourceSourceRef): ToolDefinition[] {
  return [
    listTool("list_mcp_resources", "resources", source),
    listTool("list_mcp_resource_templates", "resourceTemplates", source),
    readTool(source),
  ];
}

function listTool(name: string, kind: ListKind, source: McpResourceSourceRef): ToolDefinition {
  const what =
    kind === "resources" ? "resources (files, records, documents)" : "resource templates (URI patterns)";
  return defineFunctionTool({
    name,
    description:
      `List the ${what} that the configured MCP servers expose, each with the server it belongs to. ` +
      "Pass `server` to list one server only (and `cursor` to page through it).",
    parameters: listParameters,
    supportsParallel: true,
    handle: async (args) => {
      const method = METHOD[kind];
      const servers = source();
      const fetchPage = (server: string, cursor?: string) =>
        kind === "resources"
          ? (servers?.listResources(server, cursor) ?? emptyPage())
          : (servers?.listResourceTemplates(server, cursor) ?? emptyPage());
      if (args.server === undefined) {
        if (args.cursor !== undefined) throw ToolError.respond(`${method} failed: a cursor needs a server`);
        const all: Record<string, unknown>[] = [];
        for (const server of servers?.readyServers() ?? []) {
          // Listing everything skips servers without resources and those that fail.
          if (!servers?.hasResources(server)) continue;
          try {
            let cursor: string | undefined;
            do {
              const page = await fetchPage(server, cursor);
              all.push(...page.items.map((item) => withServer(server, item)));
              cursor = page.nextCursor;
            } while (cursor);
          } catch {}
        }
        return { content: JSON.stringify({ [kind]: all }) };
      }
      const server = args.server;
      if (!servers?.readyServers().includes(server)) {
        throw ToolError.respond(`${method} failed: unknown MCP server '${server}'`);
      }
      try {
        const page = await fetchPage(server, args.cursor);
        const body: Record<string, unknown> = {
          server,
          [kind]: page.items.map((item) => withServer(server, item)),
        };
        if (page.nextCursor) body.nextCursor = page.nextCursor;
        return { content: JSON.stringify(body) };
      } catch (error) {
        throw ToolError.respond(`${method} failed: ${describeMcpError(error)}`, { cause: error });
      }
    },
  });
}

function readTool(source: McpResourceSourceRef): ToolDefinition {
  return defineFunctionTool({
    name: "read_mcp_resource",
    description:
      "Read one resource from an MCP server, by the server name and URI that list_mcp_resources gave. " +
      "Returns the resource's contents (text, or base64 blobs).",
    parameters: readParameters,
    supportsParallel: true,
    handle: async (args) => {
      const servers = source();
      if (!servers?.readyServers().includes(args.server)) {
        throw ToolError.respond(`resources/read failed: unknown MCP server '${args.server}'`);
      }
      try {
        const contents = await servers.readResource(args.server, args.uri);
        return {
          content: JSON.stringify({ server: args.server, uri: args.uri, contents: contents.map(sortKeys) }),
        };
      } catch (error) {
        throw ToolError.respond(`resources/read failed: ${describeMcpError(error)}`, { cause: error });
      }
    },
  });
}

/** `{server, …item}`: the server first, the item's keys sorted (Codex's layout). */
function withServer(server: string, item: Record<string, unknown>): Record<string, unknown> {
  const sorted = sortKeys(item);
  return { server, ...(typeof sorted === "object" && sorted !== null ? sorted : {}) };
}

async function emptyPage(): Promise<McpListPage> {
  return { items: [], nextCursor: undefined };
}
