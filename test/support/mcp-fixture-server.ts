/**
 * A small MCP server for tests, on the SDK's low-level Server (so schemas go out exactly as
 * written here). Tools:
 * - `echo {text, n?}` → text `echo: {text}`
 * - `fail` → `isError: true` with text `it failed`
 * - `throws` → a JSON-RPC error -32000 `boom`
 * - `image` → text `an image:` and a 4×3 PNG
 * - `structured` → structuredContent `{ok: true}`
 * - `slow {ms?, steps?}` → reports `steps` progress notifications ("step 1 of N", …) when the
 *   call asked for progress, waits `ms` (default 60 s), then `done`
 * - `loose {…}` → its input schema leaves out `type` fields; answers with its arguments
 * - `dotted.name` → `dotted`
 * All of them are annotated `readOnlyHint: true` (they change nothing), so approval modes let
 * them run. Resources: `fixture://readme` (text/plain `fixture readme body`); template
 * `fixture://notes/{id}`.
 *
 * `FIXTURE_SET=approvals` serves other tools instead, for approval modes and elicitation:
 * - `ro` (`readOnlyHint: true`), `plain` (no annotations), `destroy` (`destructiveHint: true`):
 *   each answers `<name> ran`; `FIXTURE_CALLLOG` names a file each call appends its tool name to
 * - `ask_name`: asks its client for a name by form elicitation; answers `Hello, NAME!`, or
 *   `elicitation: ACTION` when the answer is not an accepted name
 *
 * Over stdio (`runStdioFixture`, built into a script by mcp-fixture.ts, whose loader reads the
 * environment first), `FIXTURE_MODE` picks a misbehaviour: `crash` (exits at startup,
 * complaining on stderr), `hang` (never answers); `FIXTURE_PIDFILE` names a file each server
 * appends its pid to.
 * Over Streamable HTTP: `startHttpFixture()` on 127.0.0.1, an ephemeral port.
 */
import { appendFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import {
  CallToolRequestSchema,
  type CallToolResult,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";

export const TINY_PNG =
  "iVBORw0KGgoAAAANSUhEUgAAAAQAAAADCAIAAAA7ljmRAAAAEElEQVR4nGP4z8AARww4OQD1MQv1NXv7ggAAAABJRU5ErkJggg==";

/** The `loose` tool's input schema, as the server lists it (nested `type`s missing on purpose). */
export const LOOSE_SCHEMA = {
  type: "object",
  properties: {
    query: { description: "what to look for" },
    limit: { type: "integer", minimum: 1 },
    tags: { items: { enum: ["a", "b"] } },
    options: { properties: { deep: { type: "boolean" } } },
    mode: { enum: [1, 2] },
  },
  required: ["query"],
} as const;

const PLAIN_TOOLS = [
  {
    name: "echo",
    description: "Echo the text back.",
    inputSchema: {
      type: "object",
      properties: { text: { type: "string" }, n: { type: "integer" } },
      required: ["text"],
    },
  },
  { name: "fail", description: "Always reports an error.", inputSchema: { type: "object" } },
  { name: "throws", description: "Always answers with a JSON-RPC error.", inputSchema: { type: "object" } },
  { name: "image", description: "Returns a tiny PNG.", inputSchema: { type: "object" } },
  {
    name: "structured",
    description: "Returns structured content.",
    inputSchema: { type: "object" },
    outputSchema: { type: "object", properties: { ok: { type: "boolean" } } },
  },
  {
    name: "slow",
    description: "Waits, then answers.",
    inputSchema: { type: "object", properties: { ms: { type: "number" } } },
  },
  { name: "loose", description: "A schema without types.", inputSchema: LOOSE_SCHEMA },
  { name: "dotted.name", description: "A name with a dot.", inputSchema: { type: "object" } },
];

const READ_ONLY = { readOnlyHint: true };
const TOOLS = PLAIN_TOOLS.map((tool) => ({ ...tool, annotations: READ_ONLY }));

const APPROVAL_TOOLS = [
  { name: "ro", description: "Reads.", inputSchema: { type: "object" }, annotations: READ_ONLY },
  { name: "plain", description: "Says nothing about itself.", inputSchema: { type: "object" } },
  {
    name: "destroy",
    description: "Destroys.",
    inputSchema: { type: "object" },
    annotations: { readOnlyHint: false, destructiveHint: true },
  },
  { name: "ask_name", description: "Asks the user a name.", inputSchema: { type: "object" } },
];

const text = (value: string) => ({ type: "text" as const, text: value });

async function callApprovalTool(server: Server, name: string): Promise<CallToolResult> {
  // Which calls reached the server (a refused call must not).
  if (process.env.FIXTURE_CALLLOG) appendFileSync(process.env.FIXTURE_CALLLOG, `${name}\n`);
  if (name !== "ask_name") return { content: [text(`${name} ran`)] };
  const answer = await server.elicitInput({
    message: "What is your name?",
    requestedSchema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] },
  });
  const given = answer.content?.name;
  if (answer.action === "accept" && typeof given === "string") return { content: [text(`Hello, ${given}!`)] };
  return { content: [text(`elicitation: ${answer.action}`)] };
}

