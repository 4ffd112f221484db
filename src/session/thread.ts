/**
 * A Thread: one conversation with the agent.
 * Responsibilities: hold the history; take ops (user turns, interrupt, approvals, shutdown) and run
 * turns one at a time; emit every event to its listeners; never throw out of `submit`
 * (failures become `error` / `turn_failed` events).
 * Flow: submit(user_turn) → queue → [first turn: initial context] → user message →
 * runTurn → turn_complete | turn_aborted | turn_failed.
 */

import { TurnDiffTracker } from "../apply-patch/index.js";
import { buildInitialContext, environmentContext, permissionsMessage } from "../prompt/index.js";
import type { ClientToolResult, ClientToolSpec } from "../protocol/client-tools.js";
import type { Event, ReviewDecision } from "../protocol/events.js";
import {
  addUsage,
  developerMessage,
  emptyUsage,
  type ResponseItem,
  type TokenUsage,
  userMessage,
} from "../protocol/items.js";
import { ToolRouter } from "../tools/router.js";
import { buildTurnTools } from "../tools/tool-set.js";
import type { TurnContext } from "../tools/types.js";
import { errorMessage } from "../util/errors.js";
import { EventStream } from "../util/event-stream.js";
import { ResourceScope, resourceKey } from "../util/resource-scope.js";
import { PendingApprovals } from "./approvals.js";
import { PendingClientCalls } from "./client-calls.js";
import { compactedHistory, loadCompactPrompt, summarize } from "./compact.js";
import { History } from "./history.js";
import { type Op, type TurnResult, turnAbortedMessage } from "./ops.js";
import type { ThreadServices } from "./services.js";
import {
  applyTurnOverrides,
  permissionsOf,
  type ThreadSettings,
  type TurnOverrides,
  type UserInput,
} from "./settings.js";
import { type AutoCompact, FatalTurnError, runTurn, TurnAbortedError } from "./turn.js";

export type { Op, TurnResult, TurnStatus } from "./ops.js";
export type { ThreadSettings, TurnOverrides, UserInput } from "./settings.js";

type Listener = (event: Event) => void;

export class Thread {
  private readonly log = new History();
  private readonly listeners = new Set<Listener>();
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
  /** Input + output tokens of the last model response: the context size auto-compaction watches. */
  private lastResponseTokens = 0;

  constructor(
    readonly id: string,
    private readonly services: ThreadServices,
    settings: ThreadSettings,
  ) {
    this.settings = { ...settings };
    this.approvals = new PendingApprovals((event) => this.emit(event), services.approvalTimeoutMs);
    this.clientCalls = new PendingClientCalls((event) => this.emit(event), services.clientToolTimeoutMs);
    // MCP servers live as long as the thread: shutdown closes them with the other resources.
    const mcp = services.mcp;
    if (mcp) this.resources.use(MCP_SERVERS, () => mcp);
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

  get totalUsage(): TokenUsage {
    return this.usage;
  }

  /** Listen to every event of every turn; returns the unsubscribe function. */
  subscribe(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
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
        this.answerApproval(op.type === "exec_approval" ? "exec" : "patch", op.id, op.decision);
        return;
      case "client_tool_response":
        if (!this.clientCalls.respond(op.id, op.result))
          this.emit({ type: "warning", message: `no open client tool call with id ${op.id}` });
        return;
      case "shutdown":
        this.closed = true;
        this.running?.abort();
        // Tools' per-thread state (live exec sessions) ends with the thread.
        this.queue = this.queue
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
    }
  }

  /** Start a turn and stream its events; the stream's result is the turn's outcome. */
  runStreamed(input: UserInput, overrides?: TurnOverrides): EventStream<Event, TurnResult> {
    const turnId = this.newTurnId();
    const stream = new EventStream<Event, TurnResult>();
    let inTurn = false;
    const unsubscribe = this.subscribe((event) => {
      if (event.type === "turn_started") inTurn = event.turn_id === turnId;
      if (inTurn) stream.push(event);
    });
    this.pendingResults.set(turnId, (result) => {
      unsubscribe();
      stream.end(result);
    });
    this.submit({ type: "user_turn", turnId, input, ...(overrides ? { overrides } : {}) });
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
    this.lastResponseTokens = state.lastUsage
      ? state.lastUsage.input_tokens + state.lastUsage.output_tokens
      : 0;
  }

  interrupt(): void {
    this.submit({ type: "interrupt" });
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

  /** Answer the open approval question of call `id`, whichever kind it is. */
  approve(id: string, decision: ReviewDecision): void {
    const kind = this.approvals.kindOf(id) ?? "exec";
    this.submit({ type: kind === "exec" ? "exec_approval" : "patch_approval", id, decision });
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
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch {
        // A broken listener must not break the turn or the other listeners.
      }
    }
  }

