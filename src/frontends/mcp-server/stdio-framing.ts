/**
 * Newline-delimited JSON-RPC framing for the stdio transport: bytes → lines (split on "\n"
 * only, never readline) with a size bound, and each line → a message or the error reply it
 * deserves (-32700 for JSON that does not parse, -32600 for anything that is not one valid
 * JSON-RPC message: batches, scalars, bad ids, non-object params, lines over the bound).
 */
import { ErrorCode, type JSONRPCMessage, JSONRPCMessageSchema } from "@modelcontextprotocol/sdk/types.js";

type RequestId = string | number;

/** What one line amounts to: a message to deliver, an error to send back, or nothing to do. */
export type LineOutcome =
  | { kind: "message"; message: JSONRPCMessage }
  | { kind: "reply"; id: RequestId | null; code: number; message: string }
  | { kind: "ignore"; reason: string };

/** Bytes kept of each end of an oversized line, to find its id. */
const EDGE_BYTES = 512;

/**
 * Splits a byte stream into lines of at most `maxBytes`. A longer line is not buffered: only
 * its first and last bytes are kept, and it comes out as `oversized` with its length.
 */
export class LineSplitter {
  private parts: Buffer[] = [];
  private size = 0;
  private head: Buffer | null = null;
  private tail = Buffer.alloc(0);

  constructor(
    private readonly maxBytes: number,
    private readonly onLine: (line: Buffer) => void,
    private readonly onOversized: (edges: { head: string; tail: string; bytes: number }) => void,
  ) {}

  push(chunk: Buffer): void {
    let start = 0;
    for (;;) {
      const newline = chunk.indexOf(10, start);
      if (newline < 0) {
        this.take(chunk.subarray(start));
        return;
      }
      this.take(chunk.subarray(start, newline));
      this.endLine();
      start = newline + 1;
    }
  }

  private take(piece: Buffer): void {
    if (piece.length === 0) return;
    this.size += piece.length;
    if (this.head === null && this.size <= this.maxBytes) {
      this.parts.push(piece);
      return;
    }
    if (this.head === null) {
      const all = Buffer.concat(this.parts);
      this.head = Buffer.from(Buffer.concat([all, piece]).subarray(0, EDGE_BYTES));
      this.parts = [];
    }
    const joined = Buffer.concat([this.tail, piece]);
    this.tail = Buffer.from(joined.subarray(Math.max(0, joined.length - EDGE_BYTES)));
  }

  private endLine(): void {
    if (this.head !== null) {
      const edges = { head: this.head.toString("utf8"), tail: this.tail.toString("utf8"), bytes: this.size };
      this.head = null;
      this.tail = Buffer.alloc(0);
      this.size = 0;
      this.onOversized(edges);
      return;
    }
    const line = Buffer.concat(this.parts);
    this.parts = [];
    this.size = 0;
    this.onLine(line);
  }
}

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
      code: ErrorCode.ParseError,
      message: "Parse error: the line is not JSON",
    };
  }
  if (Array.isArray(value)) {
    const message =
      value.length === 0
        ? "Invalid Request: empty batch"
        : "Invalid Request: batches are not supported; send one message per line";
    return { kind: "reply", id: null, code: ErrorCode.InvalidRequest, message };
  }
  const parsed = JSONRPCMessageSchema.safeParse(value);
  if (parsed.success) return { kind: "message", message: parsed.data };
  if (typeof value !== "object" || value === null) {
    return {
      kind: "reply",
      id: null,
      code: ErrorCode.InvalidRequest,
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
    code: ErrorCode.InvalidRequest,
    message: `Invalid Request: not a valid JSON-RPC 2.0 message${where}`,
  };
}

/** The reply to a line longer than `maxBytes`, addressed to its id when either end shows it. */
export function oversizedReply(
  edges: { head: string; tail: string; bytes: number },
  maxBytes: number,
): LineOutcome {
  return {
    kind: "reply",
    id: idAtEdges(edges.head, edges.tail),
    code: ErrorCode.InvalidRequest,
    message:
      `Invalid Request: message of ${edges.bytes} bytes is over the limit of ${maxBytes} bytes ` +
      "(config mcp_server.max_message_bytes)",
  };
}

function validId(id: unknown): RequestId | null {
  if (typeof id === "string") return id;
  return typeof id === "number" && Number.isInteger(id) ? id : null;
}

// The outermost object's first key (after "jsonrpc") or its last key; a nested "id" cannot match
// either: at the start it would follow another key, at the end more closing braces would follow.
const ID_VALUE = String.raw`(-?\d+|"(?:[^"\\]|\\.){0,200}")`;
const HEAD_ID = new RegExp(
  String.raw`^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*${ID_VALUE}\s*[,}]`,
);
const TAIL_ID = new RegExp(String.raw`[,{]\s*"id"\s*:\s*${ID_VALUE}\s*\}\s*$`);

function idAtEdges(head: string, tail: string): RequestId | null {
  const raw = HEAD_ID.exec(head)?.[1] ?? TAIL_ID.exec(tail)?.[1];
  if (raw === undefined) return null;
  try {
    return validId(JSON.parse(raw));
  } catch {
    return null;
  }
}