async function callTool(
  name: string,
  args: Record<string, unknown>,
  signal: AbortSignal,
  progress: (message: string, n: number, total: number) => Promise<void>,
): Promise<CallToolResult> {
  switch (name) {
    case "echo":
      return { content: [text(`echo: ${String(args.text)}`)] };
    case "fail":
      return { content: [text("it failed")], isError: true };
    case "throws":
      // A plain object with a code: the SDK sends code and message as they are.
      throw Object.assign(new Error("boom"), { code: -32000 });
    case "image":
      return { content: [text("an image:"), { type: "image", data: TINY_PNG, mimeType: "image/png" }] };
    case "structured":
      return { content: [text('{"ok":true}')], structuredContent: { ok: true } };
    case "slow":
      for (let step = 1, steps = Number(args.steps ?? 0); step <= steps; step++)
        await progress(`step ${step} of ${steps}`, step, steps);
      await sleep(typeof args.ms === "number" ? args.ms : 60_000, undefined, { signal }).catch(() => {});
      return { content: [text("done")] };
    case "loose":
      return { content: [text(JSON.stringify(args))] };
    case "dotted.name":
      return { content: [text("dotted")] };
    default:
      throw Object.assign(new Error(`unknown tool ${name}`), { code: -32602 });
  }
}

/** A fixture server instance, not connected yet; `set` picks its tools (see the header). */
export function createFixtureServer(set: "default" | "approvals" = "default"): Server {
  const server = new Server(
    { name: "fixture", version: "1.0.0" },
    { capabilities: { tools: {}, resources: {} } },
  );
  const approvals = set === "approvals";
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: approvals ? APPROVAL_TOOLS : TOOLS,
  }));
  server.setRequestHandler(CallToolRequestSchema, (request, extra) =>
    approvals
      ? callApprovalTool(server, request.params.name)
      : callTool(
          request.params.name,
          request.params.arguments ?? {},
          extra.signal,
          async (message, n, total) => {
            const progressToken = request.params._meta?.progressToken;
            if (progressToken === undefined) return;
            await extra.sendNotification({
              method: "notifications/progress",
              params: { progressToken, progress: n, total, message },
            });
          },
        ),
  );
  server.setRequestHandler(ListResourcesRequestSchema, async () => ({
    resources: [{ uri: "fixture://readme", name: "readme", mimeType: "text/plain" }],
  }));
  server.setRequestHandler(ListResourceTemplatesRequestSchema, async () => ({
    resourceTemplates: [{ uriTemplate: "fixture://notes/{id}", name: "note", mimeType: "text/plain" }],
  }));
  server.setRequestHandler(ReadResourceRequestSchema, async (request) => {
    const { uri } = request.params;
    if (uri !== "fixture://readme") throw Object.assign(new Error(`no resource ${uri}`), { code: -32002 });
    return { contents: [{ uri, mimeType: "text/plain", text: "fixture readme body" }] };
  });
  return server;
}

/** Serve over stdio (the script's loader in mcp-fixture.ts handles FIXTURE_PIDFILE and FIXTURE_MODE). */
export async function runStdioFixture(): Promise<void> {
  const set = process.env.FIXTURE_SET === "approvals" ? "approvals" : "default";
  await createFixtureServer(set).connect(new StdioServerTransport());
}

export interface HttpFixture {
  /** e.g. http://127.0.0.1:41234/mcp */
  url: string;
  /** Requests received (method and the Authorization header), for checking headers. */
  requests: { method: string; authorization: string | undefined }[];
  close(): Promise<void>;
}

/**
 * Serve over Streamable HTTP (stateless: one server per request) on 127.0.0.1. `accepts`, when
 * given, gates every request on its Authorization header: a refused one gets 401 invalid_token.
 */
export async function startHttpFixture(
  options: { accepts?: (authorization: string | undefined) => boolean } = {},
): Promise<HttpFixture> {
  const requests: HttpFixture["requests"] = [];
  const http = createServer((req, res) => {
    requests.push({ method: req.method ?? "", authorization: req.headers.authorization });
    if (options.accepts && !options.accepts(req.headers.authorization)) {
      res.writeHead(401, { "www-authenticate": 'Bearer error="invalid_token"' }).end();
      return;
    }
    if (req.method !== "POST") {
      res.writeHead(405).end();
      return;
    }
    const server = createFixtureServer();
    const transport = new StreamableHTTPServerTransport({});
    res.on("close", () => {
      void transport.close();
      void server.close();
    });
    server
      .connect(transport)
      .then(() => transport.handleRequest(req, res))
      .catch(() => {
        if (!res.headersSent) res.writeHead(500).end();
      });
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        http.closeAllConnections();
        http.close(() => resolve());
      }),
  };
}
