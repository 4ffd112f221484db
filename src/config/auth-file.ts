/**
 * The API key `tscodex login --with-api-key` saves: Codex's `auth.json` in the home,
 * `{"auth_mode": "apikey", "OPENAI_API_KEY": "…"}`. A provider that asks for OpenAI auth
 * (`requires_openai_auth = true` with no `env_key`, or the built-in `openai` with its variable
 * unset) sends it as the bearer key.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import type { ProviderConfig } from "./schema.js";

/** `<home>/auth.json`. */
export function authFilePath(home: string): string {
  return join(home, "auth.json");
}

/** The saved API key, or undefined when there is none (no file, not JSON, no key). */
export async function savedApiKey(home: string): Promise<string | undefined> {
  let text: string;
  try {
    text = await readFile(authFilePath(home), "utf8");
  } catch {
    return undefined;
  }
  try {
    const key = (JSON.parse(text) as { OPENAI_API_KEY?: unknown } | null)?.OPENAI_API_KEY;
    return typeof key === "string" && key !== "" ? key : undefined;
  } catch {
    return undefined;
  }
}

/** `config` with the saved key as its bearer token when the provider takes OpenAI auth and has no key. */
export async function withSavedApiKey(
  id: string,
  config: ProviderConfig,
  env: NodeJS.ProcessEnv,
  home: string,
): Promise<ProviderConfig> {
  const openaiAuth =
    (config.requires_openai_auth === true && !config.env_key && !config.experimental_bearer_token) ||
    (id === "openai" && config.env_key !== undefined && !env[config.env_key]);
  if (!openaiAuth) return config;
  const key = await savedApiKey(home);
  if (key === undefined) return config;
  const { env_key: _envKey, ...rest } = config;
  return { ...rest, experimental_bearer_token: key };
}
