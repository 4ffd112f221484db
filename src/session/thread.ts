/**
 * A Thread: one conversation with the agent.
 * Responsibilities: hold the history; take ops (user turns, interrupt, approvals, shutdown) and run
 * turns one at a time; emit every event to its listeners; never throw out of `submit`
 * (failures become `error` / `turn_failed` events).
 * Flow: submit(user_turn) → queue → [first turn: initial context] → user message →
 * runTurn → turn_complete | turn_aborted | turn_failed | turn_parked.
 * Parked turns (settings.parkClientCalls): a turn that stops on client tool calls keeps only its
 * history and the pending call ids; continueTurn(outputs) records the outputs and resumes it
 * (turn_continued). A new user turn instead closes it with failed outputs.
 */

import { TurnDiffTracker } from "../apply-patch/index.js";
import { mentionedSkills, skillMessage } from "../prompt/skills.js";
import type { UserInputReply } from "../protocol/agents.js";
import type { ClientToolResult, ClientToolSpec } from "../protocol/client-tools.js";
import type { ElicitationResult, Event, ReviewDecision } from "../protocol/events.js";
import {
  addUsage,
  developerMessage,
  emptyUsage,
  isToolCall,
  type ResponseItem,
  type TokenUsage,
  type ToolCallItem,
  userMessage,
} from "../protocol/items.js";
import type { ThreadEvent } from "../protocol/turn-items.js";
import { ToolRouter } from "../tools/router.js";
import { buildTurnTools } from "../tools/tool-set.js";
import type { TurnContext } from "../tools/types.js";
import { errorMessage } from "../util/errors.js";
import { EventStream } from "../util/event-stream.js";
import { ResourceScope, resourceKey } from "../util/resource-scope.js";
import { PendingApprovals } from "./approvals.js";
import { PendingClientCalls } from "./client-calls.js";
import { compactedHistory, loadCompactPrompt, summarize } from "./compact.js";
import { turnContextItems } from "./context-items.js";
import { PendingElicitations } from "./elicitations.js";
import { History } from "./history.js";
import { HookPoints, type SubagentStopped } from "./hook-points.js";
import { type SubscribeOptions, ThreadListeners } from "./listeners.js";
import {
  type AnswerRoute,
  type ForwardedAnswer,
  type Op,
  type ParkedTurn,
  type RestoredState,
  type TurnResult,
  turnAbortedMessage,
} from "./ops.js";
import { abandonedOutputs, parkedFromHistory, parkedOutputs } from "./parking.js";
import type { ThreadServices } from "./services.js";
import { permissionsOf, type ThreadSettings, type TurnOverrides, type UserInput } from "./settings.js";
import { type AutoCompact, FatalTurnError, runTurn, TurnAbortedError, TurnFailedError } from "./turn.js";
import { PendingUserInput } from "./user-input.js";

export type { SubscribeOptions } from "./listeners.js";
export type {
  AnswerRoute,
  ForwardedAnswer,
  Op,
  ParkedTurn,
  RestoredState,
  TurnResult,
  TurnStatus,
} from "./ops.js";
export type { ThreadSettings, TurnOverrides, UserInput } from "./settings.js";

export class Thread {
  private readonly log = new History();
  private readonly listeners = new ThreadListeners();
  private settings: ThreadSettings;
  private usage = emptyUsage();
  private nextTurn = 0;
  private queue: Promise<void> = Promise.resolve();
  private running: AbortController | null = null;
  private initialized = false;
  private closed = false;
  private readonly resources = new ResourceScope();
  private mcpStarted = false;
  private readonly approvals: PendingApprovals;
  private readonly clientCalls: PendingClientCalls;
  private readonly userInput: PendingUserInput;
  private readonly elicitations: PendingElicitations;
  /** Input + output tokens of the last model response: the context size auto-compaction watches. */
  private lastResponseTokens = 0;
  /** The turn stopped on client tool calls, if any (cleared when continued or abandoned). */
  private parked: ParkedTurn | null = null;
  /** The thread's hooks; null when it has none. */
  private readonly hooks: HookPoints | null;
  /** SessionStart ran (once per Thread object: "startup", or "resume" for a restored one). */
  private sessionStarted = false;
  private restored = false;
  private transcript: string | null = null;

