/**
 * ExecJsonWriter: what SDK clients parse. Approval items (our extension) only when asked for;
 * turn.completed usage is the thread's total from the last token_count, reasoning tokens included.
 */
import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { ExecJsonWriter } from "../../src/frontends/cli/exec-json.js";
import { collaborationModeMessage } from "../../src/prompt/collaboration-mode.js";
import { developerMessage, emptyUsage } from "../../src/protocol/items.js";

function writer(options: { approvalItems?: boolean } = {}) {
  const out = new PassThrough();
  let text = "";
  out.on("data", (chunk: Buffer) => {
    text += chunk.toString("utf8");
  });
  const json = new ExecJsonWriter(out, new PassThrough(), options);
  return {
    json,
    lines: () =>
      text
        .trim()
        .split("\n")
        .filter(Boolean)
        .map((line) => JSON.parse(line)),
  };
}

const request = {
  type: "exec_approval_request" as const,
  call_id: "c1",
  turn_id: "t1",
  command: ["rm", "-rf", "build"],
  cwd: "/w",
  reason: null,
};

describe("ExecJsonWriter", () => {
  it("shows a plan-mode thread's proposed plan in the agent messages, as the model wrote it", () => {
    const { json, lines } = writer();
    const text = "Here.\n<proposed_plan>\n1. step\n</proposed_plan>";
    const mode = developerMessage(collaborationModeMessage({ mode: "plan", developerInstructions: null }));
    json.event({ type: "turn_started", turn_id: "0", model_context_window: null });
    json.event({ type: "raw_response_item", item: mode });
    json.event({
      type: "raw_response_item",
      item: { type: "message", role: "assistant", content: [{ type: "output_text", text }] },
    });
    const texts = lines()
      .filter((line) => line.type === "item.completed")
      .map((line) => line.item.text);
    expect(texts).toEqual(["<proposed_plan>\n1. step\n</proposed_plan>", "Here."]);
  });

  it("shows approval_request items only with approvals.exec_json_items", () => {
    const off = writer();
    off.json.approval(request, "denied");
    expect(off.lines()).toEqual([]);
    const on = writer({ approvalItems: true });
    on.json.approval(request, "denied");
    expect(on.lines()).toEqual([
      {
        type: "item.completed",
        item: {
          id: "item_0",
          type: "approval_request",
          kind: "exec",
          call_id: "c1",
          command: "rm -rf build",
          cwd: "/w",
          reason: null,
          decision: "denied",
        },
      },
    ]);
  });

  it("reports the thread's usage total with reasoning tokens", () => {
    const { json, lines } = writer();
    const total = {
      ...emptyUsage(),
      input_tokens: 70,
      cached_input_tokens: 5,
      output_tokens: 9,
      reasoning_output_tokens: 4,
    };
    json.event({ type: "token_count", last: null, total, model_context_window: null });
    json.finish({
      turnId: "t1",
      status: "completed",
      finalResponse: "x",
      items: [],
      usage: { ...emptyUsage(), input_tokens: 1 },
      error: null,
      pendingCalls: [],
    });
    expect(lines()).toEqual([
      {
        type: "turn.completed",
        usage: { input_tokens: 70, cached_input_tokens: 5, output_tokens: 9, reasoning_output_tokens: 4 },
      },
    ]);
  });
});
