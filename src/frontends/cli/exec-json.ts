/**
 * `tscodex exec --json`: the thread's events as Codex's exec JSONL stream
 * (reference exec-json/): thread.started, turn.started, item.started/updated/completed,
 * turn.completed with usage, error and turn.failed.
 *
 * Every item is one of the Codex SDK's `ThreadItem` types, mapped from the core's items
 * (protocol/item-tracker.ts); ids are `item_<n>` in the order items first appear on the stream. `turn.completed` usage is the
 * thread's running total (a resumed thread counts its stored turns), as Codex reports it.
 *
 * Extension, only when asked for with `--enable collab`: a sub-agent is an item of its own,
 * `{"type":"sub_agent","agent_id","agent_type","message","status","final_message"}`: started
 * when spawned, completed each time its work ends (never as the parent's agent_message).
 *
 * Extension (not in Codex, whose exec never asks), only with `approvals.exec_json_items = true`:
 * with an asking approval policy, each question exec answered is an item
 * `{"type":"item.completed","item":{"id","type":"approval_request","kind":"exec"|"patch",
 * "call_id","command"|"changes","cwd"?,"reason","decision"}}`, emitted when it is answered.
 */

import type { Event, FileChange, ReviewDecision } from "../../protocol/events.js";
import { ItemTracker } from "../../protocol/item-tracker.js";
import type { TokenUsage } from "../../protocol/items.js";
import { PLAN_CLOSE, PLAN_OPEN } from "../../protocol/proposed-plan.js";
import type { ItemEvent, TurnItem } from "../../protocol/turn-items.js";
import type { TurnResult } from "../../session/thread.js";
import { shellQuote } from "../../util/shell-quote.js";
import { visibleLine } from "../common/terminal-text.js";
import type { ApprovalRequestEvent, ExecRenderer, RunInfo } from "./renderer.js";

type JsonItem = { id: string; type: string } & Record<string, unknown>;

export class ExecJsonWriter implements ExecRenderer {
  private nextItem = 0;
  private readonly tracker = new ItemTracker();
  /** The JSON id of each core item shown and not yet done (sub-agents stay: they finish again). */
  private readonly ids = new Map<string, string>();
  /** The thread's usage so far, from the last `token_count` (includes a resumed thread's past). */
  private threadUsage: TokenUsage | null = null;

  /**
   * `diagnostics`: where problems outside the JSONL stream go (an MCP server that failed to start).
   * `approvalItems`: emit our `approval_request` extension items (off by default: SDK clients
   * know only Codex's item types).
   */
  constructor(
    private readonly out: NodeJS.WritableStream,
    private readonly diagnostics: NodeJS.WritableStream = process.stderr,
    private readonly options: { approvalItems?: boolean } = {},
  ) {}

  start(info: RunInfo): void {
    this.write({ type: "thread.started", thread_id: info.threadId });
  }

  event(event: Event): void {
    for (const change of this.tracker.push(event)) this.itemEvent(change);
    switch (event.type) {
      case "turn_started":
        this.write({ type: "turn.started" });
        return;
      case "token_count":
        this.threadUsage = event.total;
        return;
      case "mcp_startup_update":
        if (event.status.state === "failed") {
          // The error quotes the server's stderr: its controls are shown (terminal-text.ts).
          this.diagnostics.write(
            `tscodex: ${visibleLine(`MCP server '${event.server}' failed to start: ${event.status.error}`)}\n`,
          );
        }
        return;
      case "stream_error":
      case "warning":
        // Codex shows warnings (hook warnings among them) as `error` items too.
        this.completed(this.item("error", { message: event.message }));
        return;
      case "error":
        this.write({ type: "error", message: event.message });
        return;
      case "auto_review_completed": {
        // Ours (Codex's exec shows no review): what the reviewer decided about which call, and why.
        const { assessment } = event.outcome;
        this.completed(
          this.item("auto_approval_review", {
            call_id: event.call_id,
            action: event.action,
            status: event.outcome.status,
            risk_level: assessment?.riskLevel ?? null,
            user_authorization: assessment?.userAuthorization ?? null,
            rationale: assessment?.rationale ?? null,
          }),
        );
        return;
      }
      default:
        return;
    }
  }

  approval(request: ApprovalRequestEvent, decision: ReviewDecision): void {
    if (!this.options.approvalItems) return;
    const mcp = request.type === "exec_approval_request" ? request.mcp_tool_call : undefined;
    const network = request.type === "exec_approval_request" ? request.network_approval_context : undefined;
    const details = mcp
      ? {
          kind: "mcp",
          call_id: request.call_id,
          server: mcp.server,
          tool: mcp.tool,
          arguments: mcp.arguments,
        }
      : network && request.type === "exec_approval_request"
        ? {
            kind: "network",
            call_id: request.call_id,
            host: network.host,
            protocol: network.protocol,
            command: shellQuote(request.command),
          }
        : request.type === "exec_approval_request"
          ? { kind: "exec", call_id: request.call_id, command: shellQuote(request.command), cwd: request.cwd }
          : {
              kind: "patch",
              call_id: request.call_id,
              changes: fileChanges(request.changes),
            };
    this.completed(this.item("approval_request", { ...details, reason: request.reason, decision }));
  }