  private async runUserTurn(op: Extract<Op, { type: "user_turn" }>): Promise<void> {
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
    };
    this.emit({
      type: "turn_started",
      turn_id: op.turnId,
      model_context_window: this.services.contextWindow,
    });
    try {
      await this.awaitMcpStartup(abort.signal);
      const router = this.turnRouter(op.overrides?.clientTools);
      await this.prepareContext(op.overrides, record);
      record(userMessage(op.input.text, op.input.images ?? []));
      this.emit({ type: "user_message", message: op.input.text, images: op.input.images ?? [] });
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
      });
      result.finalResponse = outcome.lastAgentMessage;
      result.usage = outcome.usage;
      this.usage = addUsage(this.usage, outcome.usage);
      this.emit({
        type: "turn_complete",
        turn_id: op.turnId,
        last_agent_message: outcome.lastAgentMessage,
        usage: outcome.usage,
      });
    } catch (error) {
      if (abort.signal.aborted || error instanceof TurnAbortedError) {
        result.status = "interrupted";
        record(userMessage(turnAbortedMessage(op.turnId)));
        this.emit({ type: "turn_aborted", turn_id: op.turnId, reason: "interrupted" });
      } else {
        const message = errorMessage(error);
        result.status = "failed";
        result.error = message;
        this.emit({ type: "error", message });
        this.emit({ type: "turn_failed", turn_id: op.turnId, message });
        if (!(error instanceof FatalTurnError)) this.log.dropUnansweredCalls();
      }
    } finally {
      this.running = null;
      this.pendingResults.get(op.turnId)?.(result);
      this.pendingResults.delete(op.turnId);
    }
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
        await this.compactHistory(signal);
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
  private async compactHistory(signal?: AbortSignal): Promise<void> {
    const prompt = this.services.compaction?.prompt ?? (await loadCompactPrompt());
    const { client, baseInstructions } = this.services;
    const summary = await summarize(client, baseInstructions, this.log.items, prompt, signal);
    const replacement = compactedHistory(this.log.items, summary);
    this.log.replace(replacement);
    this.lastResponseTokens = 0;
    this.emit({ type: "context_compacted", summary, replacement_history: replacement });
  }

  /**
   * The first turn waits for the MCP servers (each bounded by its startup_timeout_sec; a failed
   * one is reported and skipped) so that their tools are offered from the first request.
   */
  private async awaitMcpStartup(signal: AbortSignal): Promise<void> {
    if (this.mcpStarted || !this.services.mcp) return;
    await this.services.mcp.whenReady((event) => this.emit(event), signal);
    if (!signal.aborted) this.mcpStarted = true;
  }

  /**
   * The first turn opens with the context items; later ones add the permissions message or the
   * environment context when a turn changed them.
   */
  private async prepareContext(overrides: TurnOverrides | undefined, record: (item: ResponseItem) => void) {
    if (!this.initialized) {
      if (overrides) this.settings = applyTurnOverrides(this.settings, overrides);
      const items = await buildInitialContext({
        cwd: this.settings.cwd,
        permissions: permissionsOf(this.settings),
        developerInstructions: this.services.developerInstructions,
        projectDocMaxBytes: this.services.projectDocMaxBytes,
        userInstructions: this.services.userInstructions,
        shellPath: this.services.shellPath,
      });
      for (const item of items) record(item);
      this.initialized = true;
      return;
    }
    if (!overrides) return;
    const before = permissionsMessage(permissionsOf(this.settings));
    const cwdBefore = this.settings.cwd;
    this.settings = applyTurnOverrides(this.settings, overrides);
    const after = permissionsMessage(permissionsOf(this.settings));
    if (after !== before) record(developerMessage(after));
    if (this.settings.cwd !== cwdBefore)
      record(userMessage(environmentContext(this.settings.cwd, this.services.shellPath)));
  }

  private turnContext(turnId: string, signal: AbortSignal): TurnContext {
    const permissions = permissionsOf(this.settings);
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
      callClientTool: (call) => this.clientCalls.call(call, turnId, signal),
      diffTracker: new TurnDiffTracker(),
      emit: (event) => this.emit(event),
    };
  }
}

/** What a resumed or forked thread continues from (see Thread.restore). */
export interface RestoredState {
  history: readonly ResponseItem[];
  usage: TokenUsage;
  /** Turns already run: the next turn id. */
  turns: number;
  lastUsage: TokenUsage | null;
  /** The client tools the thread last used (from its `client_tools_changed` lines). */
  clientTools?: ClientToolSpec[] | undefined;
}

const MCP_SERVERS = resourceKey<NonNullable<ThreadServices["mcp"]>>("mcp-servers");
