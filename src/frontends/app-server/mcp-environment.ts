/**
 * Codex 0.171's `environmentId` on the MCP methods: which execution environment's registration
 * of a server a client means. tscodex runs every MCP server in its one environment, Codex's
 * `local`, and registers them thread-wide, so `local` (or no id) selects the server as before.
 */
import { RpcError } from "./protocol/jsonrpc.js";

/** The one execution environment tscodex has (Codex's name for it). */
export const LOCAL_ENVIRONMENT = "local";

/** Accept `environmentId` when it names the local environment (or none); else -32600. */
export function checkMcpEnvironment(environmentId: string | null | undefined): void {
  if (environmentId === null || environmentId === undefined || environmentId === LOCAL_ENVIRONMENT) return;
  throw RpcError.invalidRequest(
    `unknown environment \`${environmentId}\`: tscodex runs MCP servers only in the \`${LOCAL_ENVIRONMENT}\` environment`,
  );
}
