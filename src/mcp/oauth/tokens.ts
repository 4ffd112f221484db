/**
 * The bearer token an MCP server connection sends: the stored OAuth access token, refreshed
 * shortly before it expires. One refresh at a time across processes (the credentials lock);
 * whoever waited reads the tokens the holder saved instead of refreshing again.
 * The SDK's OAuth helpers are imported only when a refresh is due.
 */
import { errorMessage } from "../../util/errors.js";
import {
  readCredentials,
  type StoredCredentials,
  saveCredentials,
  withCredentialsLock,
} from "./credentials.js";

/** Refresh this long before the expiry, so a request never goes out with a token about to lapse. */
export const REFRESH_MARGIN_MS = 60_000;

/** The one-line error for a server that needs a login (Codex only logs a raw AuthRequired). */
export function loginRequiredMessage(name: string, detail?: string): string {
  return `MCP server '${name}' requires a login${detail ? ` (${detail})` : ""}: run \`tscodex mcp login ${name}\``;
}

const dueForRefresh = (stored: StoredCredentials, now: number) =>
  stored.refresh_token !== null && stored.expires_at !== null && stored.expires_at - now < REFRESH_MARGIN_MS;

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
    // Another process may have refreshed while this one waited for the lock.
    const latest = (await readCredentials(home, name, url)) ?? stored;
    if (!dueForRefresh(latest, Date.now())) return latest.access_token;
    try {
      const refreshed = await refresh(latest);
      await saveCredentials(home, refreshed);
      return refreshed.access_token;
    } catch (error) {
      throw new Error(loginRequiredMessage(name, `refreshing its token failed: ${errorMessage(error)}`), {
        cause: error,
      });
    }
  });
}

async function refresh(stored: StoredCredentials): Promise<StoredCredentials> {
  const { discoverAuthorizationServerMetadata, refreshAuthorization } = await import(
    "@modelcontextprotocol/sdk/client/auth.js"
  );
  const metadata = await discoverAuthorizationServerMetadata(stored.issuer);
  const tokens = await refreshAuthorization(stored.issuer, {
    ...(metadata ? { metadata } : {}),
    clientInformation: {
      client_id: stored.client_id,
      ...(stored.client_secret ? { client_secret: stored.client_secret } : {}),
    },
    refreshToken: stored.refresh_token ?? "",
    resource: new URL(stored.server_url),
  });
  return {
    ...stored,
    access_token: tokens.access_token,
    refresh_token: tokens.refresh_token ?? stored.refresh_token,
    expires_at: tokens.expires_in !== undefined ? Date.now() + tokens.expires_in * 1000 : null,
    scopes: tokens.scope ? tokens.scope.split(" ") : stored.scopes,
  };
}
