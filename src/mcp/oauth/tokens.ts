/**
 * The bearer token an MCP server connection sends: the stored OAuth access token, refreshed
 * shortly before it expires. One refresh of a server at a time across processes (its refresh
 * lock); whoever waited reads the tokens the holder saved instead of refreshing again, and the
 * new tokens are saved under the file lock, replacing only this server's entry.
 * The SDK's OAuth helpers are imported only when a refresh is due.
 */
import { errorMessage } from "../../util/errors.js";
import {
  credentialsKey,
  readCredentials,
  type StoredCredentials,
  updateCredentials,
  withCredentialsLock,
} from "./credentials.js";

/** Refresh this long before the expiry, so a request never goes out with a token about to lapse. */
export const REFRESH_MARGIN_MS = 60_000;

/** The whole refresh (discovery and token request) ends after this long. */
export const REFRESH_TIMEOUT_MS = 30_000;

/** The one-line error for a server that needs a login (Codex only logs a raw AuthRequired). */
export function loginRequiredMessage(name: string, detail?: string): string {
  return `MCP server '${name}' requires a login${detail ? ` (${detail})` : ""}: run \`tscodex mcp login ${name}\``;
}

const dueForRefresh = (stored: StoredCredentials, now: number) =>
  stored.refresh_token !== null && stored.expires_at !== null && stored.expires_at - now < REFRESH_MARGIN_MS;

const expired = (stored: StoredCredentials, now: number) =>
  stored.expires_at !== null && stored.expires_at <= now;

/**
 * The access token to send to server `name` at `url`: null without a login; refreshed first when
 * it expires within REFRESH_MARGIN_MS and a refresh token is stored. A failed refresh throws
 * the login message.
 */
export async function currentAccessToken(home: string, name: string, url: string): Promise<string | null> {
  const stored = await readCredentials(home, name, url);
  if (!stored) return null;
  if (!dueForRefresh(stored, Date.now())) return stored.access_token;
  return withCredentialsLock(home, name, url, async () => {
    // Read again under the lock: a refresh token is good once, and another process (or another
    // connection of this one) may have spent it while this one waited. Only the stored,
    // newest refresh token is ever presented.
    const latest = await readCredentials(home, name, url);
    if (!latest) return null;
    const now = Date.now();
    if (!dueForRefresh(latest, now)) return latest.access_token;
    const refreshedElsewhere = latest.refresh_token !== stored.refresh_token;
    if (refreshedElsewhere && !expired(latest, now)) return latest.access_token;
    try {
      const refreshed = await refresh(latest);
      await updateCredentials(home, (all) => {
        const key = credentialsKey(name, url);
        // A login or logout since the read wins: replace only the tokens this refresh spent.
        if (all[key]?.refresh_token !== latest.refresh_token) return false;
        all[key] = refreshed;
        return true;
      });
      return refreshed.access_token;
    } catch (error) {
      throw new Error(loginRequiredMessage(name, `refreshing its token failed: ${oauthFailure(error)}`), {
        cause: error,
      });
    }
  });
}

/** The SDK's OAuth errors may have an empty message; their code (e.g. invalid_grant) says more. */
function oauthFailure(error: unknown): string {
  const message = errorMessage(error);
  const code = (error as { errorCode?: unknown } | null)?.errorCode;
  if (typeof code === "string" && !message.includes(code)) return message ? `${code}: ${message}` : code;
  return message;
}

async function refresh(stored: StoredCredentials): Promise<StoredCredentials> {
  const { discoverAuthorizationServerMetadata, refreshAuthorization } = await import(
    "@modelcontextprotocol/sdk/client/auth.js"
  );
  // Bounded, so the refresh lock is never held longer than its stale bound (credentials.ts).
  const signal = AbortSignal.timeout(REFRESH_TIMEOUT_MS);
  const fetchFn = (input: string | URL, init?: RequestInit) => fetch(input, { ...init, signal });
  const metadata = await discoverAuthorizationServerMetadata(stored.issuer, { fetchFn });
  const tokens = await refreshAuthorization(stored.issuer, {
    ...(metadata ? { metadata } : {}),
    clientInformation: {
      client_id: stored.client_id,
      ...(stored.client_secret ? { client_secret: stored.client_secret } : {}),
    },
    refreshToken: stored.refresh_token ?? "",
    resource: new URL(stored.server_url),
    fetchFn,
  });
  return {
    ...stored,
    access_token: tokens.access_token,
    refresh_token: tokens.refresh_token ?? stored.refresh_token,
    expires_at: tokens.expires_in !== undefined ? Date.now() + tokens.expires_in * 1000 : null,
    scopes: tokens.scope ? tokens.scope.split(" ") : stored.scopes,
  };
}
