/**
 * `tscodex exec --json`: the thread's events as Codex's exec JSONL stream
 * (reference exec-json/): thread.started, turn.started, item.started/updated/completed,
 * turn.completed with usage, error and turn.failed.
 *
 * Every item is one of the Codex SDK's `ThreadItem` types. `turn.completed` usage is the
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
import type { Event, EventOf, PlanItem, ReviewDecision } from "../../protocol/events.js";
import type { TokenUsage } from "../../protocol/items.js";
import type { TurnResult } from "../../session/thread.js";
import { shellQuote } from "../../util/shell-quote.js";
import type { ApprovalRequestEvent, ExecRenderer, RunInfo } from "./renderer.js";

type JsonItem = { id: string; type: string } & Record<string, unknown>;

export class ExecJsonWriter implements ExecRenderer {
  private nextItem = 0;
  private readonly commands = new Map<string, JsonItem>();
  private readonly mcpCalls = new Map<string, JsonItem>();
  private readonly agents = new Map<string, JsonItem>();
  private readonly patches = new Map<string, JsonItem>();
  private todo: JsonItem | null = null;
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
    switch (event.type) {
      case "turn_started":
        this.write({ type: "turn.started" });
        return;
      case "agent_reasoning":
        this.completed(this.item("reasoning", { text: event.text }));
        return;
      case "agent_message":
        this.completed(this.item("agent_message", { text: event.message }));
        return;
      case "exec_command_begin": {
        const item = this.item("command_execution", {
          command: shellQuote(event.command),
          aggregated_output: "",
          exit_code: null,
          status: "in_progress",
        });
        this.commands.set(event.call_id, item);
        this.write({ type: "item.started", item });
        return;
      }
      case "exec_command_end": {
        const started = this.commands.get(event.call_id);
        this.commands.delete(event.call_id);
        const item = started ?? this.item("command_execution", { command: shellQuote(event.command) });
        this.completed({
          ...item,
          aggregated_output: event.aggregated_output,
          exit_code: event.exit_code,
          status: event.exit_code === 0 ? "completed" : "failed",
        });
        return;
      }
      case "patch_apply_begin": {
        const item = this.item("file_change", { changes: fileChanges(event.changes), status: "in_progress" });
        this.patches.set(event.call_id, item);
        this.write({ type: "item.started", item });
        return;
      }
      case "patch_apply_end": {
        const started = this.patches.get(event.call_id);
        this.patches.delete(event.call_id);
        this.completed({
          ...(started ?? this.item("file_change", {})),
          changes: fileChanges(event.changes),
          status: event.success ? "completed" : "failed",
        });
        return;
      }
      case "token_count":
        this.threadUsage = event.total;
        return;
      case "plan_update":
        this.plan(event.plan);
        return;
      case "web_search_end":
        this.completed(
          this.item("web_search", {
            query: event.query,
            action: event.action ?? { type: "search", query: event.query },
          }),
        );
        return;
      case "mcp_tool_call_begin":
      case "mcp_tool_call_end":
        this.mcpCall(event);
        return;
      case "mcp_startup_update":
        if (event.status.state === "failed") {
          this.diagnostics.write(
            `tscodex: MCP server '${event.server}' failed to start: ${event.status.error}\n`,
          );
        }
        return;
      case "agent_spawned": {
        const item = this.item("sub_agent", {
          agent_id: event.agent_id,
          agent_type: event.agent_type,
          message: event.message,
          status: "running",
          final_message: null,
        });
        this.agents.set(event.agent_id, item);
        this.write({ type: "item.started", item });
        return;
      }
      case "agent_finished": {
        const item = this.agents.get(event.agent_id);
        if (!item) return;
        const { status } = event;
        const final = typeof status === "object" && "completed" in status ? status.completed : null;
        this.completed({
          ...item,
          status: typeof status === "string" ? status : Object.keys(status)[0],
          final_message: final,
        });
        return;
      }
      case "stream_error":
      case "warning":
        // Codex shows warnings (hook warnings among them) as `error` items too.
        this.completed(this.item("error", { message: event.message }));
        return;
      case "error":
        this.write({ type: "error", message: event.message });
        return;
      default:
        return;
    }
  }

  approval(request: ApprovalRequestEvent, decision: ReviewDecision): void {
    if (!this.options.approvalItems) return;
    const mcp = request.type === "exec_approval_request" ? request.mcp_tool_call : undefined;
    const details = mcp
      ? {
          kind: "mcp",
          call_id: request.call_id,
          server: mcp.server,
          tool: mcp.tool,
          arguments: mcp.arguments,
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
    if (this.todo) this.completed(this.todo);
    this.todo = null;
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

  /** `mcp_tool_call`: started, then completed (status failed for an error or `isError`). */
  private mcpCall(event: EventOf<"mcp_tool_call_begin"> | EventOf<"mcp_tool_call_end">): void {
    const { server, tool, arguments: args } = event.invocation;
    if (event.type === "mcp_tool_call_begin") {
      const item = this.item("mcp_tool_call", {
        server,
        tool,
        arguments: args,
        result: null,
        error: null,
        status: "in_progress",
      });
      this.mcpCalls.set(event.call_id, item);
      this.write({ type: "item.started", item });
      return;
    }
    const started = this.mcpCalls.get(event.call_id);
    this.mcpCalls.delete(event.call_id);
    const item = started ?? this.item("mcp_tool_call", { server, tool, arguments: args });
    if ("Err" in event.result) {
      this.completed({ ...item, result: null, error: { message: event.result.Err }, status: "failed" });
      return;
    }
    const { content, structuredContent, isError } = event.result.Ok;
    this.completed({
      ...item,
      result: { content, structured_content: structuredContent ?? null },
      error: null,
      status: isError ? "failed" : "completed",
    });
  }

  private plan(plan: PlanItem[]): void {
    const items = plan.map((step) => ({ text: step.step, completed: step.status === "completed" }));
    if (this.todo) {
      this.todo = { ...this.todo, items };
      this.write({ type: "item.updated", item: this.todo });
      return;
    }
    this.todo = this.item("todo_list", { items });
    this.write({ type: "item.started", item: this.todo });
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

function fileChanges(changes: EventOf<"patch_apply_end">["changes"]): { path: string; kind: string }[] {
  return Object.entries(changes).map(([path, change]) => ({ path, kind: change.type }));
}
