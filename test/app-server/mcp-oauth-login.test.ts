/**
 * `mcpServer/oauth/login` against the MCP SDK's `simpleStreamableHttp.js --oauth` and its demo
 * authorization server: the reply carries the authorization URL, the test follows it as a
 * browser would, and `mcpServer/oauthLogin/completed` reports success; the tokens are stored
 * like `tscodex mcp login`'s. Every message is checked against Codex's schemas.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { useAppServerHarness } from "../support/app-server-harness.js";
import { referenceSchemaFailures } from "../support/app-server-schemas.js";
import { writeFakeConfig } from "../support/cli.js";
import { freePort, type SdkExample, startSdkExample } from "../support/sdk-examples.js";

const h = useAppServerHarness();
let example: SdkExample | undefined;
afterEach(async () => {
  await example?.stop();
  example = undefined;
});

describe("app-server: mcpServer/oauth/login", () => {
  it("answers with the URL, then notifies completion once the browser came back", async () => {
    const [mcpPort, authPort] = [await freePort(), await freePort()];
    example = await startSdkExample("simpleStreamableHttp.js", {
      args: ["--oauth"],
      env: { MCP_PORT: String(mcpPort), MCP_AUTH_PORT: String(authPort) },
      ready: /MCP Streamable HTTP Server listening/,
    });
    const url = `http://localhost:${mcpPort}/mcp`;
    await writeFakeConfig(h.home, { baseUrl: h.model.url, extra: `[mcp_servers.demo]\nurl = "${url}"\n` });
    const client = await h.stdio();
    const { authorizationUrl } = await client.call("mcpServer/oauth/login", { name: "demo" });
    expect(authorizationUrl).toMatch(new RegExp(`^http://localhost:${authPort}/authorize\\?`));
    const authorize = await fetch(authorizationUrl, { redirect: "manual" });
    const callback = await fetch(authorize.headers.get("location") ?? "");
    expect(callback.status).toBe(200);
    const completed = await client.waitFor((message) => message.method === "mcpServer/oauthLogin/completed");
    expect(completed.params).toEqual({ name: "demo", success: true });
    const stored = Object.values(JSON.parse(await readFile(join(h.home, ".credentials.json"), "utf8")));
    expect(stored).toEqual([expect.objectContaining({ server_name: "demo", server_url: url })]);
    expect(referenceSchemaFailures(client)).toEqual([]);
  }, 120_000);

  it("a callback with another state is answered 400 and the login goes on; a refusal is reported at the timeout", async () => {
    const [mcpPort, authPort] = [await freePort(), await freePort()];
    example = await startSdkExample("simpleStreamableHttp.js", {
      args: ["--oauth"],
      env: { MCP_PORT: String(mcpPort), MCP_AUTH_PORT: String(authPort) },
      ready: /MCP Streamable HTTP Server listening/,
    });
    const url = `http://localhost:${mcpPort}/mcp`;
    await writeFakeConfig(h.home, { baseUrl: h.model.url, extra: `[mcp_servers.demo]\nurl = "${url}"\n` });
    const client = await h.stdio();

    const first = await client.call("mcpServer/oauth/login", { name: "demo" });
    const redirectUri = new URL(first.authorizationUrl).searchParams.get("redirect_uri") ?? "";
    const forged = await fetch(`${redirectUri}?code=intruder&state=forged`);
    expect(forged.status).toBe(400);
    expect(await forged.text()).toMatch(/^The state of this callback does not match/);
    const authorize = await fetch(first.authorizationUrl, { redirect: "manual" });
    const callback = await fetch(authorize.headers.get("location") ?? "");
    expect(callback.status).toBe(200);
    const completed = await client.waitFor((message) => message.method === "mcpServer/oauthLogin/completed");
    expect(completed.params).toEqual({ name: "demo", success: true });

    // A refusal with the right state may be forged too (the state shows in the URL): it does not
    // end the login, and the timeout's error names it.
    const second = await client.call("mcpServer/oauth/login", { name: "demo", timeoutSecs: 2 });
    const state = new URL(second.authorizationUrl).searchParams.get("state") ?? "";
    const secondRedirect = new URL(second.authorizationUrl).searchParams.get("redirect_uri") ?? "";
    const denied = await fetch(`${secondRedirect}?error=access_denied&state=${encodeURIComponent(state)}`);
    expect(denied.status).toBe(400);
    const failed = await client.waitFor(
      (message) => message.method === "mcpServer/oauthLogin/completed" && message !== completed,
    );
    expect(failed.params).toEqual({
      name: "demo",
      success: false,
      error: expect.stringMatching(
        /^no authorization within 2 s \(the last callback: the authorization server refused: access_denied\)/,
      ),
    });
    expect(referenceSchemaFailures(client)).toEqual([]);
  }, 120_000);

  it("an unknown server is an invalid-params error", async () => {
    const client = await h.stdio();
    const reply = await client.request("mcpServer/oauth/login", { name: "nope" });
    expect(reply.error).toMatchObject({ code: -32602 });
  });
});
