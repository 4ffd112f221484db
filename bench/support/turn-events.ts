/** The turn the thread benchmarks record: a prompt, reasoning, a shell call with ~1 KB of output, an answer. */
import type { Event } from "../../src/protocol/events.js";
import { emptyUsage, userMessage } from "../../src/protocol/items.js";

export function benchTurnEvents(i: number): Event[] {
  const usage = { ...emptyUsage(), input_tokens: 1000 + i, output_tokens: 50, total_tokens: 1050 + i };
  const output = `line ${i}: ${"lorem ipsum dolor sit amet ".repeat(36)}`;
  return [
    { type: "turn_started", turn_id: String(i), model_context_window: 272_000 },
    { type: "raw_response_item", item: userMessage(`step ${i}: please look at module ${i} and fix it`) },
    { type: "user_message", message: `step ${i}`, images: [] },
    {
      type: "raw_response_item",
      item: { type: "reasoning", summary: [{ type: "summary_text", text: `Thinking about ${i}` }] },
    },
    {
      type: "raw_response_item",
      item: {
        type: "function_call",
        name: "shell_command",
        arguments: JSON.stringify({ command: `cat src/m${i}.ts` }),
        call_id: `call_${i}`,
      },
    },
    { type: "raw_response_item", item: { type: "function_call_output", call_id: `call_${i}`, output } },
    {
      type: "raw_response_item",
      item: {
        type: "message",
        role: "assistant",
        content: [{ type: "output_text", text: `Fixed module ${i}. ${"ok ".repeat(60)}` }],
      },
    },
    { type: "token_count", last: usage, total: usage, model_context_window: 272_000 },
    { type: "turn_complete", turn_id: String(i), last_agent_message: "done", usage },
  ];
}