  constructor(
    readonly id: string,
    private readonly services: ThreadServices,
    settings: ThreadSettings,
  ) {
    this.settings = { ...settings };
    this.approvals = new PendingApprovals((event) => this.emit(event), services.approvalTimeoutMs);
    this.clientCalls = new PendingClientCalls((event) => this.emit(event), services.clientToolTimeoutMs);
    this.userInput = new PendingUserInput((event) => this.emit(event), services.approvalTimeoutMs);
    this.elicitations = new PendingElicitations((event) => this.emit(event), services.approvalTimeoutMs);
    // MCP servers live as long as the thread: shutdown closes them with the other resources.
    const mcp = services.mcp;
    if (mcp) this.resources.use(MCP_SERVERS, () => mcp);
    const engine = services.hooks;
    this.hooks = engine
      ? new HookPoints(engine, {
          threadId: id,
          transcriptPath: () => this.transcript,
          cwd: () => this.settings.cwd,
          model: () => this.settings.model?.model ?? services.model ?? "",
          approvalPolicy: () => this.settings.approvalPolicy,
          warn: (message) => this.emit({ type: "warning", message }),
          emit: (event) => this.emit(event),
        })
      : null;
  }

  /** The rollout file hooks are told about (`transcript_path`); set by whoever records the thread. */
  setTranscriptPath(path: string | null): void {
    this.transcript = path;
  }

  get transcriptPath(): string | null {
    return this.transcript;
  }

  /** SubagentStart for a child this thread's turn `turnId` started (agent-control.ts): the child's contexts. */
  async subagentStart(turnId: string, agent: { id: string; type: string }): Promise<string[]> {
    return (await this.hooks?.subagentStart(turnId, agent)) ?? [];
  }

  /** SubagentStop when a child finished a turn: a block reason is the child's next input. */
  subagentStop(turnId: string, agent: SubagentStopped): Promise<string | null> {
    return this.hooks?.subagentStop(turnId, agent) ?? Promise.resolve(null);
  }

  get cwd(): string {
    return this.settings.cwd;
  }

  /** The history every request resends, oldest first. */
  get history(): readonly ResponseItem[] {
    return this.log.items;
  }

  /** The client tools in force (thread start, or the last turn that brought its own). */
  get clientTools(): readonly ClientToolSpec[] {
    return this.settings.clientTools ?? [];
  }

  /** The parked turn waiting for client outputs, or null. */
  get parkedTurn(): ParkedTurn | null {
    return this.parked;
  }

  get totalUsage(): TokenUsage {
    return this.usage;
  }

  /** Listen to every event of every turn; returns the unsubscribe function. */
  subscribe(listener: (event: Event) => void, options: SubscribeOptions = {}): () => void {
    return this.listeners.subscribe(listener, options);
  }

  /** Listen to every event, each followed by the item events the core made of it (turn-items.ts). */
  subscribeItems(listener: (event: ThreadEvent) => void, options: SubscribeOptions = {}): () => void {
    return this.listeners.subscribeItems(listener, options);
  }

  newTurnId(): string {
    return String(this.nextTurn++);
  }

