/** Strict base64 for request fields (Buffer.from alone skips what it cannot read). */
import { RpcError } from "./protocol/jsonrpc.js";

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** The bytes of `text`; -32602 naming `field` when it is not valid base64. */
export function decodeBase64(text: string, field: string): Buffer {
  if (!BASE64.test(text)) throw RpcError.invalidParams(`Invalid request: \`${field}\` is not valid base64`);
  return Buffer.from(text, "base64");
}
