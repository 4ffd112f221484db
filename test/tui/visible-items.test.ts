/**
 * Every kind of v2 ThreadItem the server can send (live or in a resumed thread), and every
 * notification that carries text, reaches the screen only through terminal-text.ts: with a
 * hostile string in each of its text fields, the transcript's rows hold no control a terminal
 * would act on, and the item's text is shown in notation. The samples are typed by the
 * protocol's own ThreadItem, keyed by its `type`: a kind added to the protocol fails to compile
 * here until it has a sample. The header (model and cwd from the server) goes the same way.
 */
import { describe, expect, it } from "vitest";
import type { ThreadItem } from "../../src/frontends/app-server/protocol/common.js";
import { TranscriptLayout } from "../../src/frontends/tui/layout.js";
import { createStyle } from "../../src/frontends/tui/style.js";
import { Transcript } from "../../src/frontends/tui/transcript.js";
import { apply } from "./notify.js";

const ESC = "\u001b";
/** Title, clipboard, screen clear, cursor move, CR, bidi override, 8-bit CSI. */
const hostile = `a${ESC}]0;pwned\u0007b${ESC}]52;c;cHduZWQ=\u0007c${ESC}[2J${ESC}[Hd\re\u202ef\u009bg`;
const shown = "a^[]0;pwned^Gb^[]52;c;cHduZWQ=^Gc^[[2J^[[Hd^Me<U+202E>f<U+009B>g";
const RAW_CLASS = "[\\u0000-\\u0009\\u000b-\\u001f\\u007f-\\u009f\\u202a-\\u202e\\u2066-\\u2069]";
const RAW = new RegExp(RAW_CLASS);
const unstyled = (rows: string[]) => rows.join("\n").replace(new RegExp(`${ESC}\\[[0-9;]*m`, "g"), "");

const samples: { [K in ThreadItem["type"]]: Extract<ThreadItem, { type: K }> } = {
  userMessage: { type: "userMessage", id: "i1", content: [{ type: "text", text: hostile }] },
  agentMessage: { type: "agentMessage", id: "i2", text: hostile },
  hookPrompt: { type: "hookPrompt", id: "i3", fragments: [{ hookRunId: "h", text: hostile }] },
  reasoning: { type: "reasoning", id: "i4", summary: [hostile], content: [hostile] },
  commandExecution: {
    type: "commandExecution",
    id: "i5",
    command: hostile,
    cwd: hostile,
    processId: null,
    status: "completed",
    commandActions: [],
    aggregatedOutput: hostile,
    exitCode: 0,
    durationMs: 1,
  },
  fileChange: {
    type: "fileChange",
    id: "i6",
    changes: [{ path: hostile, kind: { type: "update", move_path: null }, diff: `+${hostile}` }],
    status: "completed",
  },
  mcpToolCall: {
    type: "mcpToolCall",
    id: "i7",
    server: hostile,
    tool: hostile,
    status: "completed",
    arguments: {},
    result: null,
    error: null,
    durationMs: 1,
  },
  dynamicToolCall: {
    type: "dynamicToolCall",
    id: "i8",
    namespace: null,
    tool: hostile,
    arguments: {},
    status: "completed",
    contentItems: null,
    success: true,
    durationMs: 1,
  },
  webSearch: { type: "webSearch", id: "i9", query: hostile },
  enteredReviewMode: { type: "enteredReviewMode", id: "i10", review: hostile },
  exitedReviewMode: { type: "exitedReviewMode", id: "i11", review: hostile },
  contextCompaction: { type: "contextCompaction", id: "i12" },
  plan: { type: "plan", id: "i13", text: hostile },
  collabAgentToolCall: {
    type: "collabAgentToolCall",
    id: "i14",
    tool: "spawnAgent",
    status: "completed",
    senderThreadId: "t",
    receiverThreadIds: [],
    prompt: hostile,
    model: null,
    reasoningEffort: null,
    agentsStates: {},
  },
};

/** Kinds that carry no text from outside (nothing to show in notation). */
const WITHOUT_TEXT = new Set<ThreadItem["type"]>(["contextCompaction", "collabAgentToolCall"]);

function rowsOf(transcript: Transcript): string {
  return unstyled(new TranscriptLayout(createStyle(true)).rows(transcript.blocks, 300));
}

describe("every item kind is shown inert", () => {
  for (const [type, item] of Object.entries(samples)) {
    it(`${type}, live and in a resumed thread`, () => {
      const live = new Transcript();
      apply(live, "item/completed", { threadId: "t", turnId: "u", item });
      const resumed = new Transcript();
      resumed.loadTurns([{ id: "u", items: [item], status: "completed", error: null }]);
      for (const transcript of [live, resumed]) {
        const text = rowsOf(transcript);
        expect(text).not.toMatch(RAW);
        if (!WITHOUT_TEXT.has(type as ThreadItem["type"])) expect(text).toContain(shown);
      }
    });
  }

  it("text that arrives in notifications: deltas, output, plan steps, errors", () => {
    const transcript = new Transcript();
    apply(transcript, "item/agentMessage/delta", { itemId: "a", delta: hostile });
    apply(transcript, "item/reasoning/summaryTextDelta", { itemId: "r", delta: hostile });
    apply(transcript, "item/started", {
      turnId: "u",
      item: { ...samples.commandExecution, status: "inProgress" },
    });
    apply(transcript, "item/commandExecution/outputDelta", { itemId: "i5", delta: hostile });
    apply(transcript, "turn/plan/updated", {
      turnId: "u",
      explanation: hostile,
      plan: [{ step: hostile, status: "pending" }],
    });
    apply(transcript, "error", { error: { message: hostile }, willRetry: false });
    apply(transcript, "turn/completed", { turn: { id: "u", status: "failed", error: { message: hostile } } });
    const text = rowsOf(transcript);
    expect(text).not.toMatch(RAW);
    expect(text.split(shown).length - 1).toBeGreaterThanOrEqual(7);
  });
});