  submit(op: Op): void {
    switch (op.type) {
      case "interrupt":
        this.running?.abort();
        return;
      case "exec_approval":
      case "patch_approval":
        if (op.agent_id !== undefined) this.answerForwarded(op.agent_id, op.id, { approval: op.decision });
        else this.answerApproval(op.type === "exec_approval" ? "exec" : "patch", op.id, op.decision);
        return;
      case "client_tool_response":
        if (!this.clientCalls.respond(op.id, op.result))
          this.emit({ type: "warning", message: `no open client tool call with id ${op.id}` });
        return;
      case "user_input_answer":
        if (op.agent_id !== undefined) this.answerForwarded(op.agent_id, op.id, { userInput: op.response });
        else if (!this.userInput.answer(op.id, op.response))
          this.emit({ type: "warning", message: `no open request_user_input with id ${op.id}` });
        return;
      case "elicitation_answer":
        if (!this.elicitations.answer(op.id, op.result))
          this.emit({ type: "warning", message: `no open elicitation with id ${op.id}` });
        return;
      case "shutdown":
        this.closed = true;
        this.running?.abort();
        // Tools' per-thread state (live exec sessions) ends with the thread.
        this.queue = this.queue
          .then(() => this.hooks?.sessionEnd())
          .then(() => this.resources.dispose())
          .then(() => this.emit({ type: "shutdown_complete" }));
        return;
      case "compact":
        if (!this.closed) this.queue = this.queue.then(() => this.runCompaction());
        return;
      case "user_turn":
        if (this.closed) {
          this.emit({ type: "turn_failed", turn_id: op.turnId, message: "thread is shut down" });
          return;
        }
        this.queue = this.queue.then(() => this.runUserTurn(op));
        return;
      case "continue_turn":
        if (this.closed) {
          this.emit({ type: "turn_failed", turn_id: op.turnId, message: "thread is shut down" });
          return;
        }
        this.queue = this.queue.then(() => this.runUserTurn(op));
        return;
    }
  }

  /** Start a turn and stream its events; the stream's result is the turn's outcome. */
  runStreamed(input: UserInput, overrides?: TurnOverrides): EventStream<Event, TurnResult> {
    const turnId = this.newTurnId();
    return this.streamTurn(turnId, { type: "user_turn", turnId, input, ...(overrides ? { overrides } : {}) });
  }

  /**
   * Continue the parked turn with the client's function_call_output items and stream its events
   * (turn_continued first). Without a parked turn the stream ends with a failed result.
   */
  continueStreamed(outputs: ResponseItem[], overrides?: TurnOverrides): EventStream<Event, TurnResult> {
    const turnId = this.parked?.turnId ?? "none";
    return this.streamTurn(turnId, {
      type: "continue_turn",
      turnId,
      outputs,
      ...(overrides ? { overrides } : {}),
    });
  }

  /** Continue the parked turn to its end (see continueStreamed). */
  continueTurn(outputs: ResponseItem[], overrides?: TurnOverrides): Promise<TurnResult> {
    return this.continueStreamed(outputs, overrides).result();
  }

  private streamTurn(turnId: string, op: Op): EventStream<Event, TurnResult> {
    const stream = new EventStream<Event, TurnResult>();
    let inTurn = false;
    const unsubscribe = this.subscribe((event) => {
      if (event.type === "turn_started" || event.type === "turn_continued") inTurn = event.turn_id === turnId;
      if (inTurn) stream.push(event);
    });
    this.pendingResults.set(turnId, (result) => {
      unsubscribe();
      stream.end(result);
    });
    this.submit(op);
    return stream;
  }

  /** Run a turn to its end (events still reach subscribers; none are buffered here). */
  run(input: UserInput, overrides?: TurnOverrides): Promise<TurnResult> {
    const turnId = this.newTurnId();
    return new Promise((resolve) => {
      this.pendingResults.set(turnId, resolve);
      this.submit({ type: "user_turn", turnId, input, ...(overrides ? { overrides } : {}) });
    });
  }

  /** Summarise the history now (the `compact` op); resolves when done. Failures are `error` events. */
  compact(): Promise<void> {
    this.submit({ type: "compact" });
    return this.queue;
  }

  /**
   * Continue from a stored thread (resume, fork): its history, usage and turn count.
   * Call before the first turn; the stored history already holds the initial context.
   */
  restore(state: RestoredState): void {
    this.log.replace(state.history);
    // Tools given when reopening win; else the thread continues with the set it last used.
    if (state.clientTools?.length && !this.settings.clientTools?.length)
      this.settings = { ...this.settings, clientTools: state.clientTools };
    this.usage = state.usage;
    this.nextTurn = state.turns;
    this.initialized = state.history.length > 0;
    this.restored = true;
    this.parked = state.parked ? parkedFromHistory(state.history, state.parked) : null;
    this.lastResponseTokens = state.lastUsage
      ? state.lastUsage.input_tokens + state.lastUsage.output_tokens
      : 0;
  }

