/**
 * `modelProvider/list` and `modelProvider/capabilities/read`: the providers a thread may name
 * (the built-in `openai` and `oss`, then `[model_providers.ID]`), which one is the default, and
 * what the default one offers besides text. tscodex does not edit providers
 * (`modelProvider/config/write` is not served), so none is `canEdit`; the default can change
 * through config/value/write of `model_provider` or `modelProvider/default/set` (Codex 0.171),
 * unless the server's -c flags pin it.
 */
import type { ProviderConfig } from "../../../config/schema.js";
import type { ParamsOf, ResultOf } from "../protocol/client-requests.js";
import { RpcError } from "../protocol/jsonrpc.js";
import { writeConfigEdits } from "./config.js";
import type { HandlerContext } from "./context.js";

type ProviderSummary = ResultOf<"modelProvider/list">["data"][number];

export async function modelProviderList(
  _params: ParamsOf<"modelProvider/list">,
  context: HandlerContext,
): Promise<ResultOf<"modelProvider/list">> {
  const { config } = context.runtime;
  return {
    data: Object.entries(config.modelProviders).map(([id, provider]) => summaryOf(id, provider)),
    defaultProviderId: config.provider.id,
    canChangeDefault: !context.runtime.overridden("model_provider"),
  };
}

/** The default provider of new threads: `model_provider` in config.toml, as config/value/write writes it. */
export async function modelProviderDefaultSet(
  params: ParamsOf<"modelProvider/default/set">,
  context: HandlerContext,
): Promise<ResultOf<"modelProvider/default/set">> {
  const { runtime } = context;
  if (!Object.hasOwn(runtime.config.modelProviders, params.providerId))
    throw RpcError.invalidParams(
      `Invalid request: unknown model provider \`${params.providerId}\`; known providers: ${Object.keys(runtime.config.modelProviders).join(", ")}`,
    );
  if (runtime.overridden("model_provider"))
    throw RpcError.invalidRequest("the default model provider is set by this server's -c flags");
  await writeConfigEdits(
    [{ keyPath: "model_provider", value: params.providerId, mergeStrategy: "replace" }],
    context,
  );
  return {};
}

export async function modelProviderCapabilitiesRead(
  _params: ParamsOf<"modelProvider/capabilities/read">,
  context: HandlerContext,
): Promise<ResultOf<"modelProvider/capabilities/read">> {
  return {
    // web_search is the provider's own tool, which only the Responses API carries.
    webSearch: context.runtime.config.provider.wireApi === "responses",
    // tscodex offers no image generation tool, whatever the provider can do.
    imageGeneration: false,
  };
}

function summaryOf(id: string, provider: ProviderConfig): ProviderSummary {
  return {
    id,
    name: provider.name ?? id,
    baseUrl: provider.base_url ?? null,
    settings: id === "openai" ? { type: "openai" } : { type: "customGateway", auth: authOf(provider) },
    canEdit: false,
  };
}

function authOf(provider: ProviderConfig): Extract<ProviderSummary["settings"], { auth: unknown }>["auth"] {
  if (provider.env_key) return { mode: "environmentVariable", envKey: provider.env_key };
  if (provider.experimental_bearer_token) return { mode: "externallyConfigured", envKey: null };
  return { mode: "none" };
}
