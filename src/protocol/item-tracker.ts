/**
 * The one place that turns a thread's event stream into item lifecycles (turn-items.ts). Used
 * live (Thread.subscribeItems, the front-end mappers) and to replay a stored thread (its stored
 * events and response items pushed in order), so both give the same items.
 *
 * Sources, chosen so that live and replay agree: messages, reasoning and web searches complete
 * from the response item the turn records (`raw_response_item`, stored in every rollout); their
 * deltas only grow the open item. Tool items (commands, patches, MCP and client tool calls) come
 * from their begin/end events, which only a live stream has. Outside a turn nothing is an item
 * (an imported history is context, not something a turn did).
 *
 * Plan mode (collaboration-mode.ts) is read from the recorded mode messages: while it holds, an
 * agent message's `<proposed_plan>` block is cut out as a proposed_plan item (id: the message's
 * id + "-plan"); a message that is only a plan shows no agent message.
 */
import type { AgentStatus } from "./agents.js";
import { collaborationModeOf } from "./collaboration-mode.js";
import type { Event, EventOf, FileChange, McpInvocation } from "./events.js";
import { type MessageItem, messageText, type ResponseItem } from "./items.js";
import { ModeItems } from "./mode-items.js";
import { PlanSplitter, splitProposedPlan } from "./proposed-plan.js";
import type {
  AgentMessageItem,
  CommandExecutionItem,
  FileChangeItem,
  ItemDelta,
  ItemEvent,
  PlanTurnItem,
  ProposedPlanItem,
  ReasoningTurnItem,
  SubAgentItem,
  TurnItem,
  WebSearchItem,
} from "./turn-items.js";

export interface ItemTrackerOptions {
  /**
   * The id of a new item: `callId` is the tool call's (or web search's) id, null for items
   * without one; `turnId` the turn it belongs to ("" outside a turn). Default: the call id, else
   * `item-<n>` counted from 1. turnScopedIds() gives ids a replay of the stored thread gives again.
   */
  newId?: (callId: string | null, turnId: string) => string;
  /**
   * Start a command's or patch's item when its approval question is asked (the app-server shows
   * the question on the item); otherwise items start when the work begins.
   */
  startOnApproval?: boolean;
}

export class ItemTracker {
  private turnId = "";
  private message: AgentMessageItem | null = null;
  /** Plan mode only: the open message's splitter, whether its item started, its plan item. */
  private splitter: PlanSplitter | null = null;
  private messageShown = false;
  private proposed: ProposedPlanItem | null = null;
  private planMode = false;
  private reasoning: ReasoningTurnItem | null = null;
  private plan: PlanTurnItem | null = null;
  /** Review and compaction items (mode-items.ts). */
  private readonly modes = new ModeItems();
  private readonly commands = new Map<string, CommandExecutionItem>();
  private readonly patches = new Map<string, FileChangeItem>();
  private readonly searches = new Map<string, WebSearchItem>();
  private readonly calls = new Map<string, TurnItem>();
  private readonly agents = new Map<string, SubAgentItem>();
  /** Commands the client cancelled: the core's closing end event is not an item change. */
  private readonly cancelled = new Set<string>();
  private readonly newId: (callId: string | null) => string;
  private counter = 0;
  /**
   * When each item of this turn started (a declined command completes twice); a sub-agent's stays
   * across turns, as it completes each time its work ends.
   */
  private readonly startTimes = new Map<string, { at: number; agent: boolean }>();

  constructor(private readonly options: ItemTrackerOptions = {}) {
    const newId = options.newId ?? ((callId) => callId || `item-${++this.counter}`);
    this.newId = (callId) => newId(callId, this.turnId);
  }

  /** The turn running now ("" between turns). */
  get currentTurn(): string {
    return this.turnId;
  }

  /**
   * The item events `event` causes (often none), in order, stamped with their start and
   * completion times. `atMs`: when the event happened (a replay passes the stored line's time).
   */
  push(event: Event, atMs: number = Date.now()): ItemEvent[] {
    return this.stamp(this.changes(event), atMs);
  }

  private stamp(changes: ItemEvent[], atMs: number): ItemEvent[] {
    for (const change of changes) {
      const { item } = change;
      if (change.type === "item_started") {
        const started = this.startTimes.get(item.id)?.at ?? atMs;
        this.startTimes.set(item.id, { at: started, agent: item.type === "sub_agent" });
        item.started_at_ms = started;
      } else if (change.type === "item_completed") {
        item.started_at_ms = this.startTimes.get(item.id)?.at ?? item.started_at_ms ?? atMs;
        item.completed_at_ms = atMs;
      }
    }
    return changes;
  }

