/**
 * The ACP session/update mapping of a live thread. A real Thread (scripted model; the real
 * shell_command, apply_patch and update_plan tools) streams its events through subscribeItems
 * into SessionUpdateMapper, and the updates are asserted exactly: a plan, a command's tool call
 * with its output and exit code, a read-only command as `read`, an edit's diffs with old and new
 * text, streamed and unstreamed messages and reasoning, usage. What a scripted turn cannot provoke
 * here (MCP calls, approval questions, sub-agents) is fed as the core emits it, through the
 * thread's own listeners (and so its ItemTracker).
 */
import { readFile, writeFile } from "node:fs/promises";
import type { SessionUpdate } from "@agentclientprotocol/sdk";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { approvalToolCall } from "../../src/frontends/acp/approval-call.js";
import { SessionUpdateMapper } from "../../src/frontends/acp/updates.js";
import type { ResponseEvent } from "../../src/model/types.js";
import type { Event } from "../../src/protocol/events.js";
import { ItemTracker } from "../../src/protocol/item-tracker.js";
import { emptyUsage } from "../../src/protocol/items.js";
import { NO_EXTENT, permissionsFromSandboxMode } from "../../src/protocol/permissions-legacy.js";
import { ThreadListeners } from "../../src/session/listeners.js";
import { Thread } from "../../src/session/thread.js";
import { applyPatchJsonTool } from "../../src/tools/builtin/apply-patch.js";
import { shellCommandTool } from "../../src/tools/builtin/shell-command.js";
import { updatePlanTool } from "../../src/tools/builtin/update-plan.js";
import { call, completed, message, type Script, scriptedClient } from "../support/scripted-model.js";
import { testThreadServices } from "../support/thread-services.js";
import { type TempDir, tmpdir } from "../support/tmpdir.js";

let work: TempDir;
beforeEach(async () => {
  work = await tmpdir();
});
afterEach(async () => {
  await work.cleanup();
});

const streamed = (text: string): ResponseEvent[] => [
  { type: "output_text_delta", delta: text.slice(0, 3) },
  { type: "output_text_delta", delta: text.slice(3) },
  message(text),
];

const reasoningItem = (id: string, parts: string[]): ResponseEvent => ({
  type: "output_item_done",
  item: { type: "reasoning", id, summary: parts.map((text) => ({ type: "summary_text" as const, text })) },
});

const streamedReasoning = (id: string, parts: string[]): ResponseEvent[] => [
  ...parts.flatMap((text, summaryIndex): ResponseEvent[] => [
    { type: "reasoning_summary_part_added", itemId: id, summaryIndex },
    { type: "reasoning_summary_delta", delta: text, summaryIndex },
  ]),
  reasoningItem(id, parts),
];

/** A real thread in `work`, run once on `prompt` with `scripts`: the updates its events map to. */
async function liveUpdates(scripts: Script[]): Promise<SessionUpdate[]> {
  const tools = [shellCommandTool({ shellPath: "/bin/bash" }), applyPatchJsonTool(), updatePlanTool()];
  const thread = new Thread("t-acp", testThreadServices(scriptedClient(scripts), tools), {
    cwd: work.path,
    approvalPolicy: "never",
    permissions: permissionsFromSandboxMode("danger-full-access"),
    configuredExtent: NO_EXTENT,
  });
  const mapper = new SessionUpdateMapper({ cwd: work.path });
  const updates: SessionUpdate[] = [];
  thread.subscribeItems((event) => updates.push(...mapper.push(event)));
  expect((await thread.run({ text: "go" })).status).toBe("completed");
  return updates;
}

/** Events fed through a thread's listeners (the same ItemTracker a live thread uses). */
function fed(events: Event[], mapper = new SessionUpdateMapper({ cwd: "/w" })): SessionUpdate[] {
  const listeners = new ThreadListeners();
  const updates: SessionUpdate[] = [];
  listeners.subscribeItems((event) => updates.push(...mapper.push(event)));
  for (const event of events) listeners.emit(event);
  return updates;
}

const isTerminalDelta = (update: SessionUpdate) =>
  update.sessionUpdate === "tool_call_update" && update._meta?.terminal_output_delta !== undefined;

