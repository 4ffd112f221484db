/**
 * One ACP session: a thread, the editor's connection, and what the session chose (mode, model,
 * effort). Everything the thread does reaches the editor as `session/update`s through the item
 * mapper (updates.ts), in order and before the prompt's answer; its questions become
 * `session/request_permission`s; a cancel interrupts the turn (the running command's process
 * tree is killed by the core) and withdraws the open questions. Once closed, nothing more is
 * sent for the session (codex-acp#418).
 */
import type { PromptResponse, SessionConfigOption, SessionUpdate } from "@agentclientprotocol/sdk";
import type { Config } from "../../config/load.js";
import { defaultReasoningEffort, reasoningEfforts } from "../../model/family.js";
import type { ApprovalRequestEvent, Event, ReviewDecision } from "../../protocol/events.js";
import type { ThreadEvent } from "../../protocol/turn-items.js";
import type { Thread, TurnOverrides, UserInput } from "../../session/thread.js";
import { errorMessage } from "../../util/errors.js";
import { questionRouter } from "../common/turn-driver.js";
import { callClientTool } from "./client-tools.js";
import { editorFilesOf } from "./editor-files.js";
import type { SessionHost } from "./host.js";
import { configOptions, modePreset, modeState, type SessionChoices } from "./modes.js";
import { decisionOf, PERMISSION_OPTIONS, questionKey } from "./permissions.js";
import { approvalToolCall, SessionUpdateMapper } from "./updates.js";

/** Ends of a turn, from the thread's events. */
type TurnEnd = { status: "completed" | "interrupted" } | { status: "failed"; message: string };

export class PromptFailedError extends Error {
  override name = "PromptFailedError";
}

export class AcpSession {
  private closed = false;
  private running: string | null = null;
  private readonly turnEnds = new Map<string, (end: TurnEnd) => void>();
  /** Questions rejected "always" in this session: answered again without asking. */
  private readonly rejected = new Set<string>();
  /** Open permission requests, withdrawn ($/cancel_request) on cancel and close. */
  private readonly asking = new Set<AbortController>();
  private readonly mapper: SessionUpdateMapper;
  private readonly unsubscribe: (() => void)[] = [];
  private titled: boolean;

  constructor(
    readonly thread: Thread,
    readonly host: SessionHost,
    private choices: SessionChoices,
    options: { titled: boolean },
  ) {
    this.titled = options.titled;
    this.mapper = new SessionUpdateMapper({ cwd: thread.cwd });
    this.unsubscribe.push(
      thread.subscribeItems((event) => this.onEvent(event)),
      thread.subscribe(
        questionRouter(thread, {
          approval: (event) => this.askPermission(event),
          clientTool: (event) => (this.closed ? undefined : callClientTool(this.host, this.id, event)),
        }),
        { outputDeltas: true },
      ),
    );
  }

  get id(): string {
    return this.thread.id;
  }

  get options(): SessionConfigOption[] {
    return configOptions(this.choices, this.host.config.model);
  }

  get modes() {
    return modeState(this.choices.mode);
  }

  get currentChoices(): SessionChoices {
    return this.choices;
  }

  /** Send one update for this session (never after close; a send to a gone client is dropped). */
  send(update: SessionUpdate): void {
    if (this.closed) return;
    this.host.client.notify("session/update", { sessionId: this.id, update }).catch(() => {});
  }

  async prompt(input: UserInput): Promise<PromptResponse> {
    if (this.closed) throw new PromptFailedError(`session ${this.id} is closed`);
    if (this.running) throw new PromptFailedError(`session ${this.id} is already answering a prompt`);
    const turnId = this.thread.newTurnId();
    this.running = turnId;
    const ended = new Promise<TurnEnd>((resolve) => this.turnEnds.set(turnId, resolve));
    try {
      this.thread.submit({ type: "user_turn", turnId, input, overrides: this.turnOverrides() });
      const end = await ended;
      if (!this.titled && input.text.trim()) this.title(input.text);
      if (end.status === "failed") throw new PromptFailedError(end.message);
      return { stopReason: end.status === "interrupted" ? "cancelled" : "end_turn" };
    } finally {
      this.turnEnds.delete(turnId);
      this.running = null;
    }
  }

  /** session/cancel: withdraw the open questions, stop the turn (its command's processes too). */
  cancel(): void {
    for (const controller of this.asking) controller.abort();
    if (this.running) this.thread.interrupt();
  }