  /** A new turn: forget the last one's start times, sub-agents' aside. */
  private forgetStartTimes(): void {
    for (const [id, { agent }] of this.startTimes) if (!agent) this.startTimes.delete(id);
  }

  private changes(event: Event): ItemEvent[] {
    if (this.modes.hides(event)) return [];
    const modal = this.modes.push(event, this.turnId, () => this.newId(null));
    if (modal) return modal;
    switch (event.type) {
      case "turn_started":
      case "turn_continued":
        // A parked turn continued (maybe in another process): its items go on under its id.
        this.turnId = event.turn_id;
        this.forgetStartTimes();
        return [];
      case "user_message":
        return this.startAndComplete({
          type: "user_message",
          id: this.newId(null),
          status: "completed",
          text: event.message,
          images: event.images ?? [],
        });
      case "agent_message_delta":
        return this.messageDelta(event.delta);
      case "agent_reasoning_section_break":
        return this.reasoningDelta(
          { kind: "reasoning_summary_part", summary_index: event.summary_index },
          event.item_id,
        );
      case "agent_reasoning_delta":
        return this.reasoningDelta(
          { kind: "reasoning_summary_text", text: event.delta, summary_index: 0 },
          event.item_id,
        );
      case "agent_reasoning_raw_content_delta":
        return this.reasoningDelta(
          { kind: "reasoning_content_text", text: event.delta, content_index: 0 },
          event.item_id,
        );
      case "raw_response_item":
        return this.turnId ? this.responseItem(event.item) : [];
      case "web_search_begin":
        return this.startSearch(event.call_id);
      case "exec_command_begin":
        return this.startCommand(event.call_id, event.command, event.cwd, event.source);
      case "exec_approval_request":
        // An MCP call's question: its item is the MCP call already started, not a command.
        if (!this.options.startOnApproval || event.mcp_tool_call) return [];
        return this.startCommand(event.call_id, event.command, event.cwd);
      case "exec_command_output_delta":
        return this.commandOutput(event);
      case "exec_command_end":
        return this.endCommand(event);
      case "apply_patch_approval_request":
        return this.options.startOnApproval ? this.startPatch(event.call_id, event.changes) : [];
      case "patch_apply_begin":
        return this.startPatch(event.call_id, event.changes);
      case "patch_apply_end":
        return this.endPatch(event);
      case "mcp_tool_call_begin":
        return this.startCall(event.call_id, this.mcpCall(event));
      case "mcp_tool_call_end":
        return this.endMcpCall(event);
      case "mcp_tool_call_progress": {
        const open = this.calls.get(event.call_id);
        return open?.type === "mcp_tool_call"
          ? [this.updated(open, { kind: "mcp_progress", message: event.message })]
          : [];
      }
      case "client_tool_call_request":
        return this.startCall(event.call_id, {
          type: "client_tool_call",
          id: this.newId(event.call_id),
          status: "in_progress",
          tool: event.tool,
          arguments: event.arguments,
          result: null,
          duration_ms: null,
        });
      case "client_tool_call_end":
        return this.endClientCall(event);
      case "plan_update":
        return this.planUpdate(event);
      case "agent_spawned":
        return this.agentSpawned(event);
      case "agent_status":
        return this.agentUpdate(event.agent_id, event.status, false);
      case "agent_finished":
        return this.agentUpdate(event.agent_id, event.status, true);
      case "turn_complete":
      case "turn_aborted":
      case "turn_failed":
        return this.endTurn();
      default:
        return [];
    }
  }

  /**
   * The client declined (with `cancel`: cancelled) call `callId`: its item completes as declined
   * now. A cancelled command's later end is not shown; a declined one completes again (failed)
   * when the core closes it, as Codex does.
   */
  decline(callId: string, cancel: boolean): ItemEvent[] {
    return this.stamp(this.declined(callId, cancel), Date.now());
  }

  private declined(callId: string, cancel: boolean): ItemEvent[] {
    const command = this.commands.get(callId);
    if (command) {
      if (cancel) {
        this.commands.delete(callId);
        this.cancelled.add(callId);
      }
      return [this.completed({ ...command, status: "declined" })];
    }
    const patch = this.patches.get(callId);
    if (!patch) return [];
    this.patches.delete(callId);
    return [this.completed({ ...patch, status: "declined" })];
  }

  private started(item: TurnItem): ItemEvent {
    return { type: "item_started", turn_id: this.turnId, item: { ...item } };
  }

