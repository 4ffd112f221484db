/**
 * The conversation as screen blocks, built only from app-server notifications (and the thread
 * a `thread/read` or `thread/resume` returns). A reducer: `apply(method, params)` changes the
 * blocks and bumps the version of each one it touched, so the renderer re-lays out only those.
 */
import type { ThreadItem } from "../app-server/protocol/common.js";
import { isRecord, readThreadItem, type UiNotification } from "./wire.js";

export type CommandStatus = "inProgress" | "completed" | "failed" | "declined" | "interrupted";

export interface FileChangeView {
  path: string;
  kind: string;
  diff: string;
}

export type BlockBody =
  | { kind: "user"; text: string }
  | { kind: "agent"; text: string }
  | { kind: "reasoning"; text: string }
  | { kind: "command"; command: string; status: CommandStatus; exitCode: number | null; output: string }
  | { kind: "fileChange"; changes: FileChangeView[]; status: string }
  | { kind: "plan"; explanation: string | null; steps: { step: string; status: string }[] }
  /** The plan a plan-mode turn proposes (Markdown), a stored item unlike update_plan's steps. */
  | { kind: "proposedPlan"; text: string }
  | { kind: "tool"; title: string; status: string }
  | { kind: "notice"; text: string; tone: "info" | "warn" | "error" };

export type Block = BlockBody & { id: string; version: number };

/** Stored items may predate a field: read defensively. */
const str = (value: unknown): string => (typeof value === "string" ? value : "");

/** Command output kept per block: the UI shows a folded tail, so the head can go. */
const OUTPUT_KEEP_CHARS = 64 * 1024;

export class Transcript {
  readonly blocks: Block[] = [];
  private readonly byId = new Map<string, Block>();
  private noticeCount = 0;
  runningTurnId: string | null = null;
  turnStartedAt = 0;
  /** File paths under it are shown relative to it. */
  cwd = "";
  /** The last error notification's message, so the failed turn that follows does not repeat it. */
  private shownError: string | null = null;
  /** The turn each command ran in, so an interrupted turn can mark its own commands. */
  private readonly commandTurns = new Map<string, string>();

  /** Adds a line of the UI's own (errors, command answers). */
  notice(text: string, tone: "info" | "warn" | "error" = "info"): void {
    this.add({ kind: "notice", text, tone }, `notice-${++this.noticeCount}`);
  }

  /** Drops everything (a new or resumed thread). */
  clear(): void {
    this.blocks.length = 0;
    this.byId.clear();
    this.runningTurnId = null;
  }

  /** Shows a stored thread's turns (thread/resume or thread/read). */
  loadTurns(turns: unknown[]): void {
    for (const turn of turns) {
      if (!isRecord(turn)) continue;
      const items = turn.items;
      if (Array.isArray(items)) for (const item of items) this.upsertItem(readThreadItem(item), true);
      // tscodex's stored turns carry their last update_plan (Codex's keep none).
      const plan = storedPlan(turn.plan);
      if (plan && typeof turn.id === "string") this.put(`plan-${turn.id}`, plan);
    }
  }

  /** Applies one server notification; false when it changes nothing on screen. */
  apply(notification: UiNotification): boolean {
    switch (notification.method) {
      case "turn/started": {
        this.runningTurnId = notification.params.turn.id || null;
        this.turnStartedAt = Date.now();
        return true;
      }
      case "turn/completed": {
        const turn = notification.params.turn;
        this.runningTurnId = null;
        if (turn.status === "interrupted") {
          this.markInterrupted(turn.id);
          this.notice("■ interrupted", "warn");
        } else if (turn.status === "failed") {
          // The error notification before it usually said the same: shown once.
          const message = turn.error?.message ?? "turn failed";
          if (message !== this.shownError) this.notice(`■ ${message}`, "error");
        }
        this.shownError = null;
        return true;
      }
      case "item/started":
      case "item/completed": {
        const { item, turnId } = notification.params;
        const read = readThreadItem(item);
        if (read?.type === "commandExecution") this.commandTurns.set(read.id, turnId ?? "");
        return this.upsertItem(read, notification.method === "item/completed");
      }
      case "item/agentMessage/delta":
        return this.appendText(notification.params.itemId, "agent", notification.params.delta);
      case "item/reasoning/summaryTextDelta":
      case "item/reasoning/textDelta":
        return this.appendText(notification.params.itemId, "reasoning", notification.params.delta);
      case "item/commandExecution/outputDelta": {
        const { itemId, delta } = notification.params;
        const block = this.byId.get(itemId);
        if (block?.kind !== "command") return false;
        block.output = (block.output + delta).slice(-OUTPUT_KEEP_CHARS);
        block.version++;
        return true;
      }
      case "turn/plan/updated": {
        const { plan, explanation, turnId } = notification.params;
        const steps = (plan ?? []).map(({ step, status }) => ({ step, status }));
        this.put(`plan-${turnId}`, { kind: "plan", explanation: explanation || null, steps });
        return true;
      }
      case "thread/compacted":
        this.notice("context compacted");
        return true;
      case "item/autoApprovalReview/completed": {
        // The reviewer's verdict and why (approvals_reviewer = "auto_review").
        const { status, riskLevel, rationale } = notification.params.review;
        const risk = riskLevel ? ` (risk ${riskLevel})` : "";
        this.notice(
          `auto-review: ${status}${risk}${rationale ? `: ${rationale}` : ""}`,
          status === "approved" ? "info" : "warn",
        );
        return true;
      }
      case "error": {
        const message = notification.params.error?.message ?? "unknown error";
        if (notification.params.willRetry === true) this.notice(`retrying: ${message}`, "warn");
        else {
          this.notice(`■ ${message}`, "error");
          this.shownError = message;
        }
        return true;
      }
      default:
        return false;
    }
  }

