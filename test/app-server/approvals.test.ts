/**
 * Approvals as server → client requests (reference session-089.jsonl, "04-approvals" and
 * "07-cancel"): item/commandExecution/requestApproval and item/fileChange/requestApproval with
 * accept, acceptForSession, decline and cancel, and a client that never answers (bounded by
 * approval_timeout_ms, then declined).
 */
import { access, readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { AppClient, WireMessage } from "../support/app-server-client.js";
import { useAppServerHarness } from "../support/app-server-harness.js";
import { referenceSchemaFailures } from "../support/app-server-schemas.js";
import { customToolCall, functionCall, message, turn } from "../support/fake-model-server.js";
import { noSandbox } from "../support/skips.js";
import { flow, liveItems, runTurn, startThread, type WireItem, withoutTimes } from "./flow.js";

const h = useAppServerHarness();
// Approved commands run in the sandbox (workspace-write, or the config's read-only).
const unsandboxed = await noSandbox("app-server approvals that run the approved command");

const exists = (path: string) =>
  access(path).then(
    () => true,
    () => false,
  );

/** Answer every approval request with `decision`, recording the requests. */
function answerWith(client: AppClient, decision: string): WireMessage[] {
  const asked: WireMessage[] = [];
  client.onRequest = (request) => {
    asked.push(request);
    return { result: { decision } };
  };
  return asked;
}

const UNTRUSTED = {
  approvalPolicy: "untrusted",
  sandboxPolicy: { type: "workspaceWrite", writableRoots: [], networkAccess: false },
};

/** The stored turn `turnId` (thread/read) shows each item as the live stream last completed it. */
async function expectStoredAsLive(client: AppClient, threadId: string, turnId: string): Promise<void> {
  const read = await client.call("thread/read", { threadId, includeTurns: true });
  const stored = read.thread.turns.find((entry: { id: string }) => entry.id === turnId);
  // A prompt's content is the client's input echoed as it was sent; the rest must be equal.
  const notPrompt = (item: WireItem) => item.type !== "userMessage";
  expect(stored.items.map(withoutTimes).filter(notPrompt)).toEqual(
    liveItems(client, turnId).filter(notPrompt),
  );
}

describe("app-server: command approvals", () => {
  it.skipIf(unsandboxed)("asks before an untrusted command and runs it when accepted", async () => {
    const client = await h.stdio();
    const asked = answerWith(client, "accept");
    const threadId = await startThread(client, { cwd: h.work });
    h.model.enqueue(
      turn(functionCall("shell_command", { command: "touch approved-by-app.txt && echo ok" }, "call_1")),
      turn(message("approvals done")),
    );
    const { turnId, completed } = await runTurn(client, threadId, "approvals please", UNTRUSTED);
    expect(completed.params.turn.status).toBe("completed");
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatchObject({
      method: "item/commandExecution/requestApproval",
      params: {
        threadId,
        turnId,
        itemId: "call_1",
        reason: null,
        command: "/bin/bash -lc 'touch approved-by-app.txt && echo ok'",
        cwd: h.work,
        commandActions: [
          { type: "unknown", command: "touch approved-by-app.txt" },
          { type: "unknown", command: "echo ok" },
        ],
        proposedExecpolicyAmendment: ["touch", "approved-by-app.txt"],
      },
    });
    expect(flow(client, turnId).slice(3, 6)).toEqual([
      "item/started commandExecution inProgress",
      "item/commandExecution/outputDelta",
      "item/completed commandExecution completed",
    ]);
    // The request came after the item started (as in Codex's transcript).
    const started = client.received.findIndex(
      (m) => m.method === "item/started" && m.params.item.id === "call_1",
    );
    const request = client.received.findIndex((m) => m.method === "item/commandExecution/requestApproval");
    expect(started).toBeLessThan(request);
    expect(await exists(join(h.work, "approved-by-app.txt"))).toBe(true);
    expect(referenceSchemaFailures(client)).toEqual([]);
  });

  it("declined: the item is declined, then failed with exit -1, and the model is told", async () => {
    const client = await h.stdio();
    answerWith(client, "decline");
    const threadId = await startThread(client, { cwd: h.work });
    h.model.enqueue(
      turn(functionCall("shell_command", { command: "touch declined-by-app.txt" }, "call_2")),
      turn(message("approvals done")),
    );
    const { turnId, completed } = await runTurn(client, threadId, "approvals please", UNTRUSTED);
    expect(completed.params.turn.status).toBe("completed");
    const items = client
      .notifications("item/completed")
      .filter((m) => m.params.item.id === "call_2")
      .map((m) => m.params.item);
    expect(items.map((item) => item.status)).toEqual(["declined", "failed"]);
    expect(items[0]).toMatchObject({ aggregatedOutput: null, exitCode: null, durationMs: null });
    expect(items[1]).toMatchObject({ aggregatedOutput: "exec command rejected by user", exitCode: -1 });
    expect(flow(client, turnId).at(-1)).toBe("turn/completed completed");
    expect(h.model.requests[1]?.input).toContainEqual({
      type: "function_call_output",
      call_id: "call_2",
      output: "exec command rejected by user",
    });
    expect(await exists(join(h.work, "declined-by-app.txt"))).toBe(false);
    await expectStoredAsLive(client, threadId, turnId);
    expect(referenceSchemaFailures(client)).toEqual([]);
  });

  it("cancel: the item is declined and the turn is interrupted", async () => {
    const client = await h.stdio();
    answerWith(client, "cancel");
    const threadId = await startThread(client, { cwd: h.work });
    h.model.enqueue(turn(functionCall("shell_command", { command: "touch cancel-me.txt" }, "call_1")));
    const { turnId, completed } = await runTurn(client, threadId, "cancel it", {
      approvalPolicy: "untrusted",
    });
    expect(completed.params.turn).toEqual({
      id: turnId,
      items: [],
      itemsView: "summary",
      status: "interrupted",
      error: null,
    });
    expect(flow(client, turnId).slice(3)).toEqual([
      "item/started commandExecution inProgress",
      "item/completed commandExecution declined",
      "turn/completed interrupted",
    ]);
    expect(await exists(join(h.work, "cancel-me.txt"))).toBe(false);
    expect(referenceSchemaFailures(client)).toEqual([]);
  });

  it.skipIf(unsandboxed)(
    "acceptForSession: the same command is not asked about again in this thread",
    async () => {
      const client = await h.stdio();
      const asked = answerWith(client, "acceptForSession");
      const threadId = await startThread(client, { cwd: h.work, approvalPolicy: "untrusted" });
      const touch = (id: string) => functionCall("shell_command", { command: "touch again.txt" }, id);
      h.model.enqueue(
        turn(touch("call_1")),
        turn(message("one")),
        turn(touch("call_2")),
        turn(message("two")),
      );
      await runTurn(client, threadId, "first");
      await runTurn(client, threadId, "second");
      expect(asked.map((request) => request.params.itemId)).toEqual(["call_1"]);
      const statuses = client
        .notifications("item/completed")
        .filter((m) => m.params.item.type === "commandExecution")
        .map((m) => m.params.item.status);
      expect(statuses).toEqual(["completed", "completed"]);
    },
  );

  it("a client that never answers gets the declared outcome (decline) within approval_timeout_ms", async () => {
    const client = await h.stdio({ args: ["-c", "approval_timeout_ms=400"] });
    const asked: WireMessage[] = [];
    client.onRequest = (request) => {
      asked.push(request);
      return null;
    };
    const threadId = await startThread(client, { cwd: h.work });
    h.model.enqueue(
      turn(functionCall("shell_command", { command: "touch never.txt" }, "call_1")),
      turn(message("gave up waiting")),
    );
    const begun = Date.now();
    const { completed } = await runTurn(client, threadId, "ask me", { approvalPolicy: "untrusted" });
    expect(Date.now() - begun).toBeLessThan(5_000);
    expect(asked).toHaveLength(1);
    expect(completed.params.turn.status).toBe("completed");
    const statuses = client
      .notifications("item/completed")
      .filter((m) => m.params.item.id === "call_1")
      .map((m) => m.params.item.status);
    expect(statuses).toEqual(["declined", "failed"]);
    // A late answer is ignored: the server and the thread carry on.
    client.send({ id: asked[0]?.id ?? 0, result: { decision: "accept" } });
    h.model.enqueue(turn(message("still here")));
    expect((await runTurn(client, threadId, "next")).completed.params.turn.status).toBe("completed");
    expect(await exists(join(h.work, "never.txt"))).toBe(false);
  });
});

describe("app-server: patch approvals", () => {
  const PATCH = "*** Begin Patch\n*** Add File: asked.txt\n+approved\n*** End Patch\n";
  const READ_ONLY = { approvalPolicy: "on-request", sandboxPolicy: { type: "readOnly" } };

  it("asks about a patch the sandbox would not allow, with the item started first, and applies it when accepted", async () => {
    const client = await h.stdio();
    const asked = answerWith(client, "accept");
    const threadId = await startThread(client, { cwd: h.work });
    h.model.enqueue(turn(customToolCall("apply_patch", PATCH, "call_3")), turn(message("patched")));
    const { turnId } = await runTurn(client, threadId, "patch it", READ_ONLY);
    expect(asked).toEqual([
      expect.objectContaining({
        method: "item/fileChange/requestApproval",
        params: {
          threadId,
          turnId,
          itemId: "call_3",
          reason: `the sandbox is read-only; the patch writes ${join(h.work, "asked.txt")}`,
          grantRoot: null,
          startedAtMs: expect.any(Number),
        },
      }),
    ]);
    expect(flow(client, turnId).slice(3, 9)).toEqual([
      // The patch as the model streams it (0.171), then the item when it applies.
      "item/fileChange/patchUpdated",
      "item/fileChange/patchUpdated",
      "item/started fileChange inProgress",
      "item/fileChange/outputDelta",
      "item/completed fileChange completed",
      "turn/diff/updated",
    ]);
    const started = client.received.findIndex(
      (m) => m.method === "item/started" && m.params.item.id === "call_3",
    );
    const request = client.received.findIndex((m) => m.method === "item/fileChange/requestApproval");
    expect(started).toBeLessThan(request);
    expect(await readFile(join(h.work, "asked.txt"), "utf8")).toBe("approved\n");
    expect(referenceSchemaFailures(client)).toEqual([]);
  });

  it("a declined patch completes as declined and writes nothing", async () => {
    const client = await h.stdio();
    answerWith(client, "decline");
    const threadId = await startThread(client, { cwd: h.work });
    h.model.enqueue(turn(customToolCall("apply_patch", PATCH, "call_3")), turn(message("not patched")));
    const { turnId, completed } = await runTurn(client, threadId, "patch it", READ_ONLY);
    expect(completed.params.turn.status).toBe("completed");
    expect(flow(client, turnId).slice(3, 7)).toEqual([
      "item/fileChange/patchUpdated",
      "item/fileChange/patchUpdated",
      "item/started fileChange inProgress",
      "item/completed fileChange declined",
    ]);
    expect(await exists(join(h.work, "asked.txt"))).toBe(false);
    expect(referenceSchemaFailures(client)).toEqual([]);
  });
});

describe("app-server: questions to the user (request_user_input)", () => {
  const COLOR = {
    questions: [
      {
        id: "color",
        header: "Color",
        question: "Pick a color?",
        options: [
          { label: "Red (Recommended)", description: "warm" },
          { label: "Blue", description: "cool" },
        ],
      },
    ],
  };

  it("asks the client with item/tool/requestUserInput and gives the model its answers", async () => {
    const client = await h.stdio({ args: ["-c", "features.collaboration_modes=true"] });
    const asked: WireMessage[] = [];
    client.onRequest = (request) => {
      asked.push(request);
      return { result: { answers: { color: { answers: ["Blue"] } } } };
    };
    const threadId = await startThread(client, { cwd: h.work });
    h.model.enqueue(
      turn(functionCall("request_user_input", COLOR, "call_1")),
      turn(message("user input done")),
    );
    const { turnId, completed } = await runTurn(client, threadId, "ask me");
    expect(completed.params.turn.status).toBe("completed");
    expect(asked).toEqual([
      expect.objectContaining({
        method: "item/tool/requestUserInput",
        params: { threadId, turnId, itemId: "call_1", isBlocking: true, questions: COLOR.questions },
      }),
    ]);
    expect(h.model.requests[1]?.input).toContainEqual({
      type: "function_call_output",
      call_id: "call_1",
      output: JSON.stringify({ answers: { color: { answers: ["Blue"] } } }),
    });
    expect(referenceSchemaFailures(client)).toEqual([]);
  });

  it("an error reply declines the question", async () => {
    const client = await h.stdio({ args: ["-c", "features.collaboration_modes=true"] });
    client.onRequest = () => ({ error: { code: -32000, message: "no" } });
    const threadId = await startThread(client, { cwd: h.work });
    h.model.enqueue(turn(functionCall("request_user_input", COLOR, "call_1")), turn(message("ok")));
    await runTurn(client, threadId, "ask me");
    expect(h.model.requests[1]?.input).toContainEqual({
      type: "function_call_output",
      call_id: "call_1",
      output: "the user declined to answer",
    });
  });
});