  /**
   * Start from a conversation held elsewhere (an HTTP client resending its history): after the
   * initial context, the items become history and are recorded like any item. Function calls
   * left without outputs at the end become a parked turn, which continueTurn resumes. Call it
   * once, before the first turn.
   */
  async importHistory(items: readonly ResponseItem[]): Promise<void> {
    const record = (item: ResponseItem) => {
      this.log.append(item);
      this.emit({ type: "raw_response_item", item });
    };
    await this.prepareContext(undefined, record);
    for (const item of items) record(item);
    const answered = new Set(
      items.flatMap((item) => ("call_id" in item && !isToolCall(item) ? [item.call_id] : [])),
    );
    const open = items.filter(
      (item): item is ToolCallItem => isToolCall(item) && !answered.has(item.call_id),
    );
    if (open.length === 0) return;
    const turnId = this.newTurnId();
    this.emit({ type: "turn_started", turn_id: turnId, model_context_window: this.services.contextWindow });
    this.parked = { turnId, calls: open, parkedAt: Date.now() };
    const call_ids = open.map((call) => call.call_id);
    this.emit({ type: "turn_parked", turn_id: turnId, call_ids, usage: emptyUsage() });
  }

  interrupt(): void {
    this.submit({ type: "interrupt" });
  }

  /** End the running turn (if any) as failed with `message`: something it relies on is gone. */
  failTurn(message: string): void {
    this.running?.abort(new TurnFailedError(message));
  }

  /**
   * Answer client tool call `callId` (a `client_tool_call_request` event). False when no such
   * call is waiting (already answered, timed out, or its turn ended).
   */
  respondToTool(callId: string, result: ClientToolResult): boolean {
    if (!this.clientCalls.has(callId)) return false;
    this.submit({ type: "client_tool_response", id: callId, result });
    return true;
  }

  /**
   * Answer the open approval question of call `id`, whichever kind it is; `agentId`: the
   * question's `agent_id` (a sub-agent asked).
   */
  approve(id: string, decision: ReviewDecision, agentId?: string): void {
    const kind = agentId === undefined ? (this.approvals.kindOf(id) ?? "exec") : "exec";
    this.submit({
      type: kind === "exec" ? "exec_approval" : "patch_approval",
      id,
      decision,
      agent_id: agentId,
    });
  }

  /**
   * Answer a `request_user_input` question (id = its call_id): the answers by question id, or
   * null when nobody can be asked. False when no such question is open.
   */
  answerUserInput(callId: string, reply: UserInputReply, agentId?: string): void {
    this.submit({ type: "user_input_answer", id: callId, response: reply, agent_id: agentId });
  }

  /** Answer sub-agent `agentId` (a child's or a descendant's question); false when none knows it. */
  routeAnswer(agentId: string, callId: string, answer: ForwardedAnswer): boolean {
    return this.routes.some((route) => route(agentId, callId, answer));
  }

  /** Answer an `elicitation_request` event (id = its id). */
  answerElicitation(id: string, result: ElicitationResult): void {
    this.submit({ type: "elicitation_answer", id, result });
  }

  /**
   * Emit an event of this thread from outside a turn's tool call (its sub-agents' lifecycle).
   * Listeners see it like any other event of the thread.
   */
  publish(event: Event): void {
    this.emit(event);
  }

  /** Route answers to questions this thread forwarded for its sub-agents (see AnswerRoute). */
  routeAnswers(route: AnswerRoute): void {
    this.routes.push(route);
  }

  private readonly routes: AnswerRoute[] = [];

  private answerForwarded(agentId: string, callId: string, answer: ForwardedAnswer): void {
    if (!this.routeAnswer(agentId, callId, answer))
      this.emit({ type: "warning", message: `no sub-agent ${agentId} waits for an answer to ${callId}` });
  }

  private answerApproval(kind: "exec" | "patch", id: string, decision: ReviewDecision): void {
    if (!this.approvals.answer(kind, id, decision)) {
      this.emit({ type: "warning", message: `no open ${kind} approval request with id ${id}` });
      return;
    }
    // "abort" ends the turn, as an interrupt does.
    if (decision === "abort") this.running?.abort();
  }

