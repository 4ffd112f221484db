/**
 * A thread as the app-server serves it: the live core Thread (re-bound when it is loaded
 * again), the clients subscribed to it, and the turns clients started on it.
 * Responsibilities: map the thread's events to notifications once and send them to every
 * subscriber; send each question of a turn (approval, client tool call) to the client that
 * started that turn; end a departed client's turns; cancel a turn's open questions when it ends.
 * A turn started with a key (turn/start `clientUserMessageId`, turn-keys.ts) outlives its
 * client's connection for the reconnect grace: its questions wait, and a resend of its
 * turn/start on a new connection makes that connection its owner and asks them there.
 */
import type { Event } from "../../protocol/events.js";
import {
  type EffectiveSettings,
  SteerError,
  type Thread,
  type TurnOverrides,
  type UserInput,
} from "../../session/thread.js";
import { type AnswerTarget, questionRouter } from "../common/turn-driver.js";
import type { ClientLink, PendingRequest } from "./client-link.js";
import { EventMapper } from "./event-mapper.js";
import type { ThreadStatus, Turn, UserInputWire } from "./protocol/common.js";
import { encodeNotification } from "./protocol/jsonrpc.js";
import { clientResponders, type QuestionHost } from "./server-requests.js";
import { threadSettingsOf } from "./thread-view.js";
import type { TurnKeys } from "./turn-keys.js";

/** What a channel needs from the runtime: the question bounds, and to be forgotten when its thread ends. */
export interface ChannelHost extends QuestionHost {
  /** The server's environment (the threads' $TMPDIR). */
  readonly env: NodeJS.ProcessEnv;
  released(channel: ThreadChannel): void;
  /** turn/start's keys: told how each keyed turn ended. */
  readonly turnKeys: TurnKeys;
  /** How long a keyed turn whose client left waits for it to come back before it is interrupted. */
  reconnectGraceMs(): number;
}

/** What an open server request waits on (thread/status/changed `activeFlags`). */
export type WaitingOn = "waitingOnApproval" | "waitingOnUserInput";

interface TurnEntry {
  owner: ClientLink;
  /** The turn's input, then each steer's, as the client sent them: taken by their userMessage items. */
  inputs: UserInputWire[][];
  /** Open questions by call id. */
  questions: Map<string, PendingRequest<unknown>>;
  /** Started by a v1 client (sendUserTurn): its approvals are v1 requests. */
  legacy: boolean;
  /** A user's shell command (thread/shellCommand): no model reads steered input. */
  shell?: boolean;
  /** Keyed turns: the turn/start key, the questions asked (by call id), those waiting for a client. */
  keyed?: {
    key: string;
    asked: Map<string, Event>;
    held: Map<string, Event>;
    grace?: NodeJS.Timeout | undefined;
    /** The grace ran out with no client back: it must not run on. */
    abandoned?: boolean;
  };
}

export class ThreadChannel {
  private current: Thread | null = null;
  private unsubscribe: (() => void) | null = null;
  private readonly subscribers = new Set<ClientLink>();
  private readonly turns = new Map<string, TurnEntry>();
  /** v1 conversation listeners: they get the core's events as they are. */
  private readonly listeners = new Set<(event: Event) => void>();
  private readonly mapper: EventMapper;
  private runningTurn: string | null = null;
  /** Open questions to a person, by server request id. */
  private readonly waiting = new Map<number, WaitingOn>();
  /** Routes each question of a turn to the client that started it (the one turn driver). */
  private readonly route: (event: Event) => void;

  constructor(
    readonly id: string,
    private readonly host: ChannelHost,
  ) {
    this.mapper = new EventMapper(id, (turnId) => this.turns.get(turnId)?.inputs.shift());
    // Answers go to whichever Thread object serves this id now (it is re-bound when reloaded).
    const live: AnswerTarget = {
      approve: (callId, decision, agentId) => this.current?.approve(callId, decision, agentId),
      answerUserInput: (callId, reply, agentId) => this.current?.answerUserInput(callId, reply, agentId),
      respondToTool: (callId, result) => this.current?.respondToTool(callId, result) ?? false,
      answerElicitation: (id, result) => this.current?.answerElicitation(id, result),
    };
    this.route = questionRouter(live, clientResponders(host, this));
  }

  /** The live core thread, or null once it was shut down (idle expiry, archive). */
  get thread(): Thread | null {
    return this.current;
  }

