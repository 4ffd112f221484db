/**
 * `tscodex mcp login NAME`: OAuth for a Streamable HTTP MCP server, as Codex does it (reference
 * section 3). Flow: request the server without a token → its 401's `WWW-Authenticate` names the
 * protected-resource metadata → that names the authorization server → its metadata → dynamic
 * client registration (redirect URI on a loopback listener, 127.0.0.1, a random port and path)
 * → the authorization URL with PKCE S256, printed (and `$BROWSER URL` run when set) → the
 * callback (or, with `--no-browser`, the callback URL pasted on stdin) → state checked → token
 * exchange with this process's PKCE verifier → tokens saved (credentials.ts). A callback with
 * another state, or whose code is refused, is logged and ignored: the login waits on for the
 * right one (any local process can reach the listener, and the URL with its state shows in
 * $BROWSER's arguments). Bounded: the wait ends after LOGIN_TIMEOUT_MS. Built on the SDK's OAuth
 * helpers, loaded only here.
 */
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { errorMessage } from "../../util/errors.js";
import { saveCredentials } from "./credentials.js";

/** How long the login waits for the browser (or the pasted URL). */
export const LOGIN_TIMEOUT_MS = 5 * 60_000;

export const CALLBACK_PAGE = "Authentication complete. You may close this window.";

/** The answer to a callback whose `state` is not this login's (another process's, or forged). */
export const STATE_MISMATCH_PAGE =
  "The state of this callback does not match the login in progress; it was ignored. " +
  "Finish the login from the URL tscodex printed.";
const STATE_MISMATCH_LOG =
  "ignored a login callback whose state did not match; still waiting for the browser";

/** The token request of the code exchange ends after this long. */
const EXCHANGE_TIMEOUT_MS = 30_000;

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
  /** Where ignored callbacks are reported, one line each (default: stderr). Never with tokens. */
  warn?: ((line: string) => void) | undefined;
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

  const state = randomBytes(16).toString("base64url");
  const warn = options.warn ?? ((line: string) => process.stderr.write(`tscodex: ${line}\n`));
  const inbox = new Inbox<Returned>();
  const callback = await listenForCallback(state, inbox, warn);
  let stopPasting = () => {};
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
    if (options.noBrowser && options.input)
      stopPasting = readPastedUrls(options.input, (url) => {
        if (url.searchParams.get("state") === state) inbox.push({ url, answer: () => {} });
        else warn(STATE_MISMATCH_LOG);
      });
    // The exchange proves the code: only a code issued for this process's PKCE challenge is
    // accepted by the token endpoint, whoever knew the state.
    const exchange = (code: string) =>
      auth.exchangeAuthorization(issuer, {
        metadata,
        clientInformation: client,
        authorizationCode: code,
        codeVerifier,
        redirectUri: callback.redirectUri,
        resource: serverUrl,
        fetchFn: (input, init) => fetch(input, { ...init, signal: AbortSignal.timeout(EXCHANGE_TIMEOUT_MS) }),
      });
    const tokens = await firstGoodCallback(inbox, exchange, warn, options.timeoutMs ?? LOGIN_TIMEOUT_MS);
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
    stopPasting();
    await callback.close();
  }
}

/** A callback (or pasted URL) whose state matched, and how to answer its browser. */
interface Returned {
  url: URL;
  answer(status: number, page: string): void;
}

/**
 * Exchange the code of each matching callback until one yields tokens: a callback the
 * authorization server refused (`error=`), without a code, or whose code the token endpoint
 * refuses is answered 400, logged, and the login goes on (the state is no secret from local
 * processes, so one of them must not end it). Ends after `timeoutMs`.
 */