  private readonly pendingResults = new Map<string, (result: TurnResult) => void>();

  private emit(event: Event): void {
    if (event.type === "token_count" && event.last)
      this.lastResponseTokens = event.last.input_tokens + event.last.output_tokens;
    this.listeners.emit(event);
  }

  private async runUserTurn(op: Extract<Op, { type: "user_turn" | "continue_turn" }>): Promise<void> {
    const turnItems: ResponseItem[] = [];
    const record = (item: ResponseItem) => {
      this.log.append(item);
      turnItems.push(item);
      this.emit({ type: "raw_response_item", item });
    };
    const abort = new AbortController();
    this.running = abort;
    const result: TurnResult = {
      turnId: op.turnId,
      status: "completed",
      finalResponse: null,
      items: turnItems,
      usage: emptyUsage(),
      error: null,
      pendingCalls: [],
    };
    const parked = this.parked;
    if (op.type === "continue_turn" && parked?.turnId !== op.turnId) {
      const message = `no parked turn ${op.turnId} to continue`;
      this.emit({ type: "turn_failed", turn_id: op.turnId, message });
      this.finishTurn(op.turnId, { ...result, status: "failed", error: message });
      return;
    }
    // Linked before the turn's first step: a caller gone while the turn was queued ends it now.
    const callerGone = () => abort.abort();
    const callerSignal = op.overrides?.signal;
    if (callerSignal?.aborted) abort.abort();
    else callerSignal?.addEventListener("abort", callerGone, { once: true });
    if (op.type === "continue_turn") this.emit({ type: "turn_continued", turn_id: op.turnId });
    else
      this.emit({
        type: "turn_started",
        turn_id: op.turnId,
        model_context_window: this.services.contextWindow,
      });
    try {
      await this.awaitMcpStartup(abort.signal);
      const router = this.turnRouter(op.overrides?.clientTools);
      // Outputs go right after their calls: nothing may come between a call and its output.
      if (parked) {
        this.parked = null;
        const { items, ignored } =
          op.type === "continue_turn"
            ? parkedOutputs(parked, op.outputs)
            : { items: abandonedOutputs(parked), ignored: [] };
        for (const item of items) record(item);
        if (ignored.length > 0)
          this.emit({
            type: "warning",
            message: `outputs for no pending call ignored: ${ignored.join(", ")}`,
          });
      }
      if (op.type === "user_turn") {
        await this.prepareContext(op.overrides, record);
        await this.sessionStart(record, abort.signal);
        const prompt = (await this.hooks?.userPromptSubmit(op.turnId, op.input.text, abort.signal)) ?? {
          contexts: [],
          blocked: null,
        };
        if (prompt.blocked !== null) {
          // The prompt never reaches the model (nor the history); the turn ends here.
          this.emit({ type: "warning", message: prompt.blocked });
          this.emit({
            type: "turn_complete",
            turn_id: op.turnId,
            last_agent_message: null,
            usage: emptyUsage(),
          });
          return;
        }
        record(userMessage(op.input.text, op.input.images ?? []));
        this.emit({ type: "user_message", message: op.input.text, images: op.input.images ?? [] });
        for (const text of await this.mentionedSkills(op.input.text)) record(userMessage(text));
        for (const text of prompt.contexts) record(developerMessage(text));
      }
      const outcome = await runTurn({
        client: this.services.client,
        router,
        instructions: this.services.baseInstructions,
        parallelToolCalls: this.services.parallelToolCalls,
        contextWindow: this.services.contextWindow,
        history: this.log,
        record,
        context: this.turnContext(op.turnId, abort.signal),
        threadUsage: this.usage,
        outputSchema: op.overrides?.outputSchema,
        settings: this.requestSettings(),
        autoCompact: this.autoCompact(),
        parkClientCalls: this.settings.parkClientCalls,
        hooks: this.hooks?.turnHooks(op.turnId, abort.signal),
      });
      result.finalResponse = outcome.lastAgentMessage;
      result.usage = outcome.usage;
      this.usage = addUsage(this.usage, outcome.usage);
      if (outcome.parked) {
        this.parked = { turnId: op.turnId, calls: outcome.parked, parkedAt: Date.now() };
        result.status = "parked";
        result.pendingCalls = outcome.parked;
        this.emit({
          type: "turn_parked",
          turn_id: op.turnId,
          call_ids: outcome.parked.map((call) => call.call_id),
          usage: outcome.usage,
        });
        return;
      }
      this.emit({
        type: "turn_complete",
        turn_id: op.turnId,
        last_agent_message: outcome.lastAgentMessage,
        usage: outcome.usage,
      });
    } catch (error) {
      const failure = abort.signal.reason instanceof TurnFailedError ? abort.signal.reason : null;
      if (!failure && (abort.signal.aborted || error instanceof TurnAbortedError)) {
        result.status = "interrupted";
        record(userMessage(turnAbortedMessage(op.turnId)));
        this.emit({ type: "turn_aborted", turn_id: op.turnId, reason: "interrupted" });
      } else {
        const message = errorMessage(failure ?? error);
        result.status = "failed";
        result.error = message;
        this.emit({ type: "error", message });
        this.emit({ type: "turn_failed", turn_id: op.turnId, message });
        if (!(error instanceof FatalTurnError)) this.log.dropUnansweredCalls();
      }
    } finally {
      callerSignal?.removeEventListener("abort", callerGone);
      this.running = null;
      this.finishTurn(op.turnId, result);
    }
  }

