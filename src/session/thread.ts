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

import type { SessionStartSource, ThreadStartSource } from "../hooks/index.js";
import type { UserInputReply } from "../protocol/agents.js";
import type { ClientToolResult, ClientToolSpec } from "../protocol/client-tools.js";
import type { EditorFiles } from "../protocol/editor-files.js";
import type { ElicitationResult, Event, HookRunSummary, ReviewDecision } from "../protocol/events.js";
import { addUsage, emptyUsage, type ResponseItem, type TokenUsage, userMessage } from "../protocol/items.js";
import { type TurnTelemetry, telemetry } from "../protocol/telemetry.js";
import type { ThreadEvent } from "../protocol/turn-items.js";
import { ToolRouter } from "../tools/router.js";
import { buildTurnTools } from "../tools/tool-set.js";
import type { TurnContext } from "../tools/types.js";
import { errorMessage } from "../util/errors.js";
import type { EventStream } from "../util/event-stream.js";
import { ResourceScope } from "../util/resource-scope.js";
import { ReviewedApprovals } from "./approval-review.js";
import { ThreadCompaction } from "./compaction-run.js";
import { turnContextItems } from "./context-items.js";
import { History } from "./history.js";
import { HookPoints, type SubagentStopped } from "./hook-points.js";
import { type SubscribeOptions, ThreadListeners } from "./listeners.js";
import { McpReadiness } from "./mcp-readiness.js";
import {
  type AnswerRoute,
  type ForwardedAnswer,
  type Op,
  type ParkedTurn,
  type RestoredState,
  type TurnResult,
  turnAbortedMessage,
} from "./ops.js";
import { closingOutputs, parkedFromHistory, unansweredCalls } from "./parking.js";
import { PromptIntake } from "./prompt-intake.js";
import { ThreadQuestions } from "./questions.js";
import type { ThreadServices } from "./services.js";
import {
  applyTurnOverrides,
  type EffectiveSettings,
  effectiveSettings,
  mergeOverrides,
  type ThreadSettings,
  type TurnOverrides,
  type UserInput,
} from "./settings.js";
import { SteerError, SteerQueue } from "./steering.js";
import { FatalTurnError, runTurn, TurnAbortedError, TurnFailedError } from "./turn.js";
import { buildTurnContext } from "./turn-context.js";
import { TurnWaiters } from "./turn-waiters.js";

export type { SubscribeOptions } from "./listeners.js";
export type { ForwardedAnswer, ParkedTurn, TurnResult, TurnStatus } from "./ops.js";
export type { EffectiveSettings, ThreadSettings, TurnOverrides, UserInput } from "./settings.js";
export { SteerError } from "./steering.js";

export class Thread {
  private readonly log = new History();
  private readonly listeners = new ThreadListeners();
  private settings: ThreadSettings;
  private usage = emptyUsage();
  private nextTurn = 0;
  private queue: Promise<void> = Promise.resolve();
  private running: AbortController | null = null;
  /** The user turn running now (null between turns and while compacting), and those queued. */
  private runningTurnId: string | null = null;
  /** The running turn's telemetry (only with `[otel]`). */
  private turnTelemetry: TurnTelemetry | undefined;
  /** The running turn's editor files (its overrides'): never kept past the turn. */
  private turnEditorFiles: EditorFiles | undefined;
  private readonly queuedTurns: string[] = [];
  private readonly steering = new SteerQueue();
  private initialized = false;
  private closed = false;
  private readonly resources = new ResourceScope();
  private readonly mcp: McpReadiness;
  private readonly questions: ThreadQuestions;
  /** Settings changes for the next user turn to begin (overrideSettings), under its own. */
  private pendingOverrides: TurnOverrides = {};
  private readonly compaction: ThreadCompaction;
  /** The turn stopped on client tool calls, if any (cleared when continued or abandoned). */
  private parked: ParkedTurn | null = null;
  /** The thread's hooks; null when it has none. */
  private readonly hooks: HookPoints | null;
  private readonly intake: PromptIntake;
  /** SessionStart's source: as opened, or "resume" once restored from the store. */
  private sessionStartSource: SessionStartSource;
  /** The rollout file hooks are told about (`transcript_path`); set by whoever records the thread. */
  transcriptPath: string | null = null;

