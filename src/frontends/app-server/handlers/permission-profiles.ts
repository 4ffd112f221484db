/**
 * `permissionProfile/list` (Codex 0.171): the built-in permission profiles, each `allowed` as the
 * operator's requirements.toml says (config/requirements.ts; all of them without one). Named
 * `[permissions.*]` profiles are not served yet.
 */
import { profileAllowed } from "../../../config/requirements.js";
import type { ParamsOf, ResultOf } from "../protocol/client-requests.js";
import { RpcError } from "../protocol/jsonrpc.js";
import type { HandlerContext } from "./context.js";

const BUILT_IN_PROFILES = [":read-only", ":workspace", ":danger-full-access"];

export async function permissionProfileList(
  params: ParamsOf<"permissionProfile/list">,
  context: HandlerContext,
): Promise<ResultOf<"permissionProfile/list">> {
  const { requirements } = context.runtime.config;
  const all = BUILT_IN_PROFILES.map((id) => ({
    id,
    description: null,
    allowed: profileAllowed(requirements, id),
  }));
  const start = params.cursor ? Number.parseInt(params.cursor, 10) : 0;
  if (!Number.isInteger(start) || start < 0 || start > all.length)
    throw RpcError.invalidRequest("Invalid request: unknown cursor");
  const end = params.limit ? Math.min(all.length, start + params.limit) : all.length;
  return { data: all.slice(start, end), nextCursor: end < all.length ? String(end) : null };
}