const turnStart: Event = { type: "turn_started", turn_id: "1", model_context_window: 1000 };
const turnEnd: Event = { type: "turn_complete", turn_id: "1", last_agent_message: null, usage: emptyUsage() };

describe("SessionUpdateMapper, a live thread", () => {
  it("maps a plan, a failing command with its output, a read, an edit's diffs, streamed text and usage", async () => {
    await writeFile(`${work.path}/a.txt`, "keep\nold\n");
    const cwd = work.path;
    const updates = await liveUpdates([
      () => [
        call(
          "update_plan",
          {
            plan: [
              { step: "look", status: "in_progress" },
              { step: "fix", status: "pending" },
            ],
          },
          "call_plan",
        ),
        call("shell_command", { command: "printf 'hi\\n'; exit 3", login: false }, "call_cmd"),
        completed({ input: 100, output: 20 }),
      ],
      () => [
        call("shell_command", { command: "cat a.txt", login: false }, "call_cat"),
        call(
          "apply_patch",
          {
            input:
              "*** Begin Patch\n*** Update File: a.txt\n@@\n keep\n-old\n+new\n*** Add File: b.txt\n+hello\n*** End Patch\n",
          },
          "call_patch",
        ),
        completed({ input: 150, output: 10 }),
      ],
      () => [...streamed("All done."), completed({ input: 200, output: 5 })],
    ]);
    expect(await readFile(`${cwd}/a.txt`, "utf8")).toBe("keep\nnew\n");

    // The live output streams as Zed terminal deltas (chunking is the OS's): together, the output.
    const terminalData = (id: string) =>
      updates
        .filter(
          (update) =>
            isTerminalDelta(update) &&
            update.sessionUpdate === "tool_call_update" &&
            update.toolCallId === id,
        )
        .map((update) => (update._meta?.terminal_output_delta as { data: string } | undefined)?.data ?? "")
        .join("");
    expect(terminalData("call_cmd")).toBe("hi\n");
    expect(terminalData("call_cat")).toBe("");

    const diffs = [
      {
        type: "diff",
        path: `${cwd}/a.txt`,
        oldText: "keep\nold\n",
        newText: "keep\nnew\n",
        _meta: { kind: "update" },
      },
      { type: "diff", path: `${cwd}/b.txt`, oldText: null, newText: "hello\n", _meta: { kind: "add" } },
    ];
    const locations = [{ path: `${cwd}/a.txt` }, { path: `${cwd}/b.txt` }];
    expect(updates.filter((update) => !isTerminalDelta(update))).toEqual([
      { sessionUpdate: "usage_update", used: 120, size: 1000 },
      {
        sessionUpdate: "plan",
        entries: [
          { content: "look", status: "in_progress", priority: "medium" },
          { content: "fix", status: "pending", priority: "medium" },
        ],
      },
      {
        sessionUpdate: "tool_call",
        toolCallId: "call_cmd",
        status: "in_progress",
        title: "printf 'hi\\n'; exit 3",
        kind: "execute",
        rawInput: { command: "printf 'hi\\n'; exit 3", cwd },
        locations: [],
        _meta: { terminal_info: { terminal_id: "call_cmd", cwd } },
      },
      {
        sessionUpdate: "tool_call_update",
        toolCallId: "call_cmd",
        status: "failed",
        rawOutput: { exit_code: 3, output: "hi\n" },
        content: [{ type: "content", content: { type: "text", text: "```\nhi\n```" } }],
        // Streamed already: only the exit goes with the end.
        _meta: { terminal_exit: { terminal_id: "call_cmd", exit_code: 3, signal: null } },
      },
      { sessionUpdate: "usage_update", used: 160, size: 1000 },
      {
        sessionUpdate: "tool_call",
        toolCallId: "call_cat",
        status: "in_progress",
        title: "cat a.txt",
        kind: "read",
        rawInput: { command: "cat a.txt", cwd },
        locations: [{ path: `${cwd}/a.txt` }],
      },
      {
        sessionUpdate: "tool_call_update",
        toolCallId: "call_cat",
        status: "completed",
        rawOutput: { exit_code: 0, output: "keep\nold\n" },
        content: [{ type: "content", content: { type: "text", text: "```\nkeep\nold\n```" } }],
      },
      {
        sessionUpdate: "tool_call",
        toolCallId: "call_patch",
        status: "in_progress",
        title: "Edit a.txt, b.txt",
        kind: "edit",
        content: diffs,
        locations,
      },
      {
        sessionUpdate: "tool_call_update",
        toolCallId: "call_patch",
        status: "completed",
        content: diffs,
        locations,
        rawOutput: { output: "Success. Updated the following files:\nA b.txt\nM a.txt\n" },
      },
      { sessionUpdate: "agent_message_chunk", messageId: "item-2", content: { type: "text", text: "All" } },
      {
        sessionUpdate: "agent_message_chunk",
        messageId: "item-2",
        content: { type: "text", text: " done." },
      },
      { sessionUpdate: "usage_update", used: 205, size: 1000 },
    ]);
  });

  it("shows whole a message and reasoning that streamed nothing; streamed reasoning parts as thought chunks", async () => {
    const updates = await liveUpdates([
      () => [
        ...streamedReasoning("rs_1", ["Look first.", "Then act."]),
        reasoningItem("rs_2", ["Quiet thought."]),
        message("Whole answer."),
        completed(),
      ],
    ]);
    expect(updates).toEqual([
      {
        sessionUpdate: "agent_thought_chunk",
        messageId: "rs_1",
        content: { type: "text", text: "Look first." },
      },
      { sessionUpdate: "agent_thought_chunk", messageId: "rs_1", content: { type: "text", text: "\n\n" } },
      {
        sessionUpdate: "agent_thought_chunk",
        messageId: "rs_1",
        content: { type: "text", text: "Then act." },
      },
      {
        sessionUpdate: "agent_thought_chunk",
        messageId: "rs_2",
        content: { type: "text", text: "Quiet thought." },
      },
      {
        sessionUpdate: "agent_message_chunk",
        messageId: "item-2",
        content: { type: "text", text: "Whole answer." },
      },
    ]);
  });
});

