/**
 * One turn: sample the model, run the tool calls it made, feed the outputs back, and
 * repeat until a response carries no tool call.
 * Flow per request: [compact first when the last response filled the context past the limit] →
 * stream (deltas go out live) → on `completed`, record the items → dispatch calls (concurrently
 * when every call allows it) → record outputs in call order.
 * Tools run only after `completed`, so a stream retried mid-response never runs a call twice.
 * Parking (`parkClientCalls`): when a response calls client tools, its other calls run and their
 * outputs are recorded, then the turn returns with the client calls unanswered. The history then
 * ends at a model-request boundary (only the client calls' outputs are missing), so the turn can
 * be continued later, in any process, by recording those outputs and calling runTurn again.
 */

import type { ModelClient, ModelRequestSettings, Prompt, ResponseEvent } from "../model/types.js";
import {
  addUsage,
  emptyUsage,
  isToolCall,
  messageText,
  type ResponseItem,
  type TokenUsage,
  type ToolCallItem,
} from "../protocol/items.js";
import type { DispatchResult, ToolRouter } from "../tools/router.js";
import { type TurnContext, toolName } from "../tools/types.js";
import { errorMessage } from "../util/errors.js";
import type { History } from "./history.js";
import { PatchStreams } from "./patch-stream.js";

export interface TurnDeps {
  client: ModelClient;
  /** This turn's tools (built-ins, MCP, client tools), built for the turn. */
  router: ToolRouter;
  instructions: string;
  parallelToolCalls: boolean;
  contextWindow: number | null;
  /** The thread's history; the turn reads it for each request and appends through `record`. */
  history: History;
  record(item: ResponseItem): void;
  context: TurnContext;
  /** Usage so far in the thread, for token_count totals. */
  threadUsage: TokenUsage;
  /** The final message must be JSON matching this schema (sent as the request's output format). */
  outputSchema?: Record<string, unknown> | undefined;
  /** Request settings for this turn when it picked another model or reasoning. */
  settings?: ModelRequestSettings | undefined;
  /** Auto-compaction: absent when the thread never compacts on its own. */
  autoCompact?: AutoCompact | undefined;
  /** Client tool calls end the turn unanswered (`TurnOutcome.parked`) instead of being awaited. */
  parkClientCalls?: boolean | undefined;
  /** The thread's tool and Stop hooks; absent when none are configured. */
  hooks?: TurnHooks | undefined;
  /** Record input steered into the turn (steering.ts); true when there was any. */
  steered?: (() => boolean) | undefined;
}

/** Hook points of the turn loop (session/hook-points.ts binds them to the thread's hooks). */
export interface TurnHooks {
  /** PreToolUse: `deny` answers the call instead of running it; `call` runs instead (updatedInput). */
  beforeTool(
    call: ToolCallItem,
    router: ToolRouter,
  ): Promise<{ deny: string } | { call: ToolCallItem; stop: string | null } | null>;
  /**
   * PostToolUse: developer messages to add after the outputs; `stop` ends the turn.
   * `response`: the tool's own hook response (DispatchResult.hookResponse), if it has one.
   */
  afterTool(
    call: ToolCallItem,
    output: ResponseItem,
    router: ToolRouter,
    response?: unknown,
  ): Promise<{ items: ResponseItem[]; stop: string | null }>;
  /** Stop: a block reason keeps the turn going with it as the next input (the item to record). */
  beforeStop(lastAgentMessage: string | null, active: boolean): Promise<ResponseItem | null>;
}

/** Compact before a request once the last response's tokens reach `limit`. */
export interface AutoCompact {
  limit: number;
  /** Input + output tokens of the thread's last response before this turn. */
  lastResponseTokens: number;
  /** Summarise the history and replace it (the turn then sends the compacted history). */
  compact(signal: AbortSignal): Promise<void>;
}

export interface TurnOutcome {
  lastAgentMessage: string | null;
  usage: TokenUsage;
  /** With `parkClientCalls`: the client calls the turn stopped on (recorded, without outputs). */
  parked?: ToolCallItem[];
}

export class TurnAbortedError extends Error {
  override name = "TurnAbortedError";
}

/** An abort reason: the turn ends as failed with this message, not as interrupted. */
export class TurnFailedError extends Error {
  override name = "TurnFailedError";
}

