/**
 * `permissionProfile/list` (Codex 0.171): the built-in permission profiles. tscodex enforces no
 * managed requirements (no requirements.toml, see configRequirements/read), so every one is
 * allowed. Named `[permissions.*]` profiles are not served yet.
 */
import type { ParamsOf, ResultOf } from "../protocol/client-requests.js";
import { RpcError } from "../protocol/jsonrpc.js";
import type { HandlerContext } from "./context.js";

const BUILT_IN_PROFILES = [":read-only", ":workspace", ":danger-full-access"];

export async function permissionProfileList(
  params: ParamsOf<"permissionProfile/list">,
  _context: HandlerContext,
): Promise<ResultOf<"permissionProfile/list">> {
  const all = BUILT_IN_PROFILES.map((id) => ({ id, description: null, allowed: true }));
  const start = params.cursor ? Number.parseInt(params.cursor, 10) : 0;
  if (!Number.isInteger(start) || start < 0 || start > all.length)
    throw RpcError.invalidRequest("Invalid request: unknown cursor");
  const end = params.limit ? Math.min(all.length, start + params.limit) : all.length;
  return { data: all.slice(start, end), nextCursor: end < all.length ? String(end) : null };
}
