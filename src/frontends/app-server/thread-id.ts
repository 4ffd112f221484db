/**
 * Thread ids are UUIDs; a malformed one gets Codex's error ("invalid thread id: invalid
 * character: expected an optional prefix of `urn:uuid:` followed by [0-9a-fA-F-], found `n`
 * at 1"), before any lookup.
 */
import { RpcError } from "./protocol/jsonrpc.js";

const UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;

/** Throws RpcError -32600 unless `id` is a UUID. */
export function checkThreadId(id: string): void {
  if (UUID.test(id)) return;
  throw RpcError.invalidRequest(`invalid thread id: ${uuidProblem(id)}`);
}

function uuidProblem(id: string): string {
  const body = id.startsWith("urn:uuid:") ? id.slice("urn:uuid:".length) : id;
  const offset = id.length - body.length;
  const bad = [...body].findIndex((char) => !/[0-9a-fA-F-]/.test(char));
  if (bad >= 0) {
    const char = [...body][bad];
    return `invalid character: expected an optional prefix of \`urn:uuid:\` followed by [0-9a-fA-F-], found \`${char}\` at ${offset + bad + 1}`;
  }
  return `invalid length: expected a UUID (8-4-4-4-12 hex digits), found ${body.length} characters`;
}
