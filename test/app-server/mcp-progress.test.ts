/**
 * An MCP server's progress on a tool call the model made reaches the app-server's client as
 * `item/mcpToolCall/progress` (0.169), between the mcpToolCall item's start and completion: the
 * core's `mcp_tool_call_progress` event → the tracker's item update → the wire.
 */
import { appendFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { useAppServerHarness } from "../support/app-server-harness.js";
import { referenceSchemaFailures } from "../support/app-server-schemas.js";
import { functionCall, message, turn } from "../support/fake-model-server.js";
import { fixtureToml } from "../support/mcp-fixture.js";
import { flow, runTurn, startThread } from "./flow.js";

const h = useAppServerHarness();

describe("app-server: MCP tool call progress", () => {
  it("streams the server's progress notifications as item/mcpToolCall/progress", async () => {
    await appendFile(join(h.home, "config.toml"), `\n${await fixtureToml({ name: "fixture" })}`);
    const client = await h.stdio();
    const threadId = await startThread(client, {
      cwd: h.work,
      approvalPolicy: "never",
      sandbox: "danger-full-access",
    });
    h.model.enqueue(
      // The server answers a second after its progress: the MCP SDK's client hands notifications
      // on a microtask later than responses, so progress sent in the same breath as the result
      // would be dropped by the client (its progress handler is gone by then).
      turn(functionCall("mcp__fixture__slow", { ms: 1000, steps: 2 }, "call_slow")),
      turn(message("done waiting")),
    );
    const { turnId, completed } = await runTurn(client, threadId, "wait a little");
    expect(completed.params.turn.status).toBe("completed");
    const progress = client.notifications("item/mcpToolCall/progress").map((m) => m.params);
    expect(progress).toEqual([
      { threadId, turnId, itemId: "call_slow", message: "step 1 of 2" },
      { threadId, turnId, itemId: "call_slow", message: "step 2 of 2" },
    ]);
    expect(flow(client, turnId).filter((line) => line.includes("mcpToolCall"))).toEqual([
      "item/started mcpToolCall inProgress",
      "item/mcpToolCall/progress",
      "item/mcpToolCall/progress",
      "item/completed mcpToolCall completed",
    ]);
    expect(referenceSchemaFailures(client)).toEqual([]);
  }, 90_000);
});
