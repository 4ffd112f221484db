/**
 * RemoteEventMapper with an app-server other than tscodex's (Codex's shapes and order): a
 * declined command whose only end is its `declined` completion still ends (exit -1, rejected) when
 * the turn does; a declined patch shows nothing; an MCP call, a web search and a failed turn
 * read as exec shows them locally. tscodex's own server is covered end to end (exec-remote.test.ts).
 */
import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { ExecJsonWriter } from "../../src/frontends/cli/exec-json.js";
import { RemoteEventMapper } from "../../src/frontends/cli/remote-events.js";

type Params = Record<string, unknown>;

/** The JSONL lines the mapped notifications make, and the mapper. */
function run(notifications: [string, Params][]) {
  const out = new PassThrough();
  let text = "";
  out.on("data", (chunk: Buffer) => {
    text += chunk.toString("utf8");
  });
  const json = new ExecJsonWriter(out, new PassThrough());
  const mapper = new RemoteEventMapper("th");
  for (const [method, params] of notifications) {
    for (const event of mapper.map(method, { threadId: "th", ...params })) json.event(event);
    for (const event of mapper.turnEnd(method, { threadId: "th", ...params })?.events ?? [])
      json.event(event);
  }
  return {
    mapper,
    lines: text
      .trim()
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Params),
  };
}

const command = { type: "commandExecution", id: "c1", command: "/bin/bash -lc 'rm -rf build'", cwd: "/w" };
const patch = {
  type: "fileChange",
  id: "p1",
  changes: [{ path: "/w/a.txt", kind: { type: "add" }, diff: "hi\n" }],
};

describe("RemoteEventMapper", () => {
  it("ends a declined command with the turn when the server sends no second completion", () => {
    const { lines } = run([
      ["turn/started", { turn: { id: "t1" } }],
      ["item/started", { item: { ...command, status: "inProgress" } }],
      ["item/completed", { item: { ...command, status: "declined" } }],
      ["item/started", { item: { ...patch, status: "inProgress" } }],
      ["item/completed", { item: { ...patch, status: "declined" } }],
      ["turn/completed", { turn: { id: "t1", status: "completed", error: null } }],
    ]);
    expect(lines.map((line) => [line.type, (line.item as Params | undefined)?.status])).toEqual([
      ["turn.started", undefined],
      ["item.started", "in_progress"],
      ["item.completed", "failed"],
    ]);
    expect(lines[2]?.item).toMatchObject({
      command: "/bin/bash -lc 'rm -rf build'",
      exit_code: -1,
      aggregated_output: "exec command rejected by user",
    });
  });

  it("maps an MCP call, a web search, a message and the thread's usage", () => {
    const mcp = { type: "mcpToolCall", id: "m1", server: "docs", tool: "find", arguments: { q: "x" } };
    const { lines, mapper } = run([
      ["turn/started", { turn: { id: "t1" } }],
      ["item/started", { item: { ...mcp, status: "inProgress", result: null, error: null } }],
      [
        "item/completed",
        {
          item: {
            ...mcp,
            status: "completed",
            result: { content: [{ type: "text", text: "found" }], structuredContent: null },
            error: null,
          },
        },
      ],
      ["item/started", { item: { type: "webSearch", id: "w1", query: "" } }],
      ["item/completed", { item: { type: "webSearch", id: "w1", query: "tscodex" } }],
      ["item/completed", { item: { type: "agentMessage", id: "a1", text: "done" } }],
      [
        "thread/tokenUsage/updated",
        { tokenUsage: { total: { inputTokens: 9, outputTokens: 3, totalTokens: 12 }, last: {} } },
      ],
      ["turn/completed", { turn: { id: "t1", status: "completed", error: null } }],
    ]);
    expect(lines.map((line) => (line.item as Params | undefined)?.type ?? line.type)).toEqual([
      "turn.started",
      "mcp_tool_call",
      "mcp_tool_call",
      "web_search",
      "agent_message",
    ]);
    expect(lines[2]?.item).toMatchObject({
      result: { content: [{ type: "text", text: "found" }], structured_content: null },
      status: "completed",
    });
    expect(lines[3]?.item).toMatchObject({ query: "tscodex", action: { type: "search", query: "tscodex" } });
    expect(mapper.lastMessage).toBe("done");
    expect(mapper.total).toMatchObject({ input_tokens: 9, output_tokens: 3, total_tokens: 12 });
  });

  it("ignores other threads, and reads a failed turn's error", () => {
    const mapper = new RemoteEventMapper("th");
    expect(mapper.map("turn/started", { threadId: "other", turn: { id: "x" } })).toEqual([]);
    const end = mapper.turnEnd("turn/completed", {
      threadId: "th",
      turn: { id: "t1", status: "failed", error: { message: "model said no" } },
    });
    expect(end?.end).toEqual({ turnId: "t1", status: "failed", error: "model said no" });
    expect(end?.events.at(-1)).toEqual({ type: "turn_failed", turn_id: "t1", message: "model said no" });
  });
});