  /** First turn of this Thread object: load warnings, then SessionStart (its contexts go to the model). */
  private async sessionStart(record: (item: ResponseItem) => void, signal: AbortSignal): Promise<void> {
    if (this.sessionStarted) return;
    this.sessionStarted = true;
    const warnings = [
      ...(this.services.hooks?.loadWarnings ?? []),
      ...(this.services.skills?.loaded.warnings ?? []),
    ];
    for (const message of warnings) this.emit({ type: "warning", message });
    const contexts = (await this.hooks?.sessionStart(this.restored ? "resume" : "startup", signal)) ?? [];
    for (const text of contexts) record(developerMessage(text));
  }

  /** The `<skill>` messages of the skills a prompt mentions as `$name`. */
  private async mentionedSkills(prompt: string): Promise<string[]> {
    const skills = this.services.skills?.loaded.skills ?? [];
    if (skills.length === 0 || !prompt.includes("$")) return [];
    const texts = await Promise.all(mentionedSkills(prompt, skills).map(skillMessage));
    return texts.filter((text): text is string => text !== null);
  }

  private finishTurn(turnId: string, result: TurnResult): void {
    this.pendingResults.get(turnId)?.(result);
    this.pendingResults.delete(turnId);
  }

  /**
   * This turn's tools: built-ins, MCP tools, and the client tools in force; a turn that brings
   * its own client tools replaces the thread's from now on. Throws on a name clash (the turn
   * fails with the message, and the thread keeps its previous client tools).
   */
  private turnRouter(clientTools: ClientToolSpec[] | undefined): ToolRouter {
    const client = clientTools ?? this.clientTools;
    const definitions = buildTurnTools({
      builtins: this.services.tools,
      mcp: this.services.mcp?.tools() ?? [],
      client,
      clientToolsWin: this.settings.clientToolsWin ?? false,
    });
    if (clientTools) {
      this.settings = { ...this.settings, clientTools };
      this.emit({ type: "client_tools_changed", tools: clientTools });
    }
    return new ToolRouter(definitions, this.services.gate);
  }

  private requestSettings() {
    const choice = this.settings.model;
    return choice && this.services.requestSettings ? this.services.requestSettings(choice) : undefined;
  }

  private autoCompact(): AutoCompact | undefined {
    const limit = this.services.compaction?.autoLimit;
    if (limit == null) return undefined;
    return {
      limit,
      lastResponseTokens: this.lastResponseTokens,
      compact: async (signal) => {
        await this.compactHistory(signal, "auto");
      },
    };
  }

