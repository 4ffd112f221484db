/**
 * `permissionProfile/list` (Codex 0.171): the built-in profiles first, in Codex's order, then the
 * configured `[permissions.NAME]` ones by name, paged by a string offset. `allowed` says whether
 * the operator's requirements.toml lets a client choose it (config/requirements.ts; all without one).
 */
import { listPermissionProfiles } from "../../../config/permission-profiles.js";
import { profileAllowed } from "../../../config/requirements.js";
import type { ParamsOf, ResultOf } from "../protocol/client-requests.js";
import { RpcError } from "../protocol/jsonrpc.js";
import type { HandlerContext } from "./context.js";

export async function permissionProfileList(
  params: ParamsOf<"permissionProfile/list">,
  context: HandlerContext,
): Promise<ResultOf<"permissionProfile/list">> {
  const { permissionProfiles, requirements } = context.runtime.config;
  const all = listPermissionProfiles(permissionProfiles).map((profile) => ({
    ...profile,
    allowed: profileAllowed(requirements, profile.id),
  }));
  const start = params.cursor ? Number.parseInt(params.cursor, 10) : 0;
  if (!Number.isInteger(start) || start < 0 || start > all.length)
    throw RpcError.invalidRequest("Invalid request: unknown cursor");
  const end = params.limit ? Math.min(all.length, start + params.limit) : all.length;
  return { data: all.slice(start, end), nextCursor: end < all.length ? String(end) : null };
}
