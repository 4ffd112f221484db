/** An in-process ModelClient that plays scripted responses and records every prompt. */
import type { ModelClient, Prompt, ResponseEvent } from "../../src/model/types.js";

export type Script = (prompt: Prompt) => ResponseEvent[] | AsyncIterable<ResponseEvent>;

export function scriptedClient(scripts: Script[]): ModelClient & { prompts: Prompt[] } {
  const prompts: Prompt[] = [];
  return {
    prompts,
    stream(prompt) {
      prompts.push(structuredClone(prompt));
      const script = scripts.shift();
      if (!script) throw new Error("no scripted response left");
      const events = script(prompt);
      return Symbol.asyncIterator in events
        ? events
        : (async function* () {
            yield* events;
          })();
    },
  };
}

export const completed = (usage: { input: number; output: number } | null = null): ResponseEvent => ({
  type: "completed",
  responseId: "r",
  usage: usage
    ? {
        input_tokens: usage.input,
        cached_input_tokens: 0,
        output_tokens: usage.output,
        reasoning_output_tokens: 0,
        total_tokens: usage.input + usage.output,
      }
    : null,
});

export const message = (text: string): ResponseEvent => ({
  type: "output_item_done",
  item: { type: "message", role: "assistant", content: [{ type: "output_text", text }] },
});

export const call = (name: string, args: unknown, callId: string): ResponseEvent => ({
  type: "output_item_done",
  item: {
    type: "function_call",
    name,
    arguments: typeof args === "string" ? args : JSON.stringify(args),
    call_id: callId,
  },
});
