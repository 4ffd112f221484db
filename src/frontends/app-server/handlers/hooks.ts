/**
 * `hooks/list`: the same hooks `tscodex hooks list` shows (loaded as a new thread in that
 * directory would load them), one entry per asked-for directory. Trusting one is a
 * config/batchWrite of `hooks.state` with the hook's `currentHash`.
 */
import { resolve } from "node:path";
import { type CommandHook, loadHookSources } from "../../../hooks/index.js";
import type { ParamsOf, ResultOf } from "../protocol/client-requests.js";
import type { HandlerContext } from "./context.js";

type HookMetadata = ResultOf<"hooks/list">["data"][number]["hooks"][number];

export async function hooksList(
  params: ParamsOf<"hooks/list">,
  context: HandlerContext,
): Promise<ResultOf<"hooks/list">> {
  const { config } = context.runtime;
  const env = context.runtime.env;
  const cwds = params.cwds && params.cwds.length > 0 ? params.cwds : [process.cwd()];
  const data = await Promise.all(
    cwds.map(async (given) => {
      const cwd = resolve(given);
      const { hooks, warnings } = await loadHookSources({ home: config.home, cwd, env, bypassTrust: false });
      return {
        cwd,
        hooks: hooks.map(metadata),
        warnings,
        errors: [],
      };
    }),
  );
  return { data };
}

function metadata(hook: CommandHook): HookMetadata {
  return {
    key: hook.key,
    eventName: `${hook.event[0]?.toLowerCase() ?? ""}${hook.event.slice(1)}` as HookMetadata["eventName"],
    handlerType: "command",
    command: hook.command,
    async: false,
    matcher: hook.matcherText,
    currentHash: hook.hash,
    trustStatus: hook.trustStatus,
    enabled: true,
    isManaged: false,
    source: hook.layer,
    sourcePath: hook.source,
    displayOrder: hook.displayOrder,
    timeoutSec: hook.timeoutSec,
    statusMessage: hook.statusMessage,
  };
}