  /** Commands of an interrupted turn that were running or were killed by it (status 130/137/143). */
  private markInterrupted(turnId: string): void {
    for (const block of this.blocks) {
      if (block.kind !== "command") continue;
      const ofTurn = this.commandTurns.get(block.id) === turnId;
      const killed =
        block.status === "failed" && (block.exitCode === null || [130, 137, 143].includes(block.exitCode));
      if (block.status === "inProgress" || (ofTurn && killed)) {
        block.status = "interrupted";
        block.version++;
      }
    }
  }

  private appendText(id: string, kind: "agent" | "reasoning", delta: string): boolean {
    const block = this.byId.get(id) ?? this.add({ kind, text: "" }, id);
    if (block.kind !== "agent" && block.kind !== "reasoning") return false;
    block.text += delta;
    block.version++;
    return true;
  }

  private upsertItem(item: ThreadItem | null, completed: boolean): boolean {
    if (!item) return false;
    const body = bodyOf(item, completed, this.byId.get(item.id), this.cwd);
    if (!body) return false;
    this.put(item.id, body);
    return true;
  }

  private put(id: string, body: BlockBody): void {
    const existing = this.byId.get(id);
    if (!existing) {
      this.add(body, id);
      return;
    }
    const version = existing.version + 1;
    for (const key of Object.keys(existing)) delete (existing as Record<string, unknown>)[key];
    Object.assign(existing, body, { id, version });
  }

  private add(body: BlockBody, id: string): Block {
    const block = { ...body, id, version: 0 } as Block;
    this.blocks.push(block);
    this.byId.set(id, block);
    return block;
  }
}

/** The screen block of one v2 ThreadItem (null: nothing to show). */
function bodyOf(
  item: ThreadItem,
  completed: boolean,
  existing: Block | undefined,
  cwd: string,
): BlockBody | null {
  switch (item.type) {
    case "userMessage": {
      const parts = (item.content ?? []).map((part) => (part.type === "text" ? part.text : `[${part.type}]`));
      return { kind: "user", text: parts.join("\n") };
    }
    case "agentMessage":
      // A started message is empty; its deltas fill it. The completed one is authoritative.
      if (!completed && existing?.kind === "agent") return existing;
      return { kind: "agent", text: str(item.text) };
    case "reasoning":
      return { kind: "reasoning", text: (item.summary ?? []).join("\n\n") };
    case "commandExecution": {
      const live = existing?.kind === "command" ? existing.output : "";
      return {
        kind: "command",
        command: str(item.command),
        status: item.status,
        exitCode: typeof item.exitCode === "number" ? item.exitCode : null,
        output:
          typeof item.aggregatedOutput === "string" ? item.aggregatedOutput.slice(-OUTPUT_KEEP_CHARS) : live,
      };
    }
    case "fileChange":
      return {
        kind: "fileChange",
        status: str(item.status),
        changes: (item.changes ?? []).map((change) => ({
          path: cwd && change.path.startsWith(`${cwd}/`) ? change.path.slice(cwd.length + 1) : change.path,
          kind: change.kind?.type ?? "update",
          diff: change.diff,
        })),
      };
    case "mcpToolCall":
      return { kind: "tool", title: `${str(item.server)}.${str(item.tool)}`, status: str(item.status) };
    case "dynamicToolCall":
      return { kind: "tool", title: str(item.tool), status: str(item.status) };
    case "collabAgentToolCall":
      return { kind: "tool", title: `agent ${str(item.tool)}`, status: str(item.status) };
    case "webSearch":
      return {
        kind: "tool",
        title: `web search: ${str(item.query)}`,
        status: completed ? "completed" : "inProgress",
      };
    case "enteredReviewMode":
      return { kind: "notice", text: `reviewing ${str(item.review)}`, tone: "info" };
    case "exitedReviewMode":
      // The review's findings, written by the reviewer: shown as an agent message.
      return { kind: "agent", text: str(item.review) };
    case "contextCompaction":
      return { kind: "notice", text: "context compacted", tone: "info" };
    case "plan":
      return { kind: "proposedPlan", text: str(item.text) };
    case "hookPrompt": {
      const text = (item.fragments ?? []).map((fragment) => str(fragment.text)).join("\n");
      return { kind: "notice", text: `hook: ${text}`, tone: "info" };
    }
    default:
      return unknownItem(item);
  }
}

/** A ThreadItem kind added to the protocol without a case above fails to compile here. */
function unknownItem(item: never): null {
  void item;
  return null;
}

/** A stored turn's `plan` (tscodex's extension) as the block a live plan update draws. */
function storedPlan(value: unknown): BlockBody | null {
  if (!isRecord(value) || !Array.isArray(value.steps)) return null;
  const steps = value.steps.flatMap((entry: unknown) =>
    isRecord(entry) && typeof entry.step === "string" && typeof entry.status === "string"
      ? [{ step: entry.step, status: entry.status }]
      : [],
  );
  const explanation = typeof value.explanation === "string" ? value.explanation : null;
  return { kind: "plan", explanation, steps };
}
