/**
 * What one complete stdio line means, by the MCP SDK's schemas: a message or the error reply it
 * deserves (-32700 for JSON that does not parse, -32600 for anything that is not one valid
 * JSON-RPC message: batches, scalars, bad ids, non-object params). The byte framing and the
 * reply to an oversized line are in line-splitter.ts, which needs no SDK.
 */
import { JSONRPCMessageSchema } from "@modelcontextprotocol/sdk/types.js";
import { JSONRPC_INVALID_REQUEST, JSONRPC_PARSE_ERROR, type LineOutcome, validId } from "./line-splitter.js";

/** The outcome of one complete line. */
export function classifyLine(line: string): LineOutcome {
  if (line.trim() === "") return { kind: "ignore", reason: "empty line" };
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return {
      kind: "reply",
      id: null,
      code: JSONRPC_PARSE_ERROR,
      message: "Parse error: the line is not JSON",
    };
  }
  return classifyValue(value);
}

/** The outcome of a line whose JSON is `value`. */
export function classifyValue(value: unknown): LineOutcome {
  if (Array.isArray(value)) {
    const message =
      value.length === 0
        ? "Invalid Request: empty batch"
        : "Invalid Request: batches are not supported; send one message per line";
    return { kind: "reply", id: null, code: JSONRPC_INVALID_REQUEST, message };
  }
  const parsed = JSONRPCMessageSchema.safeParse(value);
  if (parsed.success) return { kind: "message", message: parsed.data };
  if (typeof value !== "object" || value === null) {
    return {
      kind: "reply",
      id: null,
      code: JSONRPC_INVALID_REQUEST,
      message: "Invalid Request: a message must be a JSON object",
    };
  }
  const object = value as Record<string, unknown>;
  // A broken answer to one of our requests cannot itself be answered.
  if (!("method" in object) && ("result" in object || "error" in object))
    return { kind: "ignore", reason: "an invalid response" };
  const issue = parsed.error.issues[0];
  const where = issue?.path.length ? ` (at ${issue.path.join(".")})` : "";
  return {
    kind: "reply",
    id: validId(object.id),
    code: JSONRPC_INVALID_REQUEST,
    message: `Invalid Request: not a valid JSON-RPC 2.0 message${where}`,
  };
}
