/**
 * The MCP server: one SDK `Server` per connection (stdio has one, Streamable HTTP one per
 * session), all sharing one runtime (runtime.ts: threads, settings, tools and their state).
 * Responsibilities: initialize (serverInfo, capabilities tools + logging), tools/list,
 * tools/call → ServerTool.handle with a context (progress, elicitation, raw notifications,
 * cancellation; an `Idempotency-Key` header runs a call once, keyed-calls.ts), logging/setLevel. Every request gets an answer: unknown methods -32601 (SDK),
 * bad params -32602, tool failures `isError` results, a throwing tool an `isError` result too.
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  LoggingLevelSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { acceptAllSchemas } from "../../mcp/schema-validator.js";
import { traceCarrier } from "../common/trace-context.js";
import { IDEMPOTENCY_META_KEY } from "./keyed-calls.js";
import { SERVER_CAPABILITIES, SERVER_INFO } from "./server-info.js";
import type { ServerRuntime } from "./server-tool.js";
import { callTool, elicitationParams, elicitTimeout, errorResult, toolContext } from "./tool-call.js";
import { listEntry } from "./tool-list.js";

/**
 * Handlers are registered with a loose schema and check params themselves: the SDK turns a
 * schema failure into -32603 (internal error); a client's bad params deserve -32602.
 */
function looseRequest<M extends string>(method: M) {
  return z.object({ method: z.literal(method), params: z.unknown().optional() });
}

function parseParams<T extends z.ZodType>(schema: T, method: string, params: unknown): z.infer<T> {
  const parsed = schema.safeParse(params ?? {});
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const where = issue?.path.length ? `params.${issue.path.join(".")}` : "params";
  throw Object.assign(new Error(`Invalid params for ${method}: ${where}: ${issue?.message ?? "invalid"}`), {
    code: ErrorCode.InvalidParams,
  });
}

const elicitAnswer = z.record(z.string(), z.unknown());

/** A new SDK Server for one connection, serving the runtime's tools. */
export function createMcpServer(runtime: ServerRuntime): Server {
  const server = new Server(SERVER_INFO, {
    capabilities: structuredClone(SERVER_CAPABILITIES),
    jsonSchemaValidator: acceptAllSchemas,
  });
  server.setRequestHandler(looseRequest("tools/list"), (request) => {
    parseParams(ListToolsRequestSchema.shape.params, "tools/list", request.params);
    return { tools: runtime.tools.map(listEntry) };
  });
  server.setRequestHandler(looseRequest("tools/call"), (request, extra) => {
    const params = parseParams(CallToolRequestSchema.shape.params, "tools/call", request.params);
    const { name, arguments: args, _meta } = params;
    const tool = runtime.tools.find((candidate) => candidate.name === name);
    if (!tool) return errorResult(`Unknown tool '${name}'`);
    // Only a call without arguments needs the JSON Schema (built from zod at first use: ~20 ms).
    const required = args === undefined ? tool.inputSchema.required : undefined;
    if (Array.isArray(required) && typeof required[0] === "string")
      return errorResult(
        `Missing arguments for ${name} tool-call; the \`${required[0]}\` field is required.`,
      );

    const context = toolContext({
      runtime,
      signal: extra.signal,
      requestId: extra.requestId,
      progressToken: _meta?.progressToken,
      // MCP's `_meta` carries W3C trace context by its header names; else the HTTP request's.
      trace:
        traceCarrier(_meta?.traceparent, _meta?.tracestate) ??
        traceCarrier(extra.requestInfo?.headers.traceparent, extra.requestInfo?.headers.tracestate),
      notify(method, params) {
        extra.sendNotification({ method, params }).catch(() => {});
      },
      ...(server.getClientCapabilities()?.elicitation
        ? {
            elicit: (request) =>
              extra.sendRequest(
                { method: "elicitation/create", params: elicitationParams(request) },
                elicitAnswer,
                { timeout: elicitTimeout(runtime.settings) },
              ),
          }
        : {}),
    });
    // A resent call names the first with an Idempotency-Key header (HTTP) or in its `_meta`.
    const key = extra.requestInfo?.headers["idempotency-key"] ?? _meta?.[IDEMPOTENCY_META_KEY];
    if (typeof key === "string")
      return runtime.keyedCalls.call(key, name, args ?? {}, () => callTool(tool, args ?? {}, context));
    return callTool(tool, args ?? {}, context);
  });
  server.setRequestHandler(looseRequest("logging/setLevel"), (request) => {
    parseParams(z.object({ level: LoggingLevelSchema }), "logging/setLevel", request.params);
    return {};
  });
  return server;
}
