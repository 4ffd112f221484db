/**
 * Model providers: the built-in ones (`openai`; `oss` and `ollama` for Ollama, `lmstudio`) merged with `[model_providers.X]`,
 * resolved into a ProviderInfo with its key looked up in the environment.
 */
import type { ProviderInfo } from "../model/types.js";
import type { ProviderConfig } from "./schema.js";

const DEFAULT_REQUEST_MAX_RETRIES = 4;
const DEFAULT_STREAM_MAX_RETRIES = 5;
const DEFAULT_STREAM_IDLE_TIMEOUT_MS = 300_000;
/** An hour: far beyond any real response, but a stream that never ends still does. */
const DEFAULT_STREAM_MAX_DURATION_MS = 3_600_000;

/**
 * The built-in providers. `openai`: base URL from `openai_base_url` (config), else
 * $OPENAI_BASE_URL; key from $CODEX_API_KEY (what the Codex SDK sets), else $OPENAI_API_KEY.
 */
export function builtinProviders(
  env: NodeJS.ProcessEnv,
  openaiBaseUrl?: string,
): Record<string, ProviderConfig> {
  // $CODEX_OSS_BASE_URL / $CODEX_OSS_PORT move the local providers, as they move Codex's.
  const local = (port: string) =>
    env.CODEX_OSS_BASE_URL || `http://localhost:${env.CODEX_OSS_PORT ?? port}/v1`;
  const ollama: ProviderConfig = { name: "Open source (Ollama)", base_url: local("11434"), wire_api: "chat" };
  return {
    openai: {
      name: "OpenAI",
      base_url: openaiBaseUrl || env.OPENAI_BASE_URL || "https://api.openai.com/v1",
      wire_api: "responses",
      env_key: env.CODEX_API_KEY ? "CODEX_API_KEY" : "OPENAI_API_KEY",
      env_key_instructions: "or CODEX_API_KEY; create a key at https://platform.openai.com/api-keys",
    },
    oss: ollama,
    ollama,
    lmstudio: { name: "LM Studio", base_url: local("1234"), wire_api: "responses" },
  };
}

/** Resolve a provider config; `apiKey` stays undefined when the env var is unset. */
export function resolveProvider(id: string, config: ProviderConfig, env: NodeJS.ProcessEnv): ProviderInfo {
  const headers: Record<string, string> = { ...(config.http_headers ?? {}) };
  for (const [header, varName] of Object.entries(config.env_http_headers ?? {})) {
    const value = env[varName];
    if (value) headers[header] = value;
  }
  const apiKey = config.env_key ? env[config.env_key] || undefined : config.experimental_bearer_token;
  return {
    id,
    name: config.name ?? id,
    baseUrl: (config.base_url ?? "https://api.openai.com/v1").replace(/\/+$/, ""),
    wireApi: config.wire_api ?? "responses",
    ...(apiKey ? { apiKey } : {}),
    httpHeaders: headers,
    queryParams: { ...(config.query_params ?? {}) },
    requestMaxRetries: config.request_max_retries ?? DEFAULT_REQUEST_MAX_RETRIES,
    streamMaxRetries: config.stream_max_retries ?? DEFAULT_STREAM_MAX_RETRIES,
    streamIdleTimeoutMs: config.stream_idle_timeout_ms ?? DEFAULT_STREAM_IDLE_TIMEOUT_MS,
    streamMaxDurationMs: config.stream_max_duration_ms ?? DEFAULT_STREAM_MAX_DURATION_MS,
  };
}

/**
 * One line telling the user how to make the provider usable, or null when it is; `configPath`
 * is where another provider would be declared.
 */
export function missingKeyMessage(
  id: string,
  config: ProviderConfig,
  env: NodeJS.ProcessEnv,
  configPath: string,
): string | null {
  if (!config.env_key || env[config.env_key]) return null;
  const how = config.env_key_instructions ? ` (${config.env_key_instructions})` : "";
  return (
    `no API key for model provider '${id}': set ${config.env_key}${how}, ` +
    `or pick another provider: --oss for a local Ollama, or model_provider = "NAME" with [model_providers.NAME] in ${configPath}`
  );
}