  private async runCompaction(): Promise<void> {
    if (this.log.length === 0) return;
    const abort = new AbortController();
    this.running = abort;
    try {
      await this.compactHistory(abort.signal);
    } catch (error) {
      if (!abort.signal.aborted)
        this.emit({
          type: "error",
          message: `compaction failed: ${errorMessage(error)}`,
        });
    } finally {
      this.running = null;
    }
  }

  /** Summarise, then replace the history in place (the turn loop reads the same array). */
  private async compactHistory(signal?: AbortSignal, trigger: "manual" | "auto" = "manual"): Promise<void> {
    const hooks = this.hooks;
    const turnId = String(Math.max(0, this.nextTurn - 1));
    if (hooks?.has("PreCompact")) {
      const outcome = await hooks.run("PreCompact", hooks.compact(turnId, trigger), signal);
      if (outcome.stop) {
        this.emit({
          type: "warning",
          message: outcome.stop.reason ?? "compaction stopped by PreCompact hook",
        });
        return;
      }
    }
    const prompt = this.services.compaction?.prompt ?? (await loadCompactPrompt());
    const { client, baseInstructions } = this.services;
    const summary = await summarize(client, baseInstructions, this.log.items, prompt, signal);
    const replacement = compactedHistory(this.log.items, summary);
    this.log.replace(replacement);
    this.lastResponseTokens = 0;
    this.emit({ type: "context_compacted", summary, replacement_history: replacement });
    if (hooks?.has("PostCompact")) await hooks.run("PostCompact", hooks.compact(turnId, trigger), signal);
  }

  /**
   * The first turn waits for the MCP servers (each bounded by its startup_timeout_sec; a failed
   * one is reported and skipped) so that their tools are offered from the first request. A
   * `required` server that did not start fails the turn (and every later one).
   */
  private async awaitMcpStartup(signal: AbortSignal): Promise<void> {
    if (this.mcpStarted || !this.services.mcp) return;
    await this.services.mcp.whenReady((event) => this.emit(event), signal);
    if (signal.aborted) return;
    const failure = this.services.mcp.requiredFailure();
    if (failure) throw new Error(failure);
    this.mcpStarted = true;
  }

  /** The first turn opens with the context items; later ones add what a turn changed. */
  private async prepareContext(overrides: TurnOverrides | undefined, record: (item: ResponseItem) => void) {
    if (this.initialized && !overrides) return;
    const next = await turnContextItems(this.settings, this.services, !this.initialized, overrides);
    this.settings = next.settings;
    for (const item of next.items) record(item);
    this.initialized = true;
  }

  private turnContext(turnId: string, signal: AbortSignal): TurnContext {
    const permissions = permissionsOf(this.settings);
    const hooks = this.hooks;
    return {
      threadId: this.id,
      turnId,
      cwd: this.settings.cwd,
      approvalPolicy: this.settings.approvalPolicy,
      sandboxMode: this.settings.sandboxMode,
      networkAccess: permissions.networkAccess,
      writableRoots: permissions.writableRoots,
      shellEnvironment: { env: this.services.shellEnvironment },
      truncation: this.services.truncation,
      signal,
      resources: this.resources,
      requestApproval: (question) => this.approvals.request(question, turnId, signal),
      orchestrator: this.services.orchestrator,
      ...(hooks?.has("PermissionRequest")
        ? {
            permissionHook: (question: { command: string[]; justification: string | null }) =>
              hooks.permission(turnId, question.command, question.justification, signal),
          }
        : {}),
      callClientTool: (call) => this.clientCalls.call(call, turnId, signal),
      requestUserInput: (callId, questions) => this.userInput.ask(callId, questions, turnId, signal),
      requestElicitation: (server, request) => this.elicitations.ask(server, request, turnId, signal),
      diffTracker: new TurnDiffTracker(),
      emit: (event) => this.emit(event),
      wantsOutputDeltas: () => this.listeners.wantOutputDeltas,
    };
  }
}

const MCP_SERVERS = resourceKey<NonNullable<ThreadServices["mcp"]>>("mcp-servers");
