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

  it("an unknown server is an invalid-params error", async () => {
    const client = await h.stdio();
    const reply = await client.request("mcpServer/oauth/login", { name: "nope" });
    expect(reply.error).toMatchObject({ code: -32602 });
  });
});