  constructor(
    readonly id: string,
    private readonly services: ThreadServices,
    settings: ThreadSettings,
    /** "clear": a client opened it in place of one it cleared (Codex's `/clear`). */
    opening: { sessionStartSource?: ThreadStartSource | undefined } = {},
  ) {
    this.settings = { ...settings };
    this.sessionStartSource = opening.sessionStartSource ?? "startup";
    this.questions = new ThreadQuestions(
      (event) => this.emit(event),
      services,
      () => this.running?.abort(),
      () => this.settings.granular ?? null,
    );
    if (services.autoReview)
      this.questions.useReviewer(
        new ReviewedApprovals(services.autoReview, {
          threadId: this.id,
          enabled: () => this.settings.approvalsReviewer === "auto_review",
          cwd: () => this.settings.cwd,
          history: () => this.log.items,
          emit: (event) => this.emit(event),
          failTurn: (message) => this.failTurn(message),
        }),
      );
    this.mcp = new McpReadiness(services.mcp, this.resources);
    const engine = services.hooks;
    this.hooks = engine
      ? new HookPoints(engine, {
          threadId: id,
          transcriptPath: () => this.transcriptPath,
          cwd: () => this.settings.cwd,
          model: () => this.settings.model?.model ?? services.model ?? "",
          approvalPolicy: () => this.settings.approvalPolicy,
          warn: (message) => this.emit({ type: "warning", message }),
          emit: (event) => this.emit(event),
        })
      : null;
    const emit = (event: Event) => this.emit(event);
    const subject = { log: this.log, hooks: this.hooks, services, emit };
    this.compaction = new ThreadCompaction(subject, () => String(Math.max(0, this.nextTurn - 1)));
    this.intake = new PromptIntake(this.hooks, services, emit, () => this.sessionStartSource);
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

  /** What the next turn runs with: the settings in force and the pending overrides. */
  get effectiveSettings(): EffectiveSettings {
    return effectiveSettings(applyTurnOverrides(this.settings, this.pendingOverrides), this.services);
  }

  /**
   * Change what turns run with from the next user turn to begin (Codex's OverrideTurnContext):
   * policies, sandbox extent, cwd, model, reasoning, client tools. That turn's own overrides win.
   */
  overrideSettings(overrides: TurnOverrides): void {
    // What belongs to one turn only never becomes pending for the next.
    const {
      outputSchema: _schema,
      signal: _signal,
      editorFiles: _editor,
      trace: _trace,
      ...lasting
    } = overrides;
    this.pendingOverrides = mergeOverrides(this.pendingOverrides, lasting);
  }

  /** The history every request resends, oldest first. */
  get history(): readonly ResponseItem[] {
    return this.log.items;
  }

  /** The client tools in force (thread start, or the last turn that brought its own). */
  get clientTools(): readonly ClientToolSpec[] {
    return this.settings.clientTools ?? [];
  }

  /** The thread's MCP servers (starting or started); undefined when none are configured. */
  get mcpServers(): ThreadServices["mcp"] {
    return this.services.mcp;
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
      case "client_tool_response":
      case "user_input_answer":
      case "elicitation_answer":
        this.questions.answer(op);
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
        if (!this.closed) this.queue = this.queue.then(() => this.runCompaction(op.turnId));
        return;
      case "user_turn":
      case "continue_turn":
      case "user_shell":
        if (this.closed) {
          this.refuseClosed(op.turnId);
          return;
        }
        if (op.type === "user_turn") this.queuedTurns.push(op.turnId);
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
    const stream = this.waiters.stream(turnId, (listener) => this.subscribe(listener));
    this.submit(op);
    return stream;
  }

  /** Run a turn to its end (events still reach subscribers; none are buffered here). */
  run(input: UserInput, overrides?: TurnOverrides): Promise<TurnResult> {
    const turnId = this.newTurnId();
    const result = this.waiters.result(turnId);
    this.submit({ type: "user_turn", turnId, input, ...(overrides ? { overrides } : {}) });
    return result;
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
    this.sessionStartSource = "resume";
    this.parked = state.parked ? parkedFromHistory(state.history, state.parked) : null;
    this.compaction.lastResponseTokens = state.lastUsage
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
    const open = unansweredCalls(items);
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

  /** The turn input is steered into: the running one, else the next to begin (null: none). */
  get activeTurnId(): string | null {
    return this.runningTurnId ?? this.queuedTurns[0] ?? null;
  }

  /** Add `input` to the active turn (read before its next request); SteerError if none or not `expectedTurnId`. */
  steer(input: UserInput, expectedTurnId?: string): string {
    const running = this.activeTurnId;
    if (running === null) throw new SteerError("no active turn to steer");
    if (expectedTurnId !== undefined && expectedTurnId !== running)
      throw new SteerError(`expected active turn id ${expectedTurnId} but found ${running}`);
    this.steering.push(input);
    return running;
  }

  /** A person approves what review `reviewId` denied: its retry runs without review. False: no such denial. */
  approveDeniedAction(reviewId: string): boolean {
    return this.questions.overrideReview(reviewId);
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
    if (!this.questions.waitsForTool(callId)) return false;
    this.submit({ type: "client_tool_response", id: callId, result });
    return true;
  }

  /**
   * Answer the open approval question of call `id`, whichever kind it is; `agentId`: the
   * question's `agent_id` (a sub-agent asked).
   */
  approve(id: string, decision: ReviewDecision, agentId?: string): void {
    const kind = agentId === undefined ? (this.questions.approvalKind(id) ?? "exec") : "exec";
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
    return this.questions.routeAnswer(agentId, callId, answer);
  }

  /** Answer an `elicitation_request` event (id = its id). */
  answerElicitation(id: string, result: ElicitationResult): void {
    this.submit({ type: "elicitation_answer", id, result });
  }

  /** Emit an event of this thread from outside a turn's tool call (its sub-agents' lifecycle). */
  publish(event: Event): void {
    this.emit(event);
  }

  /** Route answers to questions this thread forwarded for its sub-agents (see AnswerRoute). */
  routeAnswers(route: AnswerRoute): void {
    this.questions.addRoute(route);
  }

  private readonly waiters = new TurnWaiters();

  private emit(event: Event): void {
    if (event.type === "token_count" && event.last)
      this.compaction.lastResponseTokens = event.last.input_tokens + event.last.output_tokens;
    if (event.type === "hook_completed") this.reportHookRun(event.run, event.turn_id);
    this.listeners.emit(event);
  }

  /** A finished hook run, to the turn's telemetry (the thread's for SessionStart and the like). */
  private reportHookRun(run: HookRunSummary, turnId: string | null): void {
    const sink = telemetry();
    if (!sink.enabled) return;
    const info = {
      event: run.event_name,
      handler: run.source_path,
      durationMs: run.duration_ms ?? 0,
      outcome: run.status,
    };
    if (this.turnTelemetry && turnId === this.runningTurnId) this.turnTelemetry.hookRun(info);
    else sink.hookRun(info);
  }

  /** A turn asked for once the thread is shut down fails at once: its caller gets the answer. */
  private refuseClosed(turnId: string): void {
    const message = "thread is shut down";
    this.emit({ type: "turn_failed", turn_id: turnId, message });
    this.waiters.finish(turnId, {
      turnId,
      status: "failed",
      finalResponse: null,
      items: [],
      usage: emptyUsage(),
      error: message,
      pendingCalls: [],
    });
  }

  private async runUserTurn(op: Extract<Op, { turnId: string }>): Promise<void> {
    // Queued before the shutdown, behind the turn it interrupted: it must not start now.
    if (this.closed) return this.refuseClosed(op.turnId);
    const overrides = op.type === "user_turn" ? this.takeOverrides(op.overrides) : op.overrides;
    const turnItems: ResponseItem[] = [];
    const record = (item: ResponseItem) => {
      this.log.append(item);
      turnItems.push(item);
      this.emit({ type: "raw_response_item", item });
    };
    const abort = new AbortController();
    this.running = abort;
    this.runningTurnId = op.turnId;
    const queued = this.queuedTurns.indexOf(op.turnId);
    if (queued >= 0) this.queuedTurns.splice(queued, 1);
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
      this.waiters.finish(op.turnId, { ...result, status: "failed", error: message });
      return;
    }
    // Linked before the turn's first step: a caller gone while the turn was queued ends it now.
    const callerGone = () => abort.abort();
    const callerSignal = overrides?.signal;
    if (callerSignal?.aborted) abort.abort();
    else callerSignal?.addEventListener("abort", callerGone, { once: true });
    const review = op.type === "user_turn" ? op.review : undefined;
    const contextWindow = this.services.contextWindow;
    if (op.type === "continue_turn") this.emit({ type: "turn_continued", turn_id: op.turnId });
    else this.emit({ type: "turn_started", turn_id: op.turnId, model_context_window: contextWindow });
    if (review) this.emit({ type: "entered_review_mode", turn_id: op.turnId, review: review.hint });
    this.turnTelemetry = this.startTurnTelemetry(op, overrides);
    this.turnEditorFiles = overrides?.editorFiles;
    try {
      await this.mcp.wait((event) => this.emit(event), abort.signal);
      const router = this.turnRouter(overrides?.clientTools);
      // Outputs go right after their calls: nothing may come between a call and its output.
      if (parked) {
        this.parked = null;
        const { items, warning } = closingOutputs(parked, op.type === "continue_turn" ? op.outputs : null);
        for (const item of items) record(item);
        if (warning) this.emit({ type: "warning", message: warning });
      }
      if (op.type === "user_turn") {
        await this.prepareContext(overrides, record);
        if (!(await this.intake.take(op.turnId, op.input, record, abort.signal))) {
          // A hook blocked the prompt: the turn ends here.
          this.emit({
            type: "turn_complete",
            turn_id: op.turnId,
            last_agent_message: null,
            usage: emptyUsage(),
          });
          return;
        }
      }
      if (op.type === "user_shell")
        // Loaded when used: it brings the shell tools' code, which a plain turn does not need.
        return await (await import("./user-shell.js")).userShell(
          op,
          record,
          this.turnContext(op.turnId, abort.signal),
        );
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
        outputSchema: overrides?.outputSchema,
        settings: this.requestSettings(),
        autoCompact: this.compaction.auto(),
        parkClientCalls: this.settings.parkClientCalls,
        hooks: this.hooks?.turnHooks(op.turnId, abort.signal),
        steered: () => this.steering.drain(record, (event) => this.emit(event)),
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
      // Loaded for review turns only: its output schema is zod, which a plain exec never loads.
      if (review)
        this.emit((await import("./review.js")).exitedReviewMode(op.turnId, outcome.lastAgentMessage));
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
      this.runningTurnId = null;
      this.steering.discard((event) => this.emit(event));
      this.turnTelemetry?.end({
        status: result.status,
        usage: result.usage,
        error: result.error ?? undefined,
        lastAgentMessage: result.finalResponse,
      });
      this.turnTelemetry = undefined;
      this.turnEditorFiles = undefined;
      this.waiters.finish(op.turnId, result);
    }
  }

  /** The turn's `invoke_agent` span and its records, when telemetry exports (else nothing). */
  private startTurnTelemetry(
    op: Extract<Op, { turnId: string }>,
    overrides: TurnOverrides | undefined,
  ): TurnTelemetry | undefined {
    const sink = telemetry();
    if (!sink.enabled) return undefined;
    const input = op.type === "user_turn" ? op.input : null;
    return sink.startTurn({
      threadId: this.id,
      turnId: op.turnId,
      model: overrides?.model ?? this.settings.model?.model ?? this.services.model ?? "",
      provider: this.services.provider ?? "",
      originator: this.services.originator ?? "",
      agentName: this.services.agentName ?? "tscodex",
      prompt: input?.text ?? (op.type === "user_shell" ? op.command : ""),
      imageCount: input?.images?.length ?? 0,
      parent: overrides?.trace,
    });
  }

  /** A user turn's overrides over the pending ones (overrideSettings), which it takes. */
  private takeOverrides(given: TurnOverrides | undefined): TurnOverrides | undefined {
    const pending = this.pendingOverrides;
    this.pendingOverrides = {};
    return Object.keys(pending).length === 0 ? given : mergeOverrides(pending, given);
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

  /** The `compact` op; with `turnId`, as a turn of its own (compaction-run.ts). */
  private async runCompaction(turnId?: string): Promise<void> {
    const abort = new AbortController();
    this.running = abort;
    await this.compaction.manual(abort.signal, turnId);
    this.running = null;
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
    return buildTurnContext(
      {
        threadId: this.id,
        settings: this.settings,
        services: this.services,
        resources: this.resources,
        questions: this.questions,
        hooks: this.hooks,
        emit: (event) => this.emit(event),
        wantsOutputDeltas: () => this.listeners.wantOutputDeltas,
        telemetry: this.turnTelemetry,
        editorFiles: this.turnEditorFiles,
      },
      turnId,
      signal,
    );
  }
}