describe("SessionUpdateMapper, events the core emits", () => {
  const invocation = { server: "docs", tool: "lookup", arguments: { q: "tides" } };

  it("maps an MCP call to an `other` tool call with its result, and a failed one to failed", () => {
    const updates = fed([
      turnStart,
      { type: "mcp_tool_call_begin", call_id: "call_mcp", invocation },
      {
        type: "mcp_tool_call_end",
        call_id: "call_mcp",
        invocation,
        duration_ms: 4,
        result: {
          Ok: { content: [{ type: "text", text: "High at noon." }], structuredContent: { high: "12:00" } },
        },
      },
      { type: "mcp_tool_call_begin", call_id: "call_bad", invocation },
      {
        type: "mcp_tool_call_end",
        call_id: "call_bad",
        invocation,
        duration_ms: 1,
        result: { Err: "server gone" },
      },
      turnEnd,
    ]);
    const started = (id: string) => ({
      sessionUpdate: "tool_call",
      toolCallId: id,
      status: "in_progress",
      title: "mcp.docs.lookup",
      kind: "other",
      rawInput: { server: "docs", tool: "lookup", arguments: { q: "tides" } },
    });
    expect(updates).toEqual([
      started("call_mcp"),
      {
        sessionUpdate: "tool_call_update",
        toolCallId: "call_mcp",
        status: "completed",
        content: [{ type: "content", content: { type: "text", text: "High at noon." } }],
        rawOutput: {
          content: [{ type: "text", text: "High at noon." }],
          structuredContent: { high: "12:00" },
        },
      },
      started("call_bad"),
      {
        sessionUpdate: "tool_call_update",
        toolCallId: "call_bad",
        status: "failed",
        content: [{ type: "content", content: { type: "text", text: "server gone" } }],
        rawOutput: { error: "server gone" },
      },
    ]);
  });

  const question: Event = {
    type: "exec_approval_request",
    call_id: "call_ask",
    turn_id: "1",
    command: ["/bin/bash", "-lc", "rm -rf build"],
    cwd: "/w",
    reason: "clean the build",
  };
  const asked = {
    toolCallId: "call_ask",
    status: "pending",
    kind: "execute",
    title: "rm -rf build",
    content: [{ type: "content", content: { type: "text", text: "clean the build" } }],
    locations: [],
    rawInput: { command: "rm -rf build", cwd: "/w" },
  };

  it("announces an approval question's call as pending; a declined one fails, once", () => {
    if (question.type !== "exec_approval_request") throw new Error("unreachable");
    expect(approvalToolCall(question)).toEqual(asked);
    const mapper = new SessionUpdateMapper({ cwd: "/w" });
    const updates = fed([turnStart, question], mapper);
    expect(updates).toEqual([{ sessionUpdate: "tool_call", ...asked }]);
    expect(mapper.declined("call_ask")).toEqual([
      { sessionUpdate: "tool_call_update", toolCallId: "call_ask", status: "failed" },
    ]);
    expect(mapper.declined("call_ask")).toEqual([]);
    expect(mapper.push(turnEnd)).toEqual([]);
  });

  it("fails at the turn's end a question whose call never ran; an approved one goes on as its item", () => {
    expect(fed([turnStart, question, turnEnd]).slice(1)).toEqual([
      { sessionUpdate: "tool_call_update", toolCallId: "call_ask", status: "failed" },
    ]);
    const approved = fed([
      turnStart,
      question,
      {
        type: "exec_command_begin",
        call_id: "call_ask",
        turn_id: "1",
        command: ["/bin/bash", "-lc", "rm -rf build"],
        cwd: "/w",
      },
      turnEnd,
    ]);
    expect(
      approved.map((update) => [update.sessionUpdate, "status" in update ? update.status : null]),
    ).toEqual([
      ["tool_call", "pending"],
      ["tool_call_update", "in_progress"],
    ]);
  });

  it("completes a declined command item as failed, with no exit code", () => {
    const tracker = new ItemTracker({ startOnApproval: true });
    const mapper = new SessionUpdateMapper({ cwd: "/w" });
    const updates = [
      ...tracker.push(turnStart),
      ...tracker.push(question),
      ...tracker.decline("call_ask", true),
    ].flatMap((change) => mapper.push(change));
    expect(updates.at(-1)).toEqual({
      sessionUpdate: "tool_call_update",
      toolCallId: "call_ask",
      status: "failed",
      rawOutput: { exit_code: null, output: null },
      _meta: { terminal_exit: { terminal_id: "call_ask", exit_code: null, signal: null } },
    });
  });

  it("gives a patch question its diffs, and an MCP question the running call's identity", () => {
    expect(
      approvalToolCall(
        {
          type: "apply_patch_approval_request",
          call_id: "call_p",
          turn_id: "1",
          changes: { "/w/src/x.ts": { type: "update", unified_diff: "@@ -1,2 +1,2 @@\n a\n-b\n+c\n" } },
          reason: null,
          grant_root: null,
        },
        "/w",
      ),
    ).toEqual({
      toolCallId: "call_p",
      status: "pending",
      kind: "edit",
      title: "Edit src/x.ts",
      content: [
        {
          type: "diff",
          path: "/w/src/x.ts",
          oldText: "a\nb\n",
          newText: "a\nc\n",
          _meta: { kind: "update" },
        },
      ],
      locations: [{ path: "/w/src/x.ts" }],
      rawInput: { paths: ["/w/src/x.ts"], reason: null, grant_root: null },
    });
    const mcpQuestion: Event = {
      type: "exec_approval_request",
      call_id: "call_mcp",
      turn_id: "1",
      command: ["mcp", "docs", "lookup", "{}"],
      cwd: "/w",
      reason: null,
      mcp_tool_call: invocation,
    };
    if (mcpQuestion.type !== "exec_approval_request") throw new Error("unreachable");
    expect(approvalToolCall(mcpQuestion)).toMatchObject({
      toolCallId: "call_mcp",
      kind: "other",
      title: "mcp.docs.lookup",
    });
    // The MCP call started before its question: no second announcement.
    const updates = fed([
      turnStart,
      { type: "mcp_tool_call_begin", call_id: "call_mcp", invocation },
      mcpQuestion,
    ]);
    expect(updates.map((update) => update.sessionUpdate)).toEqual(["tool_call"]);
  });

  it("shows a sub-agent as one `other` tool call, never its own items", () => {
    const mapper = new SessionUpdateMapper({ cwd: "/w" });
    const updates = fed(
      [
        turnStart,
        {
          type: "agent_spawned",
          agent_id: "child-1",
          agent_type: "explorer",
          message: "map the repo",
          depth: 1,
        },
        { type: "agent_finished", agent_id: "child-1", status: { completed: "mapped" } },
        turnEnd,
      ],
      mapper,
    );
    const meta = (status: unknown) => ({
      tscodex: { subAgent: { agentId: "child-1", agentType: "explorer", message: "map the repo", status } },
    });
    expect(updates).toEqual([
      {
        sessionUpdate: "tool_call",
        toolCallId: "agent-child-1",
        status: "in_progress",
        title: "Sub-agent (explorer)",
        kind: "other",
        rawInput: { message: "map the repo" },
        _meta: meta("running"),
      },
      {
        sessionUpdate: "tool_call_update",
        toolCallId: "agent-child-1",
        status: "completed",
        _meta: meta({ completed: "mapped" }),
      },
    ]);
    // The child's own items (they carry agent_id) do not reach the parent's session.
    const childItem = {
      type: "agent_message" as const,
      id: "c1",
      status: "completed" as const,
      text: "inner",
    };
    expect(
      mapper.push({ type: "item_completed", turn_id: "1", item: childItem, agent_id: "child-1" }),
    ).toEqual([]);
    expect(mapper.push({ type: "item_completed", turn_id: "1", item: childItem })).toHaveLength(1);
  });

  it("maps a web search to `fetch` titled by its query, and a client tool call to `other`", () => {
    const result = { contentItems: [{ type: "inputText" as const, text: "42" }], success: true };
    const updates = fed([
      turnStart,
      { type: "web_search_begin", call_id: "ws_1" },
      {
        type: "raw_response_item",
        item: {
          type: "web_search_call",
          id: "ws_1",
          status: "completed",
          action: { type: "search", query: "tides" },
        },
      },
      {
        type: "client_tool_call_request",
        call_id: "call_ct",
        turn_id: "1",
        tool: "answer",
        arguments: { n: 1 },
      },
      {
        type: "client_tool_call_end",
        call_id: "call_ct",
        turn_id: "1",
        tool: "answer",
        arguments: { n: 1 },
        result,
        duration_ms: 2,
      },
      turnEnd,
    ]);
    expect(updates).toEqual([
      {
        sessionUpdate: "tool_call",
        toolCallId: "ws_1",
        status: "in_progress",
        title: "Web search",
        kind: "fetch",
        rawInput: { query: "" },
      },
      {
        sessionUpdate: "tool_call_update",
        toolCallId: "ws_1",
        status: "completed",
        title: "tides",
        rawInput: { query: "tides" },
        rawOutput: { type: "search", query: "tides" },
      },
      {
        sessionUpdate: "tool_call",
        toolCallId: "call_ct",
        status: "in_progress",
        title: "answer",
        kind: "other",
        rawInput: { n: 1 },
      },
      {
        sessionUpdate: "tool_call_update",
        toolCallId: "call_ct",
        status: "completed",
        content: [{ type: "content", content: { type: "text", text: "42" } }],
        rawOutput: result,
      },
    ]);
  });

  it("reports usage as the last request's tokens in the context window, nothing without a window", () => {
    const usage = { ...emptyUsage(), total_tokens: 300 };
    expect(
      fed([
        {
          type: "token_count",
          last: usage,
          total: { ...usage, total_tokens: 900 },
          model_context_window: 4000,
        },
      ]),
    ).toEqual([{ sessionUpdate: "usage_update", used: 300, size: 4000 }]);
    expect(fed([{ type: "token_count", last: usage, total: usage, model_context_window: null }])).toEqual([]);
  });
});
