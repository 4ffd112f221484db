/**
 * `mcpServer/oauth/login`: `tscodex mcp login NAME` for an app. Answers with the authorization
 * URL for the client to open; the login goes on in the background (the loopback listener waits
 * for the browser, bounded by `timeoutSecs`, default 5 min) and ends with one
 * `mcpServer/oauthLogin/completed` notification to the client that asked.
 */
import { errorMessage } from "../../../util/errors.js";
import { checkMcpEnvironment } from "../mcp-environment.js";
import type { ParamsOf, ResultOf } from "../protocol/client-requests.js";
import { encodeNotification, RpcError } from "../protocol/jsonrpc.js";
import type { HandlerContext } from "./context.js";

export async function mcpServerOauthLogin(
  params: ParamsOf<"mcpServer/oauth/login">,
  context: HandlerContext,
): Promise<ResultOf<"mcpServer/oauth/login">> {
  checkMcpEnvironment(params.environmentId);
  const { config } = context.runtime;
  const server = config.mcpServers?.[params.name];
  if (!server) throw RpcError.invalidParams(`Invalid request: no MCP server named '${params.name}'`);
  if (server.url === undefined)
    throw RpcError.invalidParams(
      `Invalid request: MCP server '${params.name}' runs over stdio; OAuth is for url servers`,
    );
  const { loginToMcpServer } = await import("../../../mcp/oauth/login.js");
  const session = context.session;
  let announce: (url: string) => void = () => {};
  const authorizationUrl = new Promise<string>((resolve) => {
    announce = resolve;
  });
  const login = loginToMcpServer({
    name: params.name,
    url: server.url,
    home: config.home,
    scopes: params.scopes ?? undefined,
    noBrowser: true,
    env: context.runtime.env,
    print: () => {},
    onAuthorizationUrl: announce,
    ...(params.timeoutSecs ? { timeoutMs: params.timeoutSecs * 1000 } : {}),
  });
  const completed = (error: string | null) => {
    if (!session.open) return;
    const notification = { name: params.name, success: error === null, ...(error ? { error } : {}) };
    session.send(encodeNotification("mcpServer/oauthLogin/completed", notification));
  };
  const outcome = login.then(
    () => completed(null),
    (error: unknown) => {
      completed(errorMessage(error));
      throw error;
    },
  );
  // Failing before the URL exists (discovery, registration) is this request's error.
  return { authorizationUrl: await Promise.race([authorizationUrl, outcome.then(() => authorizationUrl)]) };
}
