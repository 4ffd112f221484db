/**
 * The event → notification mapping on its own, for the paths end-to-end runs rarely take: retried
 * streams, an interrupted message, a command that ends without having begun, output split inside
 * a UTF-8 character, failed patches and MCP calls, compaction. Every notification is checked
 * against Codex's schema.
 */
import { describe, expect, it } from "vitest";
import { EventMapper } from "../../src/frontends/app-server/event-mapper.js";
import type { Event } from "../../src/protocol/events.js";
import { emptyUsage } from "../../src/protocol/items.js";
import type { WireMessage } from "../support/app-server-client.js";
import { notificationFailures } from "../support/app-server-schemas.js";

const THREAD = "01a2005a-9d09-72a1-96dd-a39e629b1d73";

function mapAll(events: Event[], mapper = new EventMapper(THREAD, () => undefined)): WireMessage[] {
  const out = events.flatMap((event) => mapper.map(event)) as WireMessage[];
  expect(notificationFailures(out)).toEqual([]);
  return out;
}

const started: Event = { type: "turn_started", turn_id: "3", model_context_window: 1000 };
const bash = ["/bin/bash", "-lc", "printf 'é'"];

describe("EventMapper", () => {
  it("reports a retried stream as a retrying error, and a failed turn with its message", () => {
    const out = mapAll([
      started,
      { type: "stream_error", message: "stream dropped", attempt: 1, max_attempts: 5, delay_ms: 200 },
      { type: "error", message: "gave up" },
      { type: "turn_failed", turn_id: "3", message: "gave up" },
    ]);
    expect(out.map((m) => [m.method, m.params.willRetry])).toEqual([
      ["turn/started", undefined],
      ["error", true],
      ["error", false],
      ["turn/completed", undefined],
    ]);
    expect(out[1]?.params).toEqual({
      threadId: THREAD,
      turnId: "3",
      error: { message: "stream dropped", codexErrorInfo: null, additionalDetails: null },
      willRetry: true,
    });
    expect(out[3]?.params.turn).toEqual({
      id: "3",
      items: [],
      itemsView: "summary",
      status: "failed",
      error: { message: "gave up", codexErrorInfo: null, additionalDetails: null },
    });
  });

  it("completes a message cut short by an interrupt with the text streamed so far", () => {
    const out = mapAll([
      started,
      { type: "agent_message_delta", delta: "Hal" },
      { type: "agent_message_delta", delta: "f" },
      { type: "turn_aborted", turn_id: "3", reason: "interrupted" },
    ]);
    expect(out.map((m) => m.method)).toEqual([
      "turn/started",
      "item/started",
      "item/agentMessage/delta",
      "item/agentMessage/delta",
      "item/completed",
      "turn/completed",
    ]);
    expect(out[4]?.params.item).toMatchObject({
      type: "agentMessage",
      text: "Half",
      id: out[1]?.params.item.id,
    });
    expect(out[5]?.params.turn.status).toBe("interrupted");
  });

  it("decodes output split inside a character, and starts an item for an end without a beginning", () => {
    const bytes = new TextEncoder().encode("é");
    const mapper = new EventMapper(THREAD, () => undefined);
    const out = mapAll(
      [
        started,
        { type: "exec_command_begin", call_id: "c1", turn_id: "3", command: bash, cwd: "/w" },
        { type: "exec_command_output_delta", call_id: "c1", stream: "stdout", chunk: bytes.slice(0, 1) },
        { type: "exec_command_output_delta", call_id: "c1", stream: "stdout", chunk: bytes.slice(1) },
        {
          type: "exec_command_end",
          call_id: "c2",
          turn_id: "3",
          command: ["false"],
          cwd: "/w",
          exit_code: 1,
          duration_ms: 4,
          stdout: "",
          stderr: "",
          aggregated_output: "",
          formatted_output: "",
        },
      ],
      mapper,
    );
    const deltas = out
      .filter((m) => m.method === "item/commandExecution/outputDelta")
      .map((m) => m.params.delta);
    expect(deltas).toEqual(["é"]);
    expect(out.slice(-2).map((m) => [m.method, m.params.item.id, m.params.item.status])).toEqual([
      ["item/started", "c2", "inProgress"],
      ["item/completed", "c2", "failed"],
    ]);
  });

  it("shows a failed patch with its error as the output, and failed MCP calls with their error", () => {
    const changes = {
      "/w/a.txt": { type: "update" as const, unified_diff: "@@ -1 +1 @@\n-a\n+b\n", move_path: null },
    };
    const out = mapAll([
      started,
      { type: "patch_apply_begin", call_id: "p1", turn_id: "3", auto_approved: true, changes },
      {
        type: "patch_apply_end",
        call_id: "p1",
        turn_id: "3",
        stdout: "",
        stderr: "Failed to find expected lines\n",
        success: false,
        changes,
      },
      { type: "mcp_tool_call_begin", call_id: "m1", invocation: { server: "s", tool: "t", arguments: null } },
      {
        type: "mcp_tool_call_end",
        call_id: "m1",
        invocation: { server: "s", tool: "t", arguments: null },
        duration_ms: 9,
        result: { Err: "timed out after 1 seconds (tool_timeout_sec)" },
      },
      { type: "context_compacted", summary: "s", replacement_history: [] },
    ]);
    expect(out[1]?.params.item.changes).toEqual([
      { path: "/w/a.txt", kind: { type: "update", move_path: null }, diff: "@@ -1 +1 @@\n-a\n+b\n" },
    ]);
    expect(out[2]?.params.delta).toBe("Failed to find expected lines\n");
    expect(out[3]?.params.item.status).toBe("failed");
    expect(out[5]?.params.item).toMatchObject({
      status: "failed",
      error: { message: "timed out after 1 seconds (tool_timeout_sec)" },
      durationMs: 9,
    });
    // Compaction: its item (as 0.169 shows it) starts and completes, then thread/compacted.
    expect(out.slice(6).map((n) => [n.method, n.params.item?.type])).toEqual([
      ["item/started", "contextCompaction"],
      ["item/completed", "contextCompaction"],
      ["thread/compacted", undefined],
    ]);
    expect(out[8]).toEqual({ method: "thread/compacted", params: { threadId: THREAD, turnId: "3" } });
  });

  it("shows a declined command as declined, then failed; a cancelled one only as declined", () => {
    const mapper = new EventMapper(THREAD, () => undefined);
    const begin = (id: string): Event => ({
      type: "exec_command_begin",
      call_id: id,
      turn_id: "3",
      command: bash,
      cwd: "/w",
    });
    const end = (id: string): Event => ({
      type: "exec_command_end",
      call_id: id,
      turn_id: "3",
      command: bash,
      cwd: "/w",
      exit_code: -1,
      duration_ms: 0,
      stdout: "",
      stderr: "exec command rejected by user",
      aggregated_output: "exec command rejected by user",
      formatted_output: "exec command rejected by user",
    });
    mapAll([started, begin("d"), begin("c")], mapper);
    const declined = [...mapper.declined("d", false), ...mapper.map(end("d"))] as WireMessage[];
    const cancelled = [...mapper.declined("c", true), ...mapper.map(end("c"))] as WireMessage[];
    expect(declined.map((m) => m.params.item.status)).toEqual(["declined", "failed"]);
    expect(cancelled.map((m) => m.params.item.status)).toEqual(["declined"]);
    expect(notificationFailures([...declined, ...cancelled])).toEqual([]);
  });

  it("reports token usage, an absent last usage as zeros", () => {
    const total = { ...emptyUsage(), input_tokens: 10, output_tokens: 5, total_tokens: 15 };
    const [note] = mapAll([{ type: "token_count", last: null, total, model_context_window: null }]);
    expect(note?.params.tokenUsage).toEqual({
      total: {
        totalTokens: 15,
        inputTokens: 10,
        cachedInputTokens: 0,
        outputTokens: 5,
        reasoningOutputTokens: 0,
      },
      last: {
        totalTokens: 0,
        inputTokens: 0,
        cachedInputTokens: 0,
        outputTokens: 0,
        reasoningOutputTokens: 0,
      },
      modelContextWindow: null,
    });
  });

  it("sends a command hook's runs and leaves a library callback's out (the wire has no such kind)", () => {
    const run = (handler: "command" | "callback") => ({
      id: handler === "command" ? "stop:0:/home/me/.codex/hooks.json" : "stop:1:callback:check",
      event_name: "Stop",
      handler_type: handler,
      execution_mode: "sync" as const,
      scope: "turn" as const,
      source_path: handler === "command" ? "/home/me/.codex/hooks.json" : "callback:check",
      source: handler === "command" ? ("user" as const) : ("sessionFlags" as const),
      display_order: handler === "command" ? 0 : 1,
      status: "running" as const,
      status_message: null,
      started_at: 1,
      completed_at: null,
      duration_ms: null,
      entries: [],
    });
    const out = mapAll([
      started,
      { type: "hook_started", turn_id: "3", run: run("command") },
      { type: "hook_started", turn_id: "3", run: run("callback") },
    ]);
    expect(out.map((m) => [m.method, m.params.run?.handlerType])).toEqual([
      ["turn/started", undefined],
      ["hook/started", "command"],
    ]);
  });
});
