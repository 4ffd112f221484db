/**
 * `experimentalFeature/list`: the `[features]` flags tscodex reads, each on or off as the server's
 * configuration (or, with `threadId`, that thread's project configuration) sets it; and
 * `configRequirements/read`: the operator's requirements.toml (config/requirements.ts) in
 * Codex's shape, null when there is none.
 */
import { FEATURES, featureEnabled } from "../../../config/features.js";
import type { Config } from "../../../config/load.js";
import { requirementsWire } from "../../../config/requirements.js";
import type { ParamsOf, ResultOf } from "../protocol/client-requests.js";
import type { HandlerContext } from "./context.js";
import { page } from "./thread-queries.js";

export async function experimentalFeatureList(
  params: ParamsOf<"experimentalFeature/list">,
  context: HandlerContext,
): Promise<ResultOf<"experimentalFeature/list">> {
  const config = await configOf(params.threadId, context);
  const features = FEATURES.map((feature) => ({
    name: feature.name,
    stage: feature.stage,
    displayName: feature.displayName,
    description: feature.description,
    announcement: null,
    enabled: featureEnabled(feature, config.features),
    defaultEnabled: feature.defaultEnabled,
  }));
  return page(features, params.cursor, params.limit);
}

export async function configRequirementsRead(
  _params: ParamsOf<"configRequirements/read">,
  context: HandlerContext,
): Promise<ResultOf<"configRequirements/read">> {
  return { requirements: requirementsWire(context.runtime.config.requirements) };
}

/** The server's configuration, or the one thread `threadId` opens with in its cwd. */
async function configOf(threadId: string | null | undefined, context: HandlerContext): Promise<Config> {
  if (!threadId) return context.runtime.config;
  const channel = await context.runtime.open(threadId);
  return context.runtime.configWith({}, channel.settings.cwd);
}
