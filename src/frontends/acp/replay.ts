/**
 * A stored thread as the `session/update`s a `session/load` sends before it answers: the stored
 * lines replayed into items (session/replay-items.ts) and mapped by the live mapper, with the
 * user's messages shown. Each tool call arrives as one `tool_call` already completed or failed,
 * with its output or diffs; Zed's terminal extension follows it in a `tool_call_update`, as
 * codex-acp's load does (reference acp.md §9).
 */
import type { SessionUpdate } from "@agentclientprotocol/sdk";
import { replayLines } from "../../session/replay-items.js";
import type { RolloutLine } from "../../store/index.js";
import { SessionUpdateMapper } from "./updates.js";

export function replayUpdates(lines: readonly RolloutLine[], cwd: string): SessionUpdate[] {
  const mapper = new SessionUpdateMapper({ cwd, userMessages: true });
  const updates: SessionUpdate[] = [];
  for (const { event, items } of replayLines(lines)) {
    updates.push(...mapper.push(event));
    for (const item of items) updates.push(...mapper.push(item));
  }
  return foldToolCalls(updates);
}

/**
 * Each `tool_call_update` folded into the `tool_call` it updates (a replayed call starts and ends
 * at once); the terminal `_meta` stays an update of its own, where Zed reads it.
 */
function foldToolCalls(updates: SessionUpdate[]): SessionUpdate[] {
  const calls = new Map<string, Extract<SessionUpdate, { sessionUpdate: "tool_call" }>>();
  const out: SessionUpdate[] = [];
  for (const update of updates) {
    if (update.sessionUpdate === "tool_call") {
      const call = { ...update };
      calls.set(call.toolCallId, call);
      out.push(call);
      continue;
    }
    const call = update.sessionUpdate === "tool_call_update" ? calls.get(update.toolCallId) : undefined;
    if (!call || update.sessionUpdate !== "tool_call_update") {
      out.push(update);
      continue;
    }
    const { _meta, sessionUpdate: _, toolCallId, ...fields } = update;
    for (const [key, value] of Object.entries(fields))
      if (value !== undefined && value !== null) Object.assign(call, { [key]: value });
    const terminal = terminalMeta(_meta);
    if (terminal) out.push({ sessionUpdate: "tool_call_update", toolCallId, _meta: terminal });
    else if (_meta) call._meta = { ...call._meta, ..._meta };
  }
  return out;
}

function terminalMeta(meta: Record<string, unknown> | null | undefined): Record<string, unknown> | null {
  if (!meta || !("terminal_exit" in meta || "terminal_output_delta" in meta)) return null;
  return meta;
}