async function firstGoodCallback<T>(
  inbox: Inbox<Returned>,
  exchange: (code: string) => Promise<T>,
  warn: (line: string) => void,
  timeoutMs: number,
): Promise<T> {
  const timedOut = new Error("timed out");
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(timedOut), timeoutMs);
  });
  // The last callback ignored, so a login that times out says what came back (e.g. access_denied).
  let ignored: string | undefined;
  const ignore = (returned: Returned, problem: string) => {
    ignored = problem;
    warn(`${problem}; still waiting for the browser`);
    returned.answer(400, `${problem}. Try again from the authorization URL.`);
  };
  try {
    for (;;) {
      const returned = await Promise.race([inbox.next(), timeout]);
      const problem = refusal(returned.url);
      if (problem) {
        ignore(returned, problem);
        continue;
      }
      try {
        const tokens = await Promise.race([exchange(returned.url.searchParams.get("code") ?? ""), timeout]);
        returned.answer(200, CALLBACK_PAGE);
        return tokens;
      } catch (error) {
        if (error === timedOut) throw error;
        const reason = errorMessage(error) || "no reason given";
        ignore(returned, `the token endpoint refused a callback's authorization code (${reason})`);
      }
    }
  } catch (error) {
    if (error !== timedOut) throw error;
    const last = ignored ? ` (the last callback: ${ignored})` : "";
    throw new Error(`no authorization within ${Math.round(timeoutMs / 1000)} s${last}; run the login again`);
  } finally {
    clearTimeout(timer);
  }
}

/** Why a callback with the right state yields no code to exchange, or null when it has one. */
function refusal(returned: URL): string | null {
  const error = returned.searchParams.get("error");
  if (error) {
    const description = returned.searchParams.get("error_description");
    return `the authorization server refused: ${error}${description ? ` (${description})` : ""}`;
  }
  return returned.searchParams.get("code") ? null : "a callback had no authorization code";
}

/** Matching callbacks, in arrival order, for one consumer. */
class Inbox<T> {
  private readonly items: T[] = [];
  private waiting: ((item: T) => void) | undefined;

  push(item: T): void {
    const waiting = this.waiting;
    this.waiting = undefined;
    if (waiting) waiting(item);
    else this.items.push(item);
  }

  next(): Promise<T> {
    const item = this.items.shift();
    if (item !== undefined) return Promise.resolve(item);
    return new Promise((resolve) => {
      this.waiting = resolve;
    });
  }
}

interface CallbackListener {
  redirectUri: string;
  close(): Promise<void>;
}

/**
 * A loopback listener for the redirect: 127.0.0.1, a random port and a random path. Any local
 * process can reach it: a request whose state is not this login's is answered 400 and logged
 * (the login goes on); the others go to `inbox`, answered once their code is exchanged.
 */
async function listenForCallback(
  state: string,
  inbox: Inbox<Returned>,
  warn: (line: string) => void,
): Promise<CallbackListener> {
  const path = `/callback/${randomBytes(9).toString("base64url")}`;
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    if (req.method !== "GET" || url.pathname !== path) {
      res.writeHead(404, { "content-type": "text/plain" }).end("Not found");
      return;
    }
    const answer = (status: number, page: string) => {
      if (!res.headersSent) res.writeHead(status, { "content-type": "text/plain" }).end(page);
    };
    if (url.searchParams.get("state") !== state) {
      warn(STATE_MISMATCH_LOG);
      answer(400, STATE_MISMATCH_PAGE);
      return;
    }
    inbox.push({ url, answer });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    redirectUri: `http://127.0.0.1:${port}${path}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Each line on `input` that parses as a URL, until the returned function is called. */
function readPastedUrls(input: NodeJS.ReadableStream, onUrl: (url: URL) => void): () => void {
  let buffered = "";
  const onData = (chunk: Buffer | string) => {
    buffered += chunk.toString();
    let newline = buffered.indexOf("\n");
    while (newline >= 0) {
      const line = buffered.slice(0, newline).trim();
      buffered = buffered.slice(newline + 1);
      if (URL.canParse(line)) onUrl(new URL(line));
      newline = buffered.indexOf("\n");
    }
  };
  input.on("data", onData);
  return () => input.off("data", onData);
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
