/**
 * `tscodex mcp login NAME`: OAuth for a Streamable HTTP MCP server, as Codex does it (reference
 * section 3). Flow: request the server without a token → its 401's `WWW-Authenticate` names the
 * protected-resource metadata → that names the authorization server → its metadata → dynamic
 * client registration (redirect URI on a loopback listener, 127.0.0.1, a random port and path)
 * → the authorization URL with PKCE S256, printed (and `$BROWSER URL` run when set) → the
 * callback (or, with `--no-browser`, the callback URL pasted on stdin) → state checked → token
 * exchange → tokens saved (credentials.ts). Bounded: the wait for the callback ends after
 * LOGIN_TIMEOUT_MS. Built on the SDK's OAuth helpers, loaded only here.
 */
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { saveCredentials } from "./credentials.js";

/** How long the login waits for the browser (or the pasted URL). */
export const LOGIN_TIMEOUT_MS = 5 * 60_000;

export const CALLBACK_PAGE = "Authentication complete. You may close this window.";

export interface LoginOptions {
  name: string;
  url: string;
  home: string;
  /** Scopes to ask for; default: the server's `scopes_supported`. */
  scopes?: string[] | undefined;
  /** Do not run $BROWSER; also accept the callback URL pasted on `input`. */
  noBrowser?: boolean | undefined;
  env: NodeJS.ProcessEnv;
  /** Where the URL and the outcome are printed. */
  print: (line: string) => void;
  /** Lines typed by the user (the pasted callback URL with --no-browser). */
  input?: NodeJS.ReadableStream | undefined;
  timeoutMs?: number | undefined;
  /** Called with the authorization URL once it is known (the app-server answers with it). */
  onAuthorizationUrl?: ((url: string) => void) | undefined;
}

export async function loginToMcpServer(options: LoginOptions): Promise<void> {
  const auth = await import("@modelcontextprotocol/sdk/client/auth.js");
  const serverUrl = new URL(options.url);
  const probe = await fetch(serverUrl, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 0, method: "ping" }),
  });
  const resourceMetadataUrl = probe.status === 401 ? auth.extractResourceMetadataUrl(probe) : undefined;
  await probe.body?.cancel().catch(() => {});
  const info = await auth.discoverOAuthServerInfo(
    serverUrl,
    resourceMetadataUrl ? { resourceMetadataUrl } : {},
  );
  const metadata = info.authorizationServerMetadata;
  if (!metadata) throw new Error(`no OAuth authorization server metadata found for ${options.url}`);
  const issuer = info.authorizationServerUrl;
  const scopes = options.scopes ?? info.resourceMetadata?.scopes_supported ?? metadata.scopes_supported ?? [];
  const scope = scopes.length > 0 ? scopes.join(" ") : undefined;

  const callback = await listenForCallback();
  try {
    const client = await auth.registerClient(issuer, {
      metadata,
      clientMetadata: {
        client_name: "tscodex",
        redirect_uris: [callback.redirectUri],
        grant_types: ["authorization_code", "refresh_token"],
        response_types: ["code"],
        token_endpoint_auth_method: "none",
        ...(scope ? { scope } : {}),
      },
    });
    const state = randomBytes(16).toString("base64url");
    const { authorizationUrl, codeVerifier } = await auth.startAuthorization(issuer, {
      metadata,
      clientInformation: client,
      redirectUrl: callback.redirectUri,
      state,
      resource: serverUrl,
      ...(scope ? { scope } : {}),
    });
    options.print(`Authorize \`${options.name}\` by opening this URL in your browser:`);
    options.print(authorizationUrl.toString());
    options.onAuthorizationUrl?.(authorizationUrl.toString());
    if (!options.noBrowser) openBrowser(options.env.BROWSER, authorizationUrl.toString());
    else if (options.input)
      options.print("Then paste the URL the browser was sent to (the callback URL) here:");
    const pasted = options.noBrowser && options.input ? pastedUrl(options.input) : null;
    const returned = await waitFor(
      [callback.received, ...(pasted ? [pasted] : [])],
      options.timeoutMs ?? LOGIN_TIMEOUT_MS,
    );
    const code = codeFrom(returned, state);
    const tokens = await auth.exchangeAuthorization(issuer, {
      metadata,
      clientInformation: client,
      authorizationCode: code,
      codeVerifier,
      redirectUri: callback.redirectUri,
      resource: serverUrl,
    });
    await saveCredentials(options.home, {
      server_name: options.name,
      server_url: options.url,
      issuer,
      client_id: client.client_id,
      client_secret: client.client_secret ?? null,
      access_token: tokens.access_token,
      expires_at: tokens.expires_in !== undefined ? Date.now() + tokens.expires_in * 1000 : null,
      refresh_token: tokens.refresh_token ?? null,
      scopes: tokens.scope ? tokens.scope.split(" ") : scopes,
    });
    options.print(`Successfully logged in to MCP server '${options.name}'.`);
  } finally {
    await callback.close();
  }
}

