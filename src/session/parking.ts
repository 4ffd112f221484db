/**
 * Parked turns (ThreadSettings.parkClientCalls): a turn that stopped on client tool calls is only
 * history (the calls, without outputs) plus these call ids, so any process that loads the thread
 * can continue it. Pure helpers the Thread uses to continue or close one.
 */
import { isToolCall, type ResponseItem, type ToolCallItem } from "../protocol/items.js";
import type { ParkedTurn } from "./ops.js";

/** The output a pending call gets when the client gave none (the next request needs one). */
export const NO_CLIENT_OUTPUT = "The client returned no result for this tool call.";

/**
 * The outputs to record, in the parked calls' order: the client's output for each pending call
 * (the first one given), a failed note for a call it left out. `ignored`: outputs for no pending call.
 */
function parkedOutputs(
  parked: ParkedTurn,
  outputs: readonly ResponseItem[],
): { items: ResponseItem[]; ignored: string[] } {
  const given = new Map<string, ResponseItem>();
  const ignored: string[] = [];
  const pending = new Set(parked.calls.map((call) => call.call_id));
  for (const output of outputs) {
    const id = outputCallId(output);
    if (id === null || !pending.has(id)) ignored.push(id ?? output.type);
    else if (!given.has(id)) given.set(id, output);
  }
  const items = parked.calls.map((call) => given.get(call.call_id) ?? missingOutput(call));
  return { items, ignored };
}

/**
 * What a parked turn's caller brings: on `continue_turn`, its outputs (a warning names the ones
 * for no pending call); on a new user turn, failed outputs for every pending call.
 */
export function closingOutputs(
  parked: ParkedTurn,
  continued: readonly ResponseItem[] | null,
): { items: ResponseItem[]; warning: string | null } {
  if (continued === null) return { items: abandonedOutputs(parked), warning: null };
  const { items, ignored } = parkedOutputs(parked, continued);
  const warning = ignored.length > 0 ? `outputs for no pending call ignored: ${ignored.join(", ")}` : null;
  return { items, warning };
}

/** The tool calls in `items` that no later output answers (an imported conversation's open calls). */
export function unansweredCalls(items: readonly ResponseItem[]): ToolCallItem[] {
  const answered = new Set(
    items.flatMap((item) => ("call_id" in item && !isToolCall(item) ? [item.call_id] : [])),
  );
  return items.filter((item): item is ToolCallItem => isToolCall(item) && !answered.has(item.call_id));
}

/** Failed outputs for every pending call: a new user turn abandons the parked one. */
function abandonedOutputs(parked: ParkedTurn): ResponseItem[] {
  return parked.calls.map(missingOutput);
}

/** Rebuild a parked turn from history: the calls named by `callIds` (stored rollouts keep ids). */
export function parkedFromHistory(
  history: readonly ResponseItem[],
  stored: { turnId: string; callIds: readonly string[]; parkedAt: number },
): ParkedTurn | null {
  const calls: ToolCallItem[] = [];
  for (const id of stored.callIds) {
    const call = history.find(
      (item): item is ToolCallItem => item.type === "function_call" && item.call_id === id,
    );
    if (call) calls.push(call);
  }
  return calls.length > 0 ? { turnId: stored.turnId, calls, parkedAt: stored.parkedAt } : null;
}

function outputCallId(item: ResponseItem): string | null {
  return item.type === "function_call_output" || item.type === "custom_tool_call_output"
    ? item.call_id
    : null;
}

function missingOutput(call: ToolCallItem): ResponseItem {
  return { type: "function_call_output", call_id: call.call_id, output: NO_CLIENT_OUTPUT };
}
