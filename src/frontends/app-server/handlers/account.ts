/**
 * Codex 0.171's account methods for API-key accounts. tscodex keeps no ChatGPT login: an
 * account is the configured provider's API key (from its `env_key` variable, or the key
 * `account/login/start` gave this process), and OpenAI auth is never required
 * (`requiresOpenaiAuth: false`: the key is the provider's business, as in config.toml).
 * Rate limits are ChatGPT plans' windows: an API-key account has none, so
 * `account/rateLimits/read` answers an empty snapshot, as Codex does without a ChatGPT login.
 */
import type { ParamsOf, ResultOf } from "../protocol/client-requests.js";
import { encodeNotification, RpcError } from "../protocol/jsonrpc.js";
import type { AppServerRuntime } from "../runtime.js";
import type { HandlerContext } from "./context.js";

export async function accountRead(
  _params: ParamsOf<"account/read">,
  context: HandlerContext,
): Promise<ResultOf<"account/read">> {
  return {
    account: context.runtime.config.provider.apiKey ? { type: "apiKey" } : null,
    requiresOpenaiAuth: false,
    userId: null,
  };
}

/** `type: "apiKey"` keys the configured provider for this process; other logins are ChatGPT's. */
export async function accountLoginStart(
  params: ParamsOf<"account/login/start">,
  context: HandlerContext,
): Promise<ResultOf<"account/login/start">> {
  if (params.type !== "apiKey")
    throw RpcError.invalidRequest(
      `tscodex supports only API-key login (\`type: "apiKey"\`), not \`${params.type}\`: it keeps no ChatGPT or cloud account`,
    );
  const key = params.apiKey.trim();
  if (key === "") throw RpcError.invalidParams("Invalid request: apiKey must not be empty");
  const { runtime } = context;
  const { id } = runtime.config.provider;
  const envKey = runtime.config.modelProviders[id]?.env_key;
  if (!envKey)
    throw RpcError.invalidRequest(
      `model provider \`${id}\` takes no API key (it has no env_key): configure its credentials in config.toml`,
    );
  await runtime.setLoginKey({ envKey, key });
  context.after(() => {
    // As Codex: the login is over (clients such as codex-acp wait for this), then the account changed.
    context.session.send(
      encodeNotification("account/login/completed", { loginId: null, success: true, error: null }),
    );
    announceAccount(runtime);
  });
  return { type: "apiKey" };
}

/** No login is ever pending: an API-key login completes within its request. */
export async function accountLoginCancel(
  _params: ParamsOf<"account/login/cancel">,
  _context: HandlerContext,
): Promise<ResultOf<"account/login/cancel">> {
  return { status: "notFound" };
}

/**
 * Forget the key login gave (the environment's own key, if any, is used again). `account/updated`
 * follows every logout, as with Codex: clients such as codex-acp wait for it.
 */
export async function accountLogout(
  _params: ParamsOf<"account/logout">,
  context: HandlerContext,
): Promise<ResultOf<"account/logout">> {
  const { runtime } = context;
  if (runtime.loggedIn) await runtime.setLoginKey(null);
  context.after(() => announceAccount(runtime));
  return {};
}

export async function accountRateLimitsRead(
  _params: ParamsOf<"account/rateLimits/read">,
  _context: HandlerContext,
): Promise<ResultOf<"account/rateLimits/read">> {
  return {
    rateLimits: {
      limitId: null,
      limitName: null,
      primary: null,
      secondary: null,
      credits: null,
      planType: null,
    },
    rateLimitsByLimitId: null,
  };
}

/** `account/updated` to every client: the auth mode now in force (null: no key). */
function announceAccount(runtime: AppServerRuntime): void {
  runtime.broadcast("account/updated", {
    authMode: runtime.config.provider.apiKey ? "apikey" : null,
    planType: null,
  });
}