  private completed(item: TurnItem): ItemEvent {
    return { type: "item_completed", turn_id: this.turnId, item: { ...item } };
  }

  /** A delta carries the live item (read it now, do not keep it): no copy per streamed piece. */
  private updated(item: TurnItem, delta?: ItemDelta): ItemEvent {
    return delta
      ? { type: "item_updated", turn_id: this.turnId, item, delta }
      : { type: "item_updated", turn_id: this.turnId, item: { ...item } };
  }

  private startAndComplete(item: TurnItem): ItemEvent[] {
    return [this.started({ ...item, status: "in_progress" }), this.completed(item)];
  }

  private messageDelta(text: string): ItemEvent[] {
    const out: ItemEvent[] = [];
    if (!this.message) {
      this.message = { type: "agent_message", id: this.newId(null), status: "in_progress", text: "" };
      this.messageShown = false;
      this.splitter = this.planMode ? new PlanSplitter() : null;
    }
    const pieces = this.splitter ? this.splitter.push(text) : [{ part: "message" as const, text }];
    for (const piece of pieces) {
      if (piece.part === "plan") {
        out.push(...this.planDelta(this.message.id, piece.text));
        continue;
      }
      if (!this.messageShown) {
        this.messageShown = true;
        out.push(this.started(this.message));
      }
      this.message.text += piece.text;
      out.push(this.updated(this.message, { kind: "agent_message_text", text: piece.text }));
    }
    return out;
  }

  private planDelta(messageId: string, text: string): ItemEvent[] {
    const out: ItemEvent[] = [];
    if (!this.proposed) {
      this.proposed = {
        type: "proposed_plan",
        id: this.newId(`${messageId}-plan`),
        status: "in_progress",
        text: "",
      };
      out.push(this.started(this.proposed));
    }
    this.proposed.text += text;
    out.push(this.updated(this.proposed, { kind: "proposed_plan_text", text }));
    return out;
  }

  /**
   * The agent's message completes. In plan mode its `<proposed_plan>` block completes as the plan
   * item first (the block closed before the message ended), then the rest as the message.
   */
  private completeMessage(item: MessageItem): ItemEvent[] {
    const open = this.message;
    const shown = this.messageShown;
    this.message = null;
    this.messageShown = false;
    this.splitter = null;
    const id = open?.id ?? this.newId(null);
    const whole = messageText(item);
    const { message, plan } = this.planMode ? splitProposedPlan(whole) : { message: whole, plan: null };
    const out: ItemEvent[] = [];
    if (plan !== null) {
      const proposed = this.proposed;
      this.proposed = null;
      const done: ProposedPlanItem = {
        type: "proposed_plan",
        id: proposed?.id ?? this.newId(`${id}-plan`),
        status: "completed",
        text: plan,
      };
      out.push(...(proposed ? [this.completed(done)] : this.startAndComplete(done)));
    }
    if (plan !== null && message === "" && !shown) return out;
    const done: AgentMessageItem = { type: "agent_message", id, status: "completed", text: message };
    out.push(...(shown ? [this.completed(done)] : this.startAndComplete(done)));
    return out;
  }

  /**
   * `itemId`: the model's id of the reasoning item (the stored item's id: a replay names the item
   * the same), "" or absent when unknown.
   */
  private reasoningDelta(delta: ItemDelta, itemId?: string): ItemEvent[] {
    const out: ItemEvent[] = [];
    let open = this.reasoning;
    if (!open) {
      open = {
        type: "reasoning",
        id: this.newId(itemId || null),
        status: "in_progress",
        summary: [],
        content: [],
      };
      this.reasoning = open;
      out.push(this.started(open));
    }
    if (delta.kind === "reasoning_summary_part") {
      while (open.summary.length <= delta.summary_index) open.summary.push("");
    } else if (delta.kind === "reasoning_summary_text") {
      if (open.summary.length === 0) open.summary.push("");
      const index = open.summary.length - 1;
      open.summary[index] += delta.text;
      delta.summary_index = index;
    } else if (delta.kind === "reasoning_content_text") {
      if (open.content.length === 0) open.content.push("");
      open.content[0] += delta.text;
    }
    out.push(this.updated(open, delta));
    return out;
  }