/** The authorization code of the callback URL, after checking its state. */
function codeFrom(returned: URL, state: string): string {
  const error = returned.searchParams.get("error");
  if (error) {
    const description = returned.searchParams.get("error_description");
    throw new Error(`the authorization server refused: ${error}${description ? ` (${description})` : ""}`);
  }
  if (returned.searchParams.get("state") !== state)
    throw new Error("the callback's state does not match; try again");
  const code = returned.searchParams.get("code");
  if (!code) throw new Error("the callback URL has no authorization code");
  return code;
}

interface CallbackListener {
  redirectUri: string;
  /** The callback URL, once the browser came back. */
  received: Promise<URL>;
  close(): Promise<void>;
}

/** A loopback listener for the redirect: 127.0.0.1, a random port and a random path. */
async function listenForCallback(): Promise<CallbackListener> {
  const path = `/callback/${randomBytes(9).toString("base64url")}`;
  let deliver: (url: URL) => void = () => {};
  const received = new Promise<URL>((resolve) => {
    deliver = resolve;
  });
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    if (req.method !== "GET" || url.pathname !== path) {
      res.writeHead(404, { "content-type": "text/plain" }).end("Not found");
      return;
    }
    res.writeHead(200, { "content-type": "text/plain" }).end(CALLBACK_PAGE);
    deliver(url);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    redirectUri: `http://127.0.0.1:${port}${path}`,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The first line on `input` that parses as a URL (input that ends without one leaves the listener). */
function pastedUrl(input: NodeJS.ReadableStream): Promise<URL> {
  return new Promise((resolve) => {
    let buffered = "";
    const onData = (chunk: Buffer | string) => {
      buffered += chunk.toString();
      let newline = buffered.indexOf("\n");
      while (newline >= 0) {
        const line = buffered.slice(0, newline).trim();
        buffered = buffered.slice(newline + 1);
        if (URL.canParse(line)) {
          input.off("data", onData);
          resolve(new URL(line));
          return;
        }
        newline = buffered.indexOf("\n");
      }
    };
    input.on("data", onData);
  });
}

function waitFor(sources: Promise<URL>[], timeoutMs: number): Promise<URL> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(new Error(`no authorization within ${Math.round(timeoutMs / 1000)} s; run the login again`)),
      timeoutMs,
    );
  });
  return Promise.race([...sources, timeout]).finally(() => clearTimeout(timer));
}

/** `$BROWSER URL`, detached; a browser that fails to start leaves the printed URL. */
function openBrowser(browser: string | undefined, url: string): void {
  if (!browser) return;
  try {
    const child = spawn(browser, [url], { detached: true, stdio: "ignore" });
    child.on("error", () => {});
    child.unref();
  } catch {
    // The URL is printed; the user opens it.
  }
}