  finish(result: TurnResult): void {
    if (result.status === "completed") {
      const { input_tokens, cached_input_tokens, output_tokens, reasoning_output_tokens } =
        this.threadUsage ?? result.usage;
      this.write({
        type: "turn.completed",
        usage: { input_tokens, cached_input_tokens, output_tokens, reasoning_output_tokens },
      });
    } else {
      this.write({ type: "turn.failed", error: { message: result.error ?? "turn interrupted" } });
    }
  }

  /** One core item change as Codex's exec JSONL line (nothing for what exec does not show). */
  private itemEvent(change: ItemEvent): void {
    const { item } = change;
    const fields = fieldsOf(item, change.type === "item_completed");
    if (!fields) return;
    const kind =
      change.type === "item_started" ? "started" : change.type === "item_updated" ? "updated" : "completed";
    // Codex shows messages, reasoning and searches once, when done; updates only for the plan.
    const whole =
      item.type === "agent_message" ||
      item.type === "proposed_plan" ||
      item.type === "reasoning" ||
      item.type === "web_search";
    if (whole && kind !== "completed") return;
    if (kind === "updated" && item.type !== "plan") return;
    let id = this.ids.get(item.id);
    if (!id) {
      id = `item_${this.nextItem++}`;
      this.ids.set(item.id, id);
    }
    if (kind === "completed" && item.type !== "sub_agent") this.ids.delete(item.id);
    this.write({ type: `item.${kind}`, item: { id, ...fields } });
  }

  private item(type: string, fields: Record<string, unknown>): JsonItem {
    return { id: `item_${this.nextItem++}`, type, ...fields };
  }

  private completed(item: JsonItem): void {
    this.write({ type: "item.completed", item });
  }

  private write(value: unknown): void {
    this.out.write(`${JSON.stringify(value)}\n`);
  }
}

/** A core item as an exec JSONL item without its id; null for items exec does not show. */
function fieldsOf(item: TurnItem, done: boolean): Record<string, unknown> | null {
  switch (item.type) {
    case "agent_message":
      return item.status === "completed" ? { type: "agent_message", text: item.text } : null;
    // Codex's exec JSONL has no plan-mode item: a resumed plan-mode thread's plan shows as the
    // model wrote it.
    case "proposed_plan":
      return item.status === "completed"
        ? { type: "agent_message", text: `${PLAN_OPEN}\n${item.text}\n${PLAN_CLOSE}` }
        : null;
    case "reasoning": {
      const text = item.summary.join("\n\n");
      return item.status === "completed" && text ? { type: "reasoning", text } : null;
    }
    case "command_execution":
      return {
        type: "command_execution",
        command: shellQuote(item.command),
        aggregated_output: item.aggregated_output ?? "",
        exit_code: item.exit_code,
        status: item.status,
      };
    case "file_change":
      return { type: "file_change", changes: fileChanges(item.changes), status: item.status };
    case "mcp_tool_call": {
      const { server, tool, arguments: args } = item.invocation;
      const base = { type: "mcp_tool_call", server, tool, arguments: args };
      if (!item.result) return { ...base, result: null, error: null, status: item.status };
      if ("Err" in item.result)
        return { ...base, result: null, error: { message: item.result.Err }, status: item.status };
      const { content, structuredContent } = item.result.Ok;
      return {
        ...base,
        result: { content, structured_content: structuredContent ?? null },
        error: null,
        status: item.status,
      };
    }
    case "web_search":
      return {
        type: "web_search",
        query: item.query,
        action: item.action ?? { type: "search", query: item.query },
      };
    case "plan":
      return {
        type: "todo_list",
        items: item.plan.map((step) => ({ text: step.step, completed: step.status === "completed" })),
      };
    case "sub_agent": {
      const status = item.agent_status;
      if (!done) {
        const { agent_id, agent_type, message } = item;
        return { type: "sub_agent", agent_id, agent_type, message, status: "running", final_message: null };
      }
      const final = typeof status === "object" && "completed" in status ? status.completed : null;
      return {
        type: "sub_agent",
        agent_id: item.agent_id,
        agent_type: item.agent_type,
        message: item.message,
        status: typeof status === "string" ? status : Object.keys(status)[0],
        final_message: final,
      };
    }
    default:
      return null;
  }
}

function fileChanges(changes: Record<string, FileChange>): { path: string; kind: string }[] {
  return Object.entries(changes).map(([path, change]) => ({ path, kind: change.type }));
}