  private responseItem(item: ResponseItem): ItemEvent[] {
    if (item.type === "message" && item.role === "user") {
      const fragments = hookPromptFragments(messageText(item));
      if (!fragments) return [];
      return this.startAndComplete({
        type: "hook_prompt",
        id: this.newId(null),
        status: "completed",
        fragments,
      });
    }
    if (item.type === "message" && item.role === "assistant") return this.completeMessage(item);
    if (item.type === "message") {
      const mode = collaborationModeOf(item);
      if (mode) this.planMode = mode === "plan";
      return [];
    }
    if (item.type === "reasoning") {
      const open = this.reasoning;
      this.reasoning = null;
      const summary = item.summary.map((part) => part.text);
      const content = (item.content ?? []).map((part) => part.text);
      if (!open && summary.length === 0 && content.length === 0) return [];
      const done: ReasoningTurnItem = {
        type: "reasoning",
        id: open?.id ?? this.newId(item.id ?? null),
        status: "completed",
        summary,
        content,
      };
      return open ? [this.completed(done)] : this.startAndComplete(done);
    }
    if (item.type === "web_search_call") {
      const callId = item.id ?? "";
      const open = this.searches.get(callId);
      this.searches.delete(callId);
      const query = item.action?.query ?? "";
      const done: WebSearchItem = {
        type: "web_search",
        id: open?.id ?? this.newId(callId || null),
        status: "completed",
        query,
        action: item.action ?? null,
      };
      return open ? [this.completed(done)] : this.startAndComplete(done);
    }
    return [];
  }

  private startSearch(callId: string): ItemEvent[] {
    const item: WebSearchItem = {
      type: "web_search",
      id: this.newId(callId || null),
      status: "in_progress",
      query: "",
      action: null,
    };
    this.searches.set(callId, item);
    return [this.started(item)];
  }

  private startCommand(callId: string, command: string[], cwd: string, source?: "user_shell"): ItemEvent[] {
    if (this.commands.has(callId)) return [];
    const item: CommandExecutionItem = {
      type: "command_execution",
      id: this.newId(callId),
      status: "in_progress",
      command,
      cwd,
      source: source ?? "agent",
      aggregated_output: null,
      exit_code: null,
      duration_ms: null,
    };
    this.commands.set(callId, item);
    return [this.started(item)];
  }

  private commandOutput(event: EventOf<"exec_command_output_delta">): ItemEvent[] {
    const open = this.commands.get(event.call_id);
    if (!open) return [];
    return [this.updated(open, { kind: "command_output", stream: event.stream, chunk: event.chunk })];
  }

  private endCommand(event: EventOf<"exec_command_end">): ItemEvent[] {
    if (this.cancelled.delete(event.call_id)) return [];
    const out = this.startCommand(event.call_id, event.command, event.cwd, event.source);
    const open = this.commands.get(event.call_id);
    this.commands.delete(event.call_id);
    if (!open) return out;
    out.push(
      this.completed({
        ...open,
        status: event.exit_code === 0 ? "completed" : "failed",
        aggregated_output: event.aggregated_output,
        exit_code: event.exit_code,
        duration_ms: event.duration_ms,
      }),
    );
    return out;
  }

  private startPatch(callId: string, changes: Record<string, FileChange>): ItemEvent[] {
    if (this.patches.has(callId)) return [];
    const item: FileChangeItem = {
      type: "file_change",
      id: this.newId(callId),
      status: "in_progress",
      changes,
      output: null,
    };
    this.patches.set(callId, item);
    return [this.started(item)];
  }

  private endPatch(event: EventOf<"patch_apply_end">): ItemEvent[] {
    const out = this.startPatch(event.call_id, event.changes);
    const open = this.patches.get(event.call_id);
    this.patches.delete(event.call_id);
    if (!open) return out;
    const text = event.success ? event.stdout : event.stderr || event.stdout;
    if (text) out.push(this.updated(open, { kind: "file_change_output", text }));
    out.push(
      this.completed({
        ...open,
        status: event.success ? "completed" : "failed",
        changes: event.changes,
        output: text,
      }),
    );
    return out;
  }

  private startCall(callId: string, item: TurnItem): ItemEvent[] {
    if (this.calls.has(callId)) return [];
    this.calls.set(callId, item);
    return [this.started(item)];
  }

  private mcpCall(event: { call_id: string; invocation: McpInvocation }): TurnItem {
    return {
      type: "mcp_tool_call",
      id: this.newId(event.call_id),
      status: "in_progress",
      invocation: event.invocation,
      result: null,
      duration_ms: null,
    };
  }

  private endMcpCall(event: EventOf<"mcp_tool_call_end">): ItemEvent[] {
    const out = this.startCall(event.call_id, this.mcpCall(event));
    const open = this.calls.get(event.call_id);
    this.calls.delete(event.call_id);
    if (open?.type !== "mcp_tool_call") return out;
    const failed = "Err" in event.result || event.result.Ok.isError === true;
    out.push(
      this.completed({
        ...open,
        invocation: event.invocation,
        status: failed ? "failed" : "completed",
        result: event.result,
        duration_ms: event.duration_ms,
      }),
    );
    return out;
  }