export async function runTurn(deps: TurnDeps): Promise<TurnOutcome> {
  const { context } = deps;
  let usage = emptyUsage();
  let lastAgentMessage: string | null = null;
  let contextTokens = deps.autoCompact?.lastResponseTokens ?? 0;
  let stopHookActive = false;
  while (true) {
    deps.steered?.();
    if (deps.autoCompact && deps.history.length > 0 && contextTokens >= deps.autoCompact.limit) {
      await deps.autoCompact.compact(context.signal);
      contextTokens = 0;
    }
    const response = await sampleOnce(deps);
    if (response.usage) {
      usage = addUsage(usage, response.usage);
      contextTokens = response.usage.input_tokens + response.usage.output_tokens;
    }
    context.emit({
      type: "token_count",
      last: response.usage,
      total: addUsage(deps.threadUsage, usage),
      model_context_window: deps.contextWindow,
    });
    const calls: ToolCallItem[] = [];
    for (const item of response.items) {
      deps.record(item);
      announceItem(item, context);
      if (item.type === "message" && item.role === "assistant") lastAgentMessage = messageText(item);
      if (isToolCall(item)) calls.push(item);
    }
    if (calls.length === 0) {
      // Input steered in while the model answered: it reads it before the turn ends.
      if (deps.steered?.()) continue;
      const prompt = deps.hooks ? await deps.hooks.beforeStop(lastAgentMessage, stopHookActive) : null;
      if (context.signal.aborted) throw new TurnAbortedError("turn interrupted");
      if (!prompt) return { lastAgentMessage, usage };
      // A Stop hook blocked: its reason is the model's next input, and the next Stop knows.
      deps.record(prompt);
      stopHookActive = true;
      continue;
    }
    const parked = deps.parkClientCalls ? clientCallsOf(deps.router, calls) : [];
    const results = await dispatchAll(
      deps,
      calls.filter((call) => !parked.includes(call)),
    );
    for (const result of results) deps.record(result.output);
    for (const result of results) for (const item of result.followUp) deps.record(item);
    const fatal = results.find((result) => result.fatal)?.fatal;
    if (fatal) throw new FatalTurnError(fatal);
    if (context.signal.aborted) throw new TurnAbortedError("turn interrupted");
    const hookStop = results.find((result) => result.hookStop)?.hookStop;
    if (hookStop) {
      context.emit({ type: "warning", message: hookStop });
      return { lastAgentMessage, usage };
    }
    if (parked.length > 0) return { lastAgentMessage, usage, parked };
  }
}

/** The calls of `calls` that go to one of the turn's client tools. */
function clientCallsOf(router: ToolRouter, calls: ToolCallItem[]): ToolCallItem[] {
  const names = new Set(router.definitions.filter((d) => d.clientTool).map(toolName));
  return calls.filter((call) => call.type === "function_call" && names.has(call.name));
}

interface SampledResponse {
  items: ResponseItem[];
  usage: TokenUsage | null;
}

async function sampleOnce(deps: TurnDeps): Promise<SampledResponse> {
  const { context } = deps;
  const prompt: Prompt = {
    instructions: deps.instructions,
    input: [...deps.history.items],
    tools: deps.router.specs(),
    parallelToolCalls: deps.parallelToolCalls,
    ...(deps.outputSchema ? { outputSchema: deps.outputSchema } : {}),
    ...(deps.settings ? { settings: deps.settings } : {}),
  };
  let items: ResponseItem[] = [];
  const stream = deps.client.stream(prompt, {
    signal: context.signal,
    telemetry: context.telemetry,
    onRetry: (notice) =>
      context.emit({
        type: "stream_error",
        message: notice.message,
        attempt: notice.attempt,
        max_attempts: notice.maxAttempts,
        delay_ms: notice.delayMs,
      }),
  });
  const patches = new PatchStreams(context.cwd);
  for await (const event of stream) {
    if (context.signal.aborted) throw new TurnAbortedError("turn interrupted");
    // The patch parser loads when an apply_patch call starts streaming: its first delta waits
    // for it (a few ms, once per process), so no update is lost.
    if (event.type === "custom_tool_input_delta" && patches.waiting(event.itemId)) await patches.ready();
    const done = handleEvent(event, items, context, patches);
    if (event.type === "stream_restart") {
      items = [];
      patches.clear();
    }
    if (done) return { items, usage: done.usage };
  }
  if (context.signal.aborted) throw new TurnAbortedError("turn interrupted");
  throw new Error("model stream ended without a completed response");
}

