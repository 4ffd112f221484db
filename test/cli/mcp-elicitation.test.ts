/**
 * MCP elicitation (an MCP server's `elicitation/create` during a tool call) through exec and
 * the library: the SDK's own `elicitationFormExample.js` (Streamable HTTP) in exec, which
 * declines at once as Codex's exec does (reference section 3, Elicitation); the stdio fixture's
 * `ask_name` through the library's onElicitation callback. Never a hang: the tool's result
 * reaches the model.
 */
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { Tscodex } from "../../src/agent.js";
import type { ElicitationRequest } from "../../src/protocol/events.js";
import { useExecHarness } from "../support/exec-harness.js";
import { functionCall, message, turn } from "../support/fake-model-server.js";
import { fixtureScript, fixtureToml } from "../support/mcp-fixture.js";
import { freePort, type SdkExample, startSdkExample } from "../support/sdk-examples.js";

const h = useExecHarness({ config: false });
let example: SdkExample | undefined;
beforeAll(async () => {
  await fixtureScript();
});
afterEach(async () => {
  await example?.stop();
  example = undefined;
});

/** The SDK's form elicitation example on a free port; its `[mcp_servers.form]` entry. */
async function formExample(): Promise<string> {
  const port = await freePort();
  example = await startSdkExample("elicitationFormExample.js", {
    env: { PORT: String(port) },
    ready: /running on http/,
  });
  return `[mcp_servers.form]\nurl = "http://localhost:${port}/mcp"\ndefault_tools_approval_mode = "approve"\n`;
}

describe("elicitation in exec", () => {
  it("declines at once: the SDK example's register_user answers as under Codex", async () => {
    await h.writeConfig({ extra: await formExample() });
    h.server.enqueue(turn(functionCall("mcp__form__register_user", {}, "call_1")), turn(message("done")));
    const result = await h.exec(["register me"]);
    expect(result.code, result.stderr).toBe(0);
    expect(h.outputs()).toEqual({ call_1: '[{"text":"Registration cancelled by user.","type":"text"}]' });
  });
});

describe("elicitation in the library", () => {
  it("onElicitation answers the form; the tool gets the content", async () => {
    await h.writeConfig({
      extra: await fixtureToml({
        name: "fx",
        env: { FIXTURE_SET: "approvals" },
        extra: ['default_tools_approval_mode = "approve"'],
      }),
    });
    h.server.enqueue(turn(functionCall("mcp__fx__ask_name", {}, "call_1")), turn(message("done")));
    const asked: { server: string; request: ElicitationRequest }[] = [];
    const thread = new Tscodex({ home: h.home, env: h.libraryEnv() }).startThread({
      cwd: h.work,
      onElicitation: (event) => {
        asked.push({ server: event.server_name, request: event.request });
        return { action: "accept", content: { name: "Ada" } };
      },
    });
    const result = await thread.run("ask my name");
    expect(result.status).toBe("completed");
    expect(asked).toEqual([
      {
        server: "fx",
        request: {
          mode: "form",
          message: "What is your name?",
          requestedSchema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] },
        },
      },
    ]);
    expect(h.outputs()).toEqual({ call_1: '[{"text":"Hello, Ada!","type":"text"}]' });
  });
});