  private endClientCall(event: EventOf<"client_tool_call_end">): ItemEvent[] {
    const open = this.calls.get(event.call_id);
    this.calls.delete(event.call_id);
    const item: TurnItem = {
      type: "client_tool_call",
      id: open?.id ?? this.newId(event.call_id),
      status: event.result.success ? "completed" : "failed",
      tool: event.tool,
      arguments: event.arguments,
      result: event.result,
      duration_ms: event.duration_ms,
    };
    return open ? [this.completed(item)] : this.startAndComplete(item);
  }

  private planUpdate(event: EventOf<"plan_update">): ItemEvent[] {
    if (this.plan) {
      this.plan = { ...this.plan, explanation: event.explanation, plan: event.plan };
      return [this.updated(this.plan)];
    }
    // Plans and sub-agents are never stored: their ids come from what they are, so the counted ids
    // of the items a rollout keeps stay the same live and replayed.
    this.plan = {
      type: "plan",
      id: this.newId(`plan-${this.turnId}`),
      status: "in_progress",
      explanation: event.explanation,
      plan: event.plan,
    };
    return [this.started(this.plan)];
  }

  private agentSpawned(event: EventOf<"agent_spawned">): ItemEvent[] {
    const item: SubAgentItem = {
      type: "sub_agent",
      id: this.newId(`agent-${event.agent_id}`),
      status: "in_progress",
      agent_id: event.agent_id,
      agent_type: event.agent_type,
      message: event.message,
      agent_status: "running",
    };
    this.agents.set(event.agent_id, item);
    return [this.started(item)];
  }

  /** A sub-agent's status: `finished` completes its item (again, each time its work ends). */
  private agentUpdate(agentId: string, status: AgentStatus, finished: boolean): ItemEvent[] {
    const open = this.agents.get(agentId);
    if (!open) return [];
    const failed = typeof status === "object" && "errored" in status;
    const item: SubAgentItem = {
      ...open,
      agent_status: status,
      status: finished ? (failed ? "failed" : "completed") : "in_progress",
    };
    this.agents.set(agentId, item);
    return [finished ? this.completed(item) : this.updated(item)];
  }

  /** Close what the turn left open (a message or reasoning cut short, a search, the plan). */
  private endTurn(): ItemEvent[] {
    const out: ItemEvent[] = this.modes.end(this.turnId, null);
    if (this.message && this.messageShown) out.push(this.completed({ ...this.message, status: "failed" }));
    if (this.proposed) out.push(this.completed({ ...this.proposed, status: "failed" }));
    if (this.reasoning) out.push(this.completed({ ...this.reasoning, status: "failed" }));
    for (const item of this.searches.values()) out.push(this.completed({ ...item, status: "completed" }));
    if (this.plan) out.push(this.completed({ ...this.plan, status: "completed" }));
    this.message = null;
    this.messageShown = false;
    this.splitter = null;
    this.proposed = null;
    this.reasoning = null;
    this.plan = null;
    this.searches.clear();
    this.turnId = "";
    return out;
  }
}

/**
 * Item ids that the live stream and a replay of the thread's stored lines agree on (the
 * app-server's live items and its thread/read): a call's own id, else the thread's id, the turn's
 * id and the item's count in that turn (unique across threads, as Codex's uuids are). Counted ids
 * follow the events both see (prompts, messages, reasoning, compactions, hook prompts), so the
 * same stored turn gives the same ids again.
 */
export function turnScopedIds(threadId: string): (callId: string | null, turnId: string) => string {
  let turn = "";
  let count = 0;
  return (callId, turnId) => {
    if (callId) return callId;
    if (turnId !== turn) {
      turn = turnId;
      count = 0;
    }
    return `${threadId}-${turnId}-${++count}`;
  };
}

/**
 * The fragments of a user message made only of `<hook_prompt hook_run_id="…">…</hook_prompt>`
 * parts (what a Stop hook's block adds); null for any other message.
 */
function hookPromptFragments(text: string): { hook_run_id: string; text: string }[] | null {
  const pattern = /<hook_prompt hook_run_id="([^"]*)">([\s\S]*?)<\/hook_prompt>/g;
  const fragments = [...text.matchAll(pattern)].map((match) => ({
    hook_run_id: match[1] ?? "",
    text: match[2] ?? "",
  }));
  if (fragments.length === 0 || text.replace(pattern, "").trim() !== "") return null;
  return fragments;
}