function handleEvent(
  event: ResponseEvent,
  items: ResponseItem[],
  context: TurnContext,
  patches: PatchStreams,
) {
  switch (event.type) {
    case "output_text_delta":
      context.emit({ type: "agent_message_delta", delta: event.delta });
      return null;
    case "reasoning_summary_part_added":
      context.emit({
        type: "agent_reasoning_section_break",
        item_id: event.itemId,
        summary_index: event.summaryIndex,
      });
      return null;
    case "reasoning_summary_delta":
      context.emit({ type: "agent_reasoning_delta", delta: event.delta, item_id: event.itemId ?? "" });
      return null;
    case "reasoning_content_delta":
      context.emit({
        type: "agent_reasoning_raw_content_delta",
        delta: event.delta,
        item_id: event.itemId ?? "",
      });
      return null;
    case "custom_tool_input_delta": {
      const update = patches.delta(event.itemId, event.delta);
      if (update)
        context.emit({
          type: "patch_apply_updated",
          call_id: update.callId,
          turn_id: context.turnId,
          changes: update.changes,
        });
      return null;
    }
    case "output_item_added":
      patches.added(event.item);
      if (event.item.type === "web_search_call") {
        context.emit({ type: "web_search_begin", call_id: event.item.id ?? "" });
      }
      return null;
    case "output_item_done":
      items.push(event.item);
      return null;
    case "completed":
      return { usage: event.usage };
    default:
      return null;
  }
}

/** Item-level events, sent once the response is final (never for a discarded attempt). */
function announceItem(item: ResponseItem, context: TurnContext): void {
  if (item.type === "message" && item.role === "assistant") {
    context.emit({ type: "agent_message", message: messageText(item) });
  } else if (item.type === "reasoning") {
    const text = item.summary.map((part) => part.text).join("\n\n");
    if (text) context.emit({ type: "agent_reasoning", text });
  } else if (item.type === "web_search_call") {
    context.emit({
      type: "web_search_end",
      call_id: item.id ?? "",
      query: item.action?.query ?? "",
      ...(item.action ? { action: item.action } : {}),
    });
  }
}

interface CallResult extends DispatchResult {
  fatal?: string;
  /** A hook answered `continue: false`: the turn ends after this response's outputs. */
  hookStop?: string | null;
}

async function dispatchAll(deps: TurnDeps, calls: ToolCallItem[]): Promise<CallResult[]> {
  const { router, context } = deps;
  const parallel =
    deps.parallelToolCalls && calls.length > 1 && calls.every((call) => router.supportsParallel(call));
  if (parallel) return Promise.all(calls.map((call) => dispatchHooked(deps, call)));
  const results: CallResult[] = [];
  for (const call of calls) {
    if (context.signal.aborted) {
      results.push(abortedResult(call));
      continue;
    }
    results.push(await dispatchHooked(deps, call));
  }
  return results;
}

/** One call between its PreToolUse and PostToolUse hooks (a denied call never runs). */
async function dispatchHooked(deps: TurnDeps, call: ToolCallItem): Promise<CallResult> {
  const { router, context, hooks } = deps;
  if (!hooks) return dispatchOne(router, call, context);
  const before = await hooks.beforeTool(call, router);
  if (before && "deny" in before) return { output: outputFor(call, before.deny), followUp: [] };
  const result = await dispatchOne(router, before?.call ?? call, context);
  if (result.fatal || context.signal.aborted) return result;
  const after = await hooks.afterTool(before?.call ?? call, result.output, router, result.hookResponse);
  return {
    ...result,
    followUp: [...result.followUp, ...after.items],
    hookStop: before?.stop ?? after.stop,
  };
}

/**
 * Never throws: a fatal tool error still leaves an output in history (the API rejects a
 * call without one on the next request); the turn ends after all outputs are recorded.
 */
async function dispatchOne(
  router: ToolRouter,
  call: ToolCallItem,
  context: TurnContext,
): Promise<CallResult> {
  try {
    return await router.dispatch(call, context);
  } catch (error) {
    if (context.signal.aborted) return abortedResult(call);
    const message = errorMessage(error);
    return { output: outputFor(call, `fatal error: ${message}`), followUp: [], fatal: message };
  }
}

/** A tool failed in a way the model cannot fix; the turn ends with this message. */
export class FatalTurnError extends Error {
  override name = "FatalTurnError";
}

function abortedResult(call: ToolCallItem): DispatchResult {
  return { output: outputFor(call, "aborted"), followUp: [] };
}

function outputFor(call: ToolCallItem, text: string): ResponseItem {
  return call.type === "custom_tool_call"
    ? { type: "custom_tool_call_output", call_id: call.call_id, output: text }
    : { type: "function_call_output", call_id: call.call_id, output: text };
}
