/**
 * The stdio transport: newline-delimited JSON-RPC on stdin/stdout (nothing else may write to
 * stdout), one client. Lines are split on "\n" only (a trailing "\r" is dropped); a line longer
 * than the bound is answered with a parse error and skipped, so memory stays bounded.
 * The connection ends when stdin ends or closes.
 */
import type { Readable, Writable } from "node:stream";
import { ErrorCode, encodeError, RpcError } from "./protocol/jsonrpc.js";
import type { AppServerRuntime } from "./runtime.js";
import { ClientSession } from "./session.js";

/** Largest message accepted (images arrive inline as data URLs). */
export const MAX_LINE_BYTES = 64 * 1024 * 1024;

export interface StdioConnection {
  /** Resolves when the client closed its end. */
  done: Promise<void>;
  /** End the connection from our side (shutdown). */
  close(): void;
}

/** Serve one client over `input` / `output` (default this process's stdin / stdout). */
export function serveStdio(
  runtime: AppServerRuntime,
  input: Readable = process.stdin,
  output: Writable = process.stdout,
): StdioConnection {
  const session = new ClientSession(runtime, {
    send: (text) => output.write(`${text}\n`),
    backlog: () => output.writableLength,
  });
  let buffered: Buffer[] = [];
  let size = 0;
  let skipping = false;
  const line = (bytes: Buffer): void => {
    const text = bytes.toString("utf8").replace(/\r$/, "");
    if (text.trim() !== "") session.receive(text);
  };
  input.on("data", (chunk: Buffer) => {
    let start = 0;
    for (let newline = chunk.indexOf(10); newline >= 0; newline = chunk.indexOf(10, start)) {
      const piece = chunk.subarray(start, newline);
      start = newline + 1;
      if (skipping) {
        skipping = false;
        continue;
      }
      line(buffered.length ? Buffer.concat([...buffered, piece]) : piece);
      buffered = [];
      size = 0;
    }
    const rest = chunk.subarray(start);
    if (skipping || rest.length === 0) return;
    size += rest.length;
    if (size > MAX_LINE_BYTES) {
      buffered = [];
      size = 0;
      skipping = true;
      session.send(
        encodeError(
          null,
          new RpcError(ErrorCode.ParseError, `Parse error: message larger than ${MAX_LINE_BYTES} bytes`),
        ),
      );
      return;
    }
    // Copied: the stream may reuse its chunk buffer.
    buffered.push(Buffer.from(rest));
  });
  const done = new Promise<void>((resolve) => {
    const end = (): void => {
      session.close();
      resolve();
    };
    input.once("end", end);
    input.once("close", end);
  });
  return { done, close: () => session.close() };
}
