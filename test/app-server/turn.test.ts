/**
 * A full turn through the real `tscodex app-server` over stdio, as reference/app-server
 * session-089.jsonl records Codex's: the handshake, thread/start, then a turn that reasons, runs
 * a command, applies a patch, updates the plan and answers; notifications in Codex's order and
 * shapes, and every message valid against Codex's schemas.
 */
import { appendFile, readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { useAppServerHarness } from "../support/app-server-harness.js";
import { referenceSchemaFailures } from "../support/app-server-schemas.js";
import {
  customToolCall,
  functionCall,
  message,
  reasoning,
  turn,
  usage,
  webSearchCall,
} from "../support/fake-model-server.js";
import { fixtureToml } from "../support/mcp-fixture.js";
import { completedItems, flow, runTurn, startThread } from "./flow.js";

const h = useAppServerHarness();

const PATCH = "*** Begin Patch\n*** Add File: app.txt\n+from app-server\n*** End Patch\n";

describe("app-server: a full turn", () => {
  it("streams a command, a patch, a plan and a message in Codex's order and shapes", async () => {
    const client = await h.stdio();
    const threadId = await startThread(client, {
      cwd: h.work,
      approvalPolicy: "never",
      sandbox: "danger-full-access",
    });
    h.model.enqueue(
      turn(
        reasoning("**Plan** run things"),
        functionCall("shell_command", { command: "echo app-server && ls" }, "call_2"),
        usage({ input: 10, output: 5 }),
      ),
      turn(customToolCall("apply_patch", PATCH, "call_3"), usage({ input: 10, output: 5 })),
      turn(
        functionCall(
          "update_plan",
          {
            explanation: "progress",
            plan: [
              { step: "run", status: "completed" },
              { step: "report", status: "in_progress" },
            ],
          },
          "call_4",
        ),
        usage({ input: 10, output: 5 }),
      ),
      turn(message("turn one done"), usage({ input: 10, output: 5 })),
    );
    const { turnId, completed } = await runTurn(client, threadId, "do the task");

    expect(flow(client, turnId)).toEqual([
      "turn/started",
      "item/started userMessage",
      "item/completed userMessage",
      "item/started reasoning",
      // Issue 23: the reasoning item now streams (the reference model streamed no summary).
      "item/reasoning/summaryPartAdded",
      "item/reasoning/summaryTextDelta",
      "item/reasoning/summaryTextDelta",
      "item/reasoning/summaryTextDelta",
      "item/completed reasoning",
      "item/started commandExecution inProgress",
      "item/commandExecution/outputDelta",
      "item/completed commandExecution completed",
      // 0.171: the patch as the model streams it, before the item starts.
      "item/fileChange/patchUpdated",
      "item/fileChange/patchUpdated",
      "item/started fileChange inProgress",
      "item/fileChange/outputDelta",
      "item/completed fileChange completed",
      "turn/diff/updated",
      "turn/plan/updated",
      "item/started agentMessage",
      "item/agentMessage/delta",
      "item/agentMessage/delta",
      "item/agentMessage/delta",
      "item/completed agentMessage",
      "turn/completed completed",
    ]);
    // Codex's summary view of the turn: its final answer, as item/completed gave it.
    const [final] = completedItems(client, turnId, "agentMessage");
    expect(completed.params).toEqual({
      threadId,
      turn: { id: turnId, items: [final], itemsView: "summary", status: "completed", error: null },
    });

    const [command] = completedItems(client, turnId, "commandExecution");
    expect(command).toMatchObject({
      id: "call_2",
      command: "/bin/bash -lc 'echo app-server && ls'",
      cwd: h.work,
      processId: null,
      status: "completed",
      commandActions: [{ type: "listFiles", command: "ls", path: null }],
      aggregatedOutput: "app-server\n",
      exitCode: 0,
    });
    expect(command.durationMs).toBeGreaterThanOrEqual(0);
    const delta = client.notifications("item/commandExecution/outputDelta")[0];
    expect(delta?.params).toEqual({ threadId, turnId, itemId: "call_2", delta: "app-server\n" });

    const [patch] = completedItems(client, turnId, "fileChange");
    expect(patch).toEqual({
      type: "fileChange",
      id: "call_3",
      changes: [{ path: join(h.work, "app.txt"), kind: { type: "add" }, diff: "from app-server\n" }],
      status: "completed",
    });
    expect(client.notifications("item/fileChange/outputDelta")[0]?.params.delta).toBe(
      "Success. Updated the following files:\nA app.txt\n",
    );
    expect(await readFile(join(h.work, "app.txt"), "utf8")).toBe("from app-server\n");
    expect(client.notifications("turn/diff/updated")[0]?.params.diff).toContain("+from app-server");

    expect(client.notifications("turn/plan/updated")[0]?.params).toEqual({
      threadId,
      turnId,
      explanation: "progress",
      plan: [
        { step: "run", status: "completed" },
        { step: "report", status: "inProgress" },
      ],
    });
    const [reasoningItem] = completedItems(client, turnId, "reasoning");
    expect(reasoningItem).toEqual({
      type: "reasoning",
      id: "rs_1",
      summary: ["**Plan** run things"],
      content: [],
    });
    const [answer] = completedItems(client, turnId, "agentMessage");
    const deltas = client
      .notifications("item/agentMessage/delta")
      .filter((m) => m.params.itemId === answer.id)
      .map((m) => m.params.delta);
    expect(deltas.join("")).toBe("turn one done");
    expect(answer.text).toBe("turn one done");
    const [user] = completedItems(client, turnId, "userMessage");
    expect(user.content).toEqual([{ type: "text", text: "do the task", text_elements: [] }]);

    const usageNotes = client.notifications("thread/tokenUsage/updated").map((m) => m.params.tokenUsage);
    expect(usageNotes.at(-1)).toMatchObject({
      total: { totalTokens: 60, inputTokens: 40, outputTokens: 20 },
      last: { totalTokens: 15, inputTokens: 10, outputTokens: 5 },
      modelContextWindow: 272000,
    });
    expect(referenceSchemaFailures(client)).toEqual([]);
  });

  it("answers turn/start before turn/started, and thread/start before thread/started", async () => {
    const client = await h.stdio();
    const threadId = await startThread(client, { cwd: h.work });
    h.model.enqueue(turn(message("hi")));
    const { turnId } = await runTurn(client, threadId, "hello");
    const index = (match: (m: (typeof client.received)[number]) => boolean) =>
      client.received.findIndex(match);
    const startReply = index((m) => m.result?.thread?.id === threadId && m.method === undefined);
    const started = index((m) => m.method === "thread/started");
    const turnReply = index((m) => m.result?.turn?.id === turnId);
    const turnStarted = index((m) => m.method === "turn/started");
    expect(startReply).toBeGreaterThanOrEqual(0);
    expect(startReply).toBeLessThan(started);
    expect(turnReply).toBeLessThan(turnStarted);
    const reply = client.received[turnReply];
    expect(reply?.result).toEqual({ turn: { id: turnId, items: [], status: "inProgress", error: null } });
    expect(client.received[started]?.params.thread).toMatchObject({
      id: threadId,
      preview: "",
      modelProvider: "fake",
      cwd: h.work,
      source: "vscode",
      gitInfo: null,
      turns: [],
    });
    expect(client.received[started]?.params.thread.path).toMatch(
      new RegExp(`rollout-.*-${threadId}\\.jsonl$`),
    );
    expect(referenceSchemaFailures(client)).toEqual([]);
  });

  it("shows MCP tool calls and web searches as items", async () => {
    await appendFile(join(h.home, "config.toml"), `\n${await fixtureToml({ name: "fixture" })}`);
    const client = await h.stdio();
    const threadId = await startThread(client, { cwd: h.work });
    h.model.enqueue(
      turn(webSearchCall("weather in Paris"), functionCall("mcp__fixture__echo", { text: "hi" }, "call_7")),
      turn(message("searched and echoed")),
    );
    const { turnId, completed } = await runTurn(client, threadId, "search and echo");
    expect(completed.params.turn.status).toBe("completed");
    expect(flow(client, turnId).slice(3, 7)).toEqual([
      "item/started webSearch",
      "item/completed webSearch",
      "item/started mcpToolCall inProgress",
      "item/completed mcpToolCall completed",
    ]);
    const [search] = completedItems(client, turnId, "webSearch");
    expect(search).toEqual({ type: "webSearch", id: "ws_1", query: "weather in Paris" });
    const [call] = completedItems(client, turnId, "mcpToolCall");
    expect(call).toMatchObject({
      id: "call_7",
      server: "fixture",
      tool: "echo",
      status: "completed",
      arguments: { text: "hi" },
      result: { content: [{ type: "text", text: "echo: hi" }] },
      error: null,
    });
    expect(referenceSchemaFailures(client)).toEqual([]);
  });

  it("reports a failing model as error then turn/completed failed, and the next turn works", async () => {
    const client = await h.stdio();
    const threadId = await startThread(client, { cwd: h.work });
    // No scripted answer: the fake model server answers 500 and the client retries, then gives up.
    const { turnId, completed } = await runTurn(client, threadId, "fail please");
    expect(completed.params.turn.status).toBe("failed");
    expect(completed.params.turn.error.message).toContain("no scripted turn left");
    const errors = client.notifications("error").filter((m) => m.params.turnId === turnId);
    expect(errors.some((m) => m.params.willRetry === true)).toBe(true);
    expect(errors.at(-1)?.params.willRetry).toBe(false);
    h.model.enqueue(turn(message("recovered")));
    const next = await runTurn(client, threadId, "again");
    expect(next.completed.params.turn.status).toBe("completed");
    expect(referenceSchemaFailures(client)).toEqual([]);
  });
});
