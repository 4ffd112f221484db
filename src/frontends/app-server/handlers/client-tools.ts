/**
 * `dynamicTools` (client tools) as the core takes them. They are 0.169's experimental API: a
 * client must opt in with `initialize.capabilities.experimentalApi`, as with Codex.
 */
import type { ClientToolSpec } from "../../../protocol/client-tools.js";
import type { DynamicToolSpec } from "../protocol/common.js";
import { RpcError } from "../protocol/jsonrpc.js";
import type { SessionHandle } from "./context.js";

/** The core's specs for `tools`; undefined when none were given. Throws without the opt-in. */
export function clientToolsOf(
  tools: DynamicToolSpec[] | null | undefined,
  session: SessionHandle,
  method: string,
): ClientToolSpec[] | undefined {
  if (tools === null || tools === undefined) return undefined;
  if (!session.experimentalApi)
    throw RpcError.invalidRequest(
      `${method}.dynamicTools requires the experimental API: initialize with capabilities.experimentalApi = true`,
    );
  const seen = new Set<string>();
  for (const tool of tools) {
    if (seen.has(tool.name))
      throw RpcError.invalidParams(`Invalid request: dynamicTools: \`${tool.name}\` is declared twice`);
    seen.add(tool.name);
  }
  return tools.map(({ name, description, inputSchema }) => ({ name, description, inputSchema }));
}
