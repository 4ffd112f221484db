/**
 * `permissionProfile/list` (Codex 0.171): the built-in profiles first, in Codex's order, then the
 * configured `[permissions.NAME]` ones by name, paged by a string offset. `allowed` says whether
 * the operator's requirements let a client choose it.
 */
import { listPermissionProfiles } from "../../../config/permission-profiles.js";
import type { ParamsOf, ResultOf } from "../protocol/client-requests.js";
import { RpcError } from "../protocol/jsonrpc.js";
import type { HandlerContext } from "./context.js";

export async function permissionProfileList(
  params: ParamsOf<"permissionProfile/list">,
  context: HandlerContext,
): Promise<ResultOf<"permissionProfile/list">> {
  const all = listPermissionProfiles(context.runtime.config.permissionProfiles).map((profile) => ({
    ...profile,
    allowed: true,
  }));
  const start = params.cursor ? Number.parseInt(params.cursor, 10) : 0;
  if (!Number.isInteger(start) || start < 0 || start > all.length)
    throw RpcError.invalidRequest("Invalid request: unknown cursor");
  const end = params.limit ? Math.min(all.length, start + params.limit) : all.length;
  return { data: all.slice(start, end), nextCursor: end < all.length ? String(end) : null };
}