  /** What the thread runs with from its next turn: the core's settings, read, never kept. */
  get settings(): EffectiveSettings {
    return this.requireThread().effectiveSettings;
  }

  /** The turn running now, if any. */
  get running(): string | null {
    return this.runningTurn;
  }

  /** Serve `thread` (a newly loaded Thread object for this id). */
  bind(thread: Thread): void {
    if (this.current === thread) return;
    this.unsubscribe?.();
    this.current = thread;
    this.unsubscribe = thread.subscribe((event) => this.onEvent(event));
  }

  /** `client` receives this thread's notifications from now on. */
  attach(client: ClientLink): void {
    this.subscribers.add(client);
  }

  /**
   * `client` went away: no more notifications, and the turns it started are interrupted (a
   * keyed turn after the reconnect grace, unless a resend took it over).
   */
  detach(client: ClientLink): void {
    this.subscribers.delete(client);
    for (const [turnId, entry] of this.turns)
      if (entry.owner === client && entry.keyed) this.orphaned(turnId, entry);
    const running = this.runningTurn;
    const entry = running ? this.turns.get(running) : undefined;
    if (entry?.owner === client && !entry.keyed) this.current?.interrupt();
  }

  /** Whether turn `turnId` was started here and has not ended. */
  hasTurn(turnId: string): boolean {
    return this.turns.has(turnId);
  }

  /** Turn `turnId` (just started) is keyed by turn/start's `key`. */
  keyTurn(turnId: string, key: string): void {
    const entry = this.turns.get(turnId);
    if (entry) entry.keyed = { key, asked: new Map(), held: new Map() };
  }

  /**
   * A resend of keyed turn `turnId`'s turn/start by `client`: when the turn's client has left,
   * `client` owns it from now on (its questions come to it, those left unanswered asked again).
   */
  takeOver(turnId: string, client: ClientLink): void {
    const entry = this.turns.get(turnId);
    const keyed = entry?.keyed;
    if (!entry || !keyed || entry.owner.open) return;
    entry.owner = client;
    clearTimeout(keyed.grace);
    keyed.grace = undefined;
    const held = [...keyed.held.values()];
    keyed.held.clear();
    for (const event of held) this.ask(event);
  }

  /** Keyed turn `turnId` lost its client: interrupt it unless one takes it over in time. */
  private orphaned(turnId: string, entry: TurnEntry): void {
    const keyed = entry.keyed;
    if (!keyed || keyed.grace) return;
    keyed.grace = setTimeout(() => {
      keyed.grace = undefined;
      if (entry.owner.open) return;
      keyed.abandoned = true;
      if (this.runningTurn === turnId) this.current?.interrupt();
    }, this.host.reconnectGraceMs());
    keyed.grace.unref();
  }

  /** `client` stops receiving notifications; the turns it started go on. */
  unfollowedBy(client: ClientLink): void {
    this.subscribers.delete(client);
  }

  get subscriberCount(): number {
    return this.subscribers.size;
  }

  hasSubscriber(client: ClientLink): boolean {
    return this.subscribers.has(client);
  }

  /**
   * Register a turn `owner` starts; `begin()` submits it (call it after the turn/start reply,
   * so turn/started follows the reply). Its lasting overrides become the thread's at once (what
   * the thread reports from now on); the output schema holds for this turn only. `review`: a
   * review turn (review/start). Returns the turn id.
   */
  startTurn(
    owner: ClientLink,
    input: UserInputWire[],
    userInput: UserInput,
    overrides: TurnOverrides,
    legacy = false,
    review?: { hint: string },
  ): { turnId: string; begin(): void } {
    const thread = this.requireThread();
    const turnId = thread.newTurnId();
    this.turns.set(turnId, { owner, inputs: [input], questions: new Map(), legacy });
    const { outputSchema, trace, ...lasting } = overrides;
    this.override(lasting);
    // This turn's alone: its output schema, and the caller's trace its spans join.
    const turnOnly = { ...(outputSchema ? { outputSchema } : {}), ...(trace ? { trace } : {}) };
    const own = outputSchema || trace ? { overrides: turnOnly } : {};
    const mode = review ? { review } : {};
    return {
      turnId,
      begin: () => thread.submit({ type: "user_turn", turnId, input: userInput, ...own, ...mode }),
    };
  }

