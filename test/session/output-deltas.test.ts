/**
 * Thread.subscribe's `outputDeltas: false`: such listeners never see output deltas, and while
 * only such listeners are subscribed the turn tells tools nobody wants deltas.
 */

import { describe, expect, it } from "vitest";
import type { Event } from "../../src/protocol/events.js";
import { NO_EXTENT, permissionsFromSandboxMode } from "../../src/protocol/permissions-legacy.js";
import { Thread } from "../../src/session/thread.js";
import { runsAsIs, type ToolDefinition, type ToolInvocation } from "../../src/tools/types.js";
import { call, completed, message, scriptedClient } from "../support/scripted-model.js";
import { testThreadServices } from "../support/thread-services.js";

/** A tool that reports whether deltas are wanted and emits one delta either way. */
function deltaTool(seen: (boolean | undefined)[]): ToolDefinition {
  return {
    spec: {
      type: "function",
      name: "probe",
      description: "test",
      strict: false,
      parameters: { type: "object" },
    },
    supportsParallel: false,
    handler: {
      kinds: ["function"],
      prepare: async (inv: ToolInvocation) =>
        runsAsIs(async () => {
          seen.push(inv.turn.wantsOutputDeltas?.());
          inv.turn.emit({
            type: "exec_command_output_delta",
            call_id: inv.callId,
            stream: "stdout",
            chunk: Buffer.from("x"),
          });
          return { content: "ok" };
        }),
    },
  };
}

function runProbeTurn(thread: Thread): Promise<unknown> {
  return thread.run({ text: "go" });
}

describe("Thread output-delta listeners", () => {
  it("tells tools whether anyone listens for deltas, and spares the listeners that opted out", async () => {
    const seen: (boolean | undefined)[] = [];
    const client = scriptedClient([
      () => [call("probe", {}, "c1"), completed()],
      () => [message("done"), completed()],
      () => [call("probe", {}, "c2"), completed()],
      () => [message("done"), completed()],
    ]);
    const thread = new Thread("t-1", testThreadServices(client, [deltaTool(seen)]), {
      cwd: "/tmp",
      approvalPolicy: "never",
      permissions: permissionsFromSandboxMode("read-only"),
      configuredExtent: NO_EXTENT,
    });
    const quiet: Event[] = [];
    thread.subscribe((event) => quiet.push(event), { outputDeltas: false });
    await runProbeTurn(thread);

    const loud: Event[] = [];
    const unsubscribe = thread.subscribe((event) => loud.push(event));
    await runProbeTurn(thread);
    unsubscribe();

    expect(seen).toEqual([false, true]);
    expect(quiet.some((event) => event.type === "exec_command_output_delta")).toBe(false);
    expect(quiet.filter((event) => event.type === "turn_complete")).toHaveLength(2);
    expect(loud.filter((event) => event.type === "exec_command_output_delta")).toHaveLength(1);
  });
});
