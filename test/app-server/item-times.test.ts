/**
 * Codex 0.169+ stamps each item notification with when the item started / completed
 * (`startedAtMs` on item/started, `completedAtMs` on item/completed) and each approval request
 * with when it was asked: the times are the core's (ItemTracker), not the send's, so a command's
 * completion is later than its start by about the time it ran.
 */
import { describe, expect, it } from "vitest";
import { useAppServerHarness } from "../support/app-server-harness.js";
import { functionCall, message, turn } from "../support/fake-model-server.js";
import { noSandbox } from "../support/skips.js";
import { runTurn, startThread } from "./flow.js";

const h = useAppServerHarness();
const unsandboxed = await noSandbox("an app-server approval that runs the approved command");

describe("app-server: item times", () => {
  it("item/started and item/completed carry when each item started and completed", async () => {
    const client = await h.stdio();
    const threadId = await startThread(client, {
      cwd: h.work,
      approvalPolicy: "never",
      sandbox: "danger-full-access",
    });
    h.model.enqueue(
      turn(functionCall("shell_command", { command: "sleep 0.3" }, "call_1")),
      turn(message("slept")),
    );
    const before = Date.now();
    const { turnId } = await runTurn(client, threadId, "sleep a little");
    const after = Date.now();
    const started = client.notifications("item/started").filter((m) => m.params.turnId === turnId);
    const completed = client.notifications("item/completed").filter((m) => m.params.turnId === turnId);
    expect(started.map((m) => m.params.item.type)).toEqual([
      "userMessage",
      "commandExecution",
      "agentMessage",
    ]);
    for (const m of started) {
      expect(m.params.startedAtMs).toBeGreaterThanOrEqual(before);
      expect(m.params.startedAtMs).toBeLessThanOrEqual(after);
    }
    for (const m of completed) {
      const start = started.find((s) => s.params.item.id === m.params.item.id);
      expect(m.params.completedAtMs).toBeGreaterThanOrEqual(start?.params.startedAtMs);
      expect(m.params.completedAtMs).toBeLessThanOrEqual(after);
    }
    const command = (list: typeof started) => list.find((m) => m.params.item.type === "commandExecution");
    expect(
      command(completed)?.params.completedAtMs - command(started)?.params.startedAtMs,
    ).toBeGreaterThanOrEqual(250);
  });

  it.skipIf(unsandboxed)("an approval request carries when it was asked", async () => {
    const client = await h.stdio();
    const asked: number[] = [];
    client.onRequest = (request) => {
      asked.push(request.params.startedAtMs);
      return { result: { decision: "accept" } };
    };
    const threadId = await startThread(client, { cwd: h.work });
    h.model.enqueue(
      turn(functionCall("shell_command", { command: "touch asked.txt" }, "call_1")),
      turn(message("done")),
    );
    const before = Date.now();
    await runTurn(client, threadId, "ask first", {
      approvalPolicy: "untrusted",
      sandboxPolicy: { type: "workspaceWrite", writableRoots: [], networkAccess: false },
    });
    expect(asked).toHaveLength(1);
    expect(asked[0]).toBeGreaterThanOrEqual(before);
    expect(asked[0]).toBeLessThanOrEqual(Date.now());
  });
});