  /** Register a user shell command as `owner`'s turn (see startTurn); `begin()` queues it. */
  startShellCommand(owner: ClientLink, command: string, timeoutMs?: number): { begin(): void } {
    const thread = this.requireThread();
    const turnId = thread.newTurnId();
    this.turns.set(turnId, { owner, inputs: [], questions: new Map(), legacy: false, shell: true });
    return { begin: () => thread.submit({ type: "user_shell", turnId, command, timeoutMs }) };
  }

  /**
   * Add `input` to running turn `expectedTurnId` (turn/steer); its userMessage item echoes
   * `wire`. Throws SteerError when that turn is not the one running.
   */
  steer(expectedTurnId: string, wire: UserInputWire[], input: UserInput): string {
    const active = this.requireThread().activeTurnId;
    if (active !== null && this.turns.get(active)?.shell)
      throw new SteerError(`turn ${active} runs a shell command and cannot be steered`);
    const turnId = this.requireThread().steer(input, expectedTurnId);
    this.turns.get(turnId)?.inputs.push(wire);
    return turnId;
  }

  /**
   * Change what the thread runs with from its next turn (the core holds it); its followers hear
   * `thread/settings/updated` when that changed anything.
   */
  override(overrides: TurnOverrides): void {
    const thread = this.requireThread();
    const before = JSON.stringify(threadSettingsOf(thread.effectiveSettings));
    thread.overrideSettings(overrides);
    const threadSettings = threadSettingsOf(thread.effectiveSettings);
    if (JSON.stringify(threadSettings) === before) return;
    this.broadcast([{ method: "thread/settings/updated", params: { threadId: this.id, threadSettings } }]);
  }

  /** Whether turn `turnId` was started by a v1 client. */
  legacyTurn(turnId: string): boolean {
    return this.turns.get(turnId)?.legacy ?? false;
  }

