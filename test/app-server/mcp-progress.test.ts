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
      turn(functionCall("mcp__fixture__slow", { ms: 0, steps: 2 }, "call_slow")),
      turn(message("done waiting")),
    );
    const { turnId, completed } = await runTurn(client, threadId, "wait a little");
    expect(completed.params.turn.status).toBe("completed");
    // The MCP SDK's client dispatches notifications a microtask later than responses, so a
    // progress notification the server sends right before its result can be dropped by the
    // client: the first one always arrives, the last one may not.
    const progress = client.notifications("item/mcpToolCall/progress").map((m) => m.params);
    expect(progress[0]).toEqual({ threadId, turnId, itemId: "call_slow", message: "step 1 of 2" });
    expect(progress.map((params) => params.message)).toEqual(
      ["step 1 of 2", "step 2 of 2"].slice(0, progress.length),
    );
    const lines = flow(client, turnId).filter((line) => line.includes("mcpToolCall"));
    expect(lines[0]).toBe("item/started mcpToolCall inProgress");
    expect(lines.at(-1)).toBe("item/completed mcpToolCall completed");
    expect(lines.slice(1, -1)).toEqual(progress.map(() => "item/mcpToolCall/progress"));
    expect(referenceSchemaFailures(client)).toEqual([]);
  }, 90_000);
});
