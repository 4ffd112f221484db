/**
 * A process killed during a tool call leaves a call in its rollout with no output, and the
 * Responses API rejects a request whose history has one. Loading a thread closes every such call
 * with an "aborted" output placed right after it, so a reload is idempotent and nothing is rewritten.
 */
import type { ResponseItem } from "../protocol/items.js";

/** The output an unpaired call gets on load. */
export const ABORTED_CALL_OUTPUT = "aborted: the process ended before the call finished";

/**
 * `history` with an aborted output after each tool call that has none. `keep`: call ids that are
 * meant to stay open (a turn parked on client calls waits for their outputs).
 */
export function closeUnpairedCalls(
  history: readonly ResponseItem[],
  keep: ReadonlySet<string> = new Set(),
): ResponseItem[] {
  const answered = new Set<string>();
  for (const item of history) {
    if (item.type === "function_call_output" || item.type === "custom_tool_call_output")
      answered.add(item.call_id);
  }
  const closed: ResponseItem[] = [];
  for (const item of history) {
    closed.push(item);
    if (item.type !== "function_call" && item.type !== "custom_tool_call" && item.type !== "local_shell_call")
      continue;
    if (answered.has(item.call_id) || keep.has(item.call_id)) continue;
    answered.add(item.call_id);
    closed.push(
      item.type === "custom_tool_call"
        ? { type: "custom_tool_call_output", call_id: item.call_id, output: ABORTED_CALL_OUTPUT }
        : { type: "function_call_output", call_id: item.call_id, output: ABORTED_CALL_OUTPUT },
    );
  }
  return closed;
}