  setMode(modeId: string): void {
    if (!modePreset(modeId)) throw new PromptFailedError(`unknown mode '${modeId}'`);
    this.choices = { ...this.choices, mode: modeId };
    this.send({ sessionUpdate: "current_mode_update", currentModeId: modeId });
  }

  /** session/set_config_option: mode, model (its effort reset to the model's default) or effort. */
  setOption(configId: string, value: string): SessionConfigOption[] {
    if (configId === "mode") this.setMode(value);
    else if (configId === "model") {
      const effort = reasoningEfforts(value).includes(this.choices.effort ?? "")
        ? this.choices.effort
        : defaultReasoningEffort(value);
      this.choices = { ...this.choices, model: value, effort };
    } else if (configId === "reasoning_effort") {
      if (!reasoningEfforts(this.choices.model).includes(value))
        throw new PromptFailedError(`model ${this.choices.model} takes no reasoning effort '${value}'`);
      this.choices = { ...this.choices, effort: value };
    } else throw new PromptFailedError(`unknown config option '${configId}'`);
    return this.options;
  }

  /** No update after this; a running turn is stopped. */
  close(): void {
    this.cancel();
    this.closed = true;
    for (const stop of this.unsubscribe.splice(0)) stop();
  }

  /** What the next turn runs with: the mode's policies, the chosen model and effort, the editor's files. */
  private turnOverrides(): TurnOverrides {
    const mode = modePreset(this.choices.mode);
    const editorFiles = editorFilesOf(this.host, this.id);
    return {
      ...(mode ? { approvalPolicy: mode.approvalPolicy, sandboxMode: mode.sandboxMode } : {}),
      model: this.choices.model,
      ...(this.choices.effort ? { effort: this.choices.effort } : {}),
      ...(editorFiles ? { editorFiles } : {}),
    };
  }

  private onEvent(event: ThreadEvent): void {
    for (const update of this.mapper.push(event)) this.send(update);
    const end = turnEnd(event);
    if (end) this.turnEnds.get(end.turnId)?.(end.end);
  }

  private async askPermission(event: ApprovalRequestEvent): Promise<ReviewDecision> {
    const key = questionKey(event);
    if (this.rejected.has(key)) {
      for (const update of this.mapper.declined(event.call_id)) this.send(update);
      return "denied";
    }
    if (this.closed) return "abort";
    const controller = new AbortController();
    this.asking.add(controller);
    try {
      const response = await this.host.client.request(
        "session/request_permission",
        {
          sessionId: this.id,
          toolCall: approvalToolCall(event, this.thread.cwd),
          options: PERMISSION_OPTIONS,
        },
        { cancellationSignal: controller.signal },
      );
      const decision = decisionOf(response, () => this.rejected.add(key));
      // A rejected call never starts: the editor sees it fail now, not at the turn's end.
      if (decision === "denied") for (const update of this.mapper.declined(event.call_id)) this.send(update);
      return decision;
    } catch (error) {
      // Withdrawn by a cancel, or the client failed to answer: the turn stops there.
      if (controller.signal.aborted) return "abort";
      process.stderr.write(`tscodex acp: session/request_permission failed: ${errorMessage(error)}\n`);
      return "denied";
    } finally {
      this.asking.delete(controller);
    }
  }

  /** The session's title: the first prompt's first line, as the editor's session list shows it. */
  private title(text: string): void {
    this.titled = true;
    const line = text.trim().split("\n")[0] ?? "";
    const title = line.length > 80 ? `${line.slice(0, 79)}…` : line;
    this.send({ sessionUpdate: "session_info_update", title });
  }
}

function turnEnd(event: ThreadEvent): { turnId: string; end: TurnEnd } | null {
  const legacy = event as Event;
  switch (legacy.type) {
    case "turn_complete":
      return { turnId: legacy.turn_id, end: { status: "completed" } };
    case "turn_aborted":
      return { turnId: legacy.turn_id, end: { status: "interrupted" } };
    case "turn_failed":
      return { turnId: legacy.turn_id, end: { status: "failed", message: legacy.message } };
    default:
      return null;
  }
}

/** The choices a new session starts with: the configured policies' mode, model and effort. */
export function initialChoices(config: Config, mode: string): SessionChoices {
  const effort = config.reasoningEffort ?? defaultReasoningEffort(config.model);
  return {
    mode,
    model: config.model,
    effort: reasoningEfforts(config.model).includes(effort ?? "") ? effort : null,
  };
}