  /** Receive every core event of this thread from now on (v1 listeners); returns how to stop. */
  listen(listener: (event: Event) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Interrupt turn `turnId` if it is the running one. */
  interrupt(turnId: string): boolean {
    if (this.runningTurn !== turnId || !this.current) return false;
    this.current.interrupt();
    return true;
  }

  /** Send `notifications` (already mapped) to every subscriber. */
  broadcast(notifications: readonly { method: string; params: unknown }[]): void {
    for (const { method, params } of notifications) {
      const text = encodeNotification(method, params);
      for (const client of this.subscribers) if (client.open) client.send(text);
    }
  }

  /** The client declined call `callId`: show its item as declined (see EventMapper.declined). */
  showDeclined(callId: string, cancel: boolean): void {
    this.broadcast(this.mapper.declined(callId, cancel));
  }

  /**
   * Keep `question` (about call `callId`) open until the core ends that call or its turn ends.
   * A question to a person (`waitingOn`) shows in the thread's status while open, and its end
   * is announced (`serverRequest/resolved`).
   */
  track(turnId: string, callId: string, question: PendingRequest<unknown>, waitingOn?: WaitingOn): void {
    const entry = this.turns.get(turnId);
    if (!entry) {
      question.cancel();
      return;
    }
    entry.questions.set(callId, question);
    const keyed = entry.keyed;
    if (keyed)
      void question.outcome.then((outcome) => {
        const asked = keyed.asked.get(callId);
        keyed.asked.delete(callId);
        // Its client left before answering: asked again of the client that takes the turn over.
        if (outcome.kind === "closed" && asked && this.turns.get(turnId) === entry)
          keyed.held.set(callId, asked);
      });
    if (!waitingOn) return;
    this.waiting.set(question.id, waitingOn);
    this.announceStatus();
    void question.outcome.then(() => {
      this.waiting.delete(question.id);
      this.broadcast([
        { method: "serverRequest/resolved", params: { threadId: this.id, requestId: question.id } },
      ]);
      this.announceStatus();
    });
  }

  /** The thread's status now (0.169's ThreadStatus) as `thread/status/changed`. */
  private announceStatus(): void {
    this.broadcast([
      { method: "thread/status/changed", params: { threadId: this.id, status: this.status() } },
    ]);
  }

  private status(): ThreadStatus {
    if (!this.runningTurn) return { type: "idle" };
    const flags = new Set(this.waiting.values());
    return { type: "active", activeFlags: [...flags] };
  }

  /** The core closed call `callId` itself (its bound): stop waiting for the client. */
  private settled(turnId: string, callId: string): void {
    const entry = this.turns.get(turnId);
    entry?.questions.get(callId)?.cancel();
    entry?.questions.delete(callId);
    entry?.keyed?.held.delete(callId);
  }

  /** Route a question to its turn's client; a keyed turn's wait while it has none. */
  private ask(event: Event): void {
    const question = questionOf(event);
    const entry = question ? this.turns.get(question.turnId) : undefined;
    if (question && entry?.keyed) {
      if (!entry.owner.open) {
        entry.keyed.held.set(question.id, event);
        return;
      }
      entry.keyed.asked.set(question.id, event);
    }
    this.route(event);
  }

  private requireThread(): Thread {
    if (!this.current) throw new Error(`thread ${this.id} is not loaded`);
    return this.current;
  }

  private onEvent(raw: Event): void {
    const event = this.forwarded(raw);
    if (event.type === "turn_started") {
      this.turnStarted(event.turn_id);
      this.announceStatus();
    }
    const notifications = this.mapper.map(event);
    const ending = notifications.findIndex((note) => note.method === "turn/completed");
    if (ending >= 0) {
      this.keyedTurnEnded(notifications[ending]?.params);
      // As Codex: the thread is idle again just before its turn completes.
      if ("turn_id" in event && this.runningTurn === event.turn_id) this.runningTurn = null;
      this.broadcast(notifications.slice(0, ending));
      this.announceStatus();
      this.broadcast(notifications.slice(ending));
    } else this.broadcast(notifications);
    for (const listener of this.listeners) listener(event);
    this.ask(event);
    switch (event.type) {
      case "client_tool_call_end":
        this.settled(event.turn_id, event.call_id);
        return;
      case "turn_complete":
      case "turn_aborted":
      case "turn_failed":
        this.turnEnded(event.turn_id);
        return;
      case "shutdown_complete":
        this.unsubscribe?.();
        this.unsubscribe = null;
        this.current = null;
        this.host.released(this);
        return;
      default:
        return;
    }
  }

  /** The connected client that started turn `turnId`, if it is still here. */
  ownerOf(turnId: string): ClientLink | null {
    const owner = this.turns.get(turnId)?.owner;
    return owner?.open ? owner : null;
  }

  /**
   * A sub-agent's question the core forwarded (it carries `agent_id` and the child's turn id)
   * belongs, for the client, to this thread's running turn: its client is asked.
   */
  private forwarded(event: Event): Event {
    const question =
      event.type === "exec_approval_request" ||
      event.type === "apply_patch_approval_request" ||
      event.type === "request_user_input";
    if (!question || event.agent_id === undefined || this.turns.has(event.turn_id)) return event;
    return { ...event, turn_id: this.runningTurn ?? event.turn_id };
  }

  private turnStarted(turnId: string): void {
    this.runningTurn = turnId;
    const entry = this.turns.get(turnId);
    // Queued by a client that left before it began: it must not run unattended (a keyed turn
    // waits for its client to come back first).
    if (!entry || entry.owner.open) return;
    if (entry.keyed && !entry.keyed.abandoned) this.orphaned(turnId, entry);
    else this.current?.interrupt();
  }

  /** The turn a turn/completed notification ends: if keyed, the keys hear how it ended. */
  private keyedTurnEnded(params: unknown): void {
    const turn = (params as { turn?: Turn } | undefined)?.turn;
    const keyed = turn ? this.turns.get(turn.id)?.keyed : undefined;
    if (!turn || !keyed) return;
    clearTimeout(keyed.grace);
    this.host.turnKeys.ended(this.id, keyed.key, { status: turn.status, error: turn.error });
  }

  private turnEnded(turnId: string): void {
    if (this.runningTurn === turnId) this.runningTurn = null;
    const entry = this.turns.get(turnId);
    this.turns.delete(turnId);
    for (const question of entry?.questions.values() ?? []) question.cancel();
  }
}

/** The id a question is tracked by (see track) and its turn, or null for an event that asks nothing. */
function questionOf(event: Event): { id: string; turnId: string } | null {
  switch (event.type) {
    case "exec_approval_request":
    case "apply_patch_approval_request":
    case "request_user_input":
    case "client_tool_call_request":
      return { id: event.call_id, turnId: event.turn_id };
    case "elicitation_request":
      return { id: event.id, turnId: event.turn_id };
    default:
      return null;
  }
}
