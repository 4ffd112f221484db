/**
 * The stdio transport's byte-level framing, free of the MCP SDK so it runs before the SDK is
 * loaded: bytes → lines (split on "\n" only, never readline) with a size bound, and the reply
 * owed to a line over that bound. What a complete line means is stdio-framing.ts's business.
 */
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";

/** A JSON-RPC request id. */
export type RequestId = string | number;

/** JSON-RPC's own error codes (the SDK's ErrorCode has the same values). */
export const JSONRPC_PARSE_ERROR = -32700;
export const JSONRPC_INVALID_REQUEST = -32600;

/** What one line amounts to: a message to deliver, an error to send back, or nothing to do. */
export type LineOutcome =
  | { kind: "message"; message: JSONRPCMessage }
  | { kind: "reply"; id: RequestId | null; code: number; message: string }
  | { kind: "ignore"; reason: string };

/** The first and last bytes of an oversized line, and its length. */
export interface OversizedLine {
  head: string;
  tail: string;
  bytes: number;
}

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
    private readonly onOversized: (edges: OversizedLine) => void,
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

/** The reply to a line longer than `maxBytes`, addressed to its id when either end shows it. */
export function oversizedReply(edges: OversizedLine, maxBytes: number): LineOutcome {
  return {
    kind: "reply",
    id: idAtEdges(edges.head, edges.tail),
    code: JSONRPC_INVALID_REQUEST,
    message:
      `Invalid Request: message of ${edges.bytes} bytes is over the limit of ${maxBytes} bytes ` +
      "(config mcp_server.max_message_bytes)",
  };
}

/** `id` when it is a valid JSON-RPC id (a string or an integer), else null. */
export function validId(id: unknown): RequestId | null {
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
