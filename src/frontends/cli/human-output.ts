/**
 * Human output of `tscodex exec`, on stderr: a header, then reasoning, commands with
 * abridged output, patches, plans and messages as they happen, and the token count.
 * The final message itself goes to stdout (exec.ts) so `> answer.txt` works.
 *
 * Everything shown comes from outside (the model, commands, files, MCP servers) and is read on
 * a terminal, now or later with `cat`: each event is copied with its control characters made
 * visible (terminal-text.ts) before anything is styled, and each line written is guarded, so
 * only this renderer's own colours reach the terminal.
 */

import type { ReviewedAction } from "../../protocol/auto-review.js";
import type { Event, McpInvocation, PlanItem, ReviewDecision } from "../../protocol/events.js";
import { ItemTracker } from "../../protocol/item-tracker.js";
import type { ItemEvent } from "../../protocol/turn-items.js";
import type { TurnResult } from "../../session/thread.js";
import { shellQuote } from "../../util/shell-quote.js";
import { agentLabel, describeStatus } from "../common/agent-labels.js";
import { guardOutput, type VisibleOptions, visibleStrings } from "../common/terminal-text.js";
import type { ApprovalRequestEvent, ExecRenderer, RunInfo } from "./renderer.js";
import { StatusLine } from "./status-line.js";

const MAX_OUTPUT_LINES = 20;
/** Characters of command output shown when its lines are few but long. */
const MAX_OUTPUT_CHARS = 8192;
/** A tab only moves the cursor right: kept, so tab-separated output copies as it was. */
const VISIBLE: VisibleOptions = { tabs: "keep" };

export class HumanRenderer implements ExecRenderer {
  private readonly paint: Painter;
  /** Each sub-agent's items, from its forwarded events. */
  private readonly children = new Map<string, ItemTracker>();
  /** The command whose header is the last thing printed, so its result can follow it directly. */
  private lastBegun: string | null = null;

  /** What the run waits for, with its elapsed time: only when `out` is a terminal. */
  private readonly status: StatusLine | null;

  constructor(
    private readonly out: NodeJS.WritableStream,
    options: { color: boolean; statusLine?: boolean },
  ) {
    this.paint = painter(options.color);
    this.status = options.statusLine ? new StatusLine(out) : null;
  }

  start(raw: RunInfo): void {
    const info = visibleStrings(raw, VISIBLE);
    const { bold, dim } = this.paint;
    const rows = [
      ["workdir", info.cwd],
      ["model", info.model],
      ["provider", info.provider],
      ["approval", info.approvalPolicy],
      ["sandbox", info.sandboxMode],
      ["session id", info.threadId],
    ];
    this.line(bold("tscodex exec"));
    this.line(dim("--------"));
    for (const [key, value] of rows) this.line(`${bold(`${key}:`)} ${value}`);
    this.line(dim("--------"));
    this.section("user", info.prompt);
  }

  event(raw: Event): void {
    const event = visibleStrings(raw, VISIBLE);
    this.render(event);
    this.updateStatus(event);
  }

  /** The status line follows the turn: the model thinking, then each command while it runs. */
  private updateStatus(event: Event): void {
    if (!this.status) return;
    switch (event.type) {
      case "turn_started":
      case "exec_command_end":
      case "mcp_tool_call_end":
      case "patch_apply_end":
        this.status.set(this.paint.dim("thinking"));
        return;
      case "exec_command_begin":
        this.status.set(this.paint.dim(`running ${abridgeLine(commandText(event.command))}`));
        return;
      case "mcp_tool_call_begin":
        this.status.set(this.paint.dim(`calling ${event.invocation.server}.${event.invocation.tool}`));
        return;
      case "turn_complete":
      case "turn_aborted":
        this.status.stop();
        return;
      default:
        return;
    }
  }

  private render(event: Event): void {
    const { bold, dim, red, green, cyan, magenta } = this.paint;
    switch (event.type) {
      case "agent_reasoning":
        this.section(magenta("thinking"), dim(event.text));
        return;
      case "exec_command_begin":
        this.commandHeader(event.command, event.cwd);
        this.lastBegun = event.call_id;
        return;
      case "exec_command_end": {
        // Parallel calls finish out of order: repeat the header so output sits under its command.
        if (this.lastBegun !== event.call_id) this.commandHeader(event.command, event.cwd);
        this.lastBegun = null;
        const seconds = (event.duration_ms / 1000).toFixed(2);
        const status =
          event.exit_code === 0
            ? green(` succeeded in ${seconds}s:`)
            : red(` exited ${event.exit_code} in ${seconds}s:`);
        this.line(status);
        const text = abridge(event.aggregated_output);
        if (text) this.line(dim(text));
        return;
      }
      case "patch_apply_end": {
        const files = Object.entries(event.changes).map(
          ([path, change]) => `  ${change.type[0]?.toUpperCase()} ${path}`,
        );
        this.section(
          event.success ? green("apply_patch") : red("apply_patch failed"),
          files.join("\n") || event.stderr,
        );
        return;
      }
      case "plan_update":
        this.section(cyan("plan"), formatPlan(event.plan, event.explanation));
        return;
      case "agent_message":
        this.section(bold(cyan("tscodex")), event.message);
        return;
      case "web_search_end":
        this.section(magenta("web search"), event.query);
        return;
      case "mcp_startup_update":
        if (event.status.state === "failed") {
          this.line(red(`MCP server '${event.server}' failed to start: ${event.status.error}`));
        }
        return;
      case "mcp_tool_call_begin":
        this.mcpHeader(event.invocation);
        this.lastBegun = event.call_id;
        return;
      case "mcp_tool_call_end": {
        if (this.lastBegun !== event.call_id) this.mcpHeader(event.invocation);
        this.lastBegun = null;
        const ok = "Ok" in event.result && !event.result.Ok.isError;
        const seconds = (event.duration_ms / 1000).toFixed(2);
        this.line(ok ? green(` succeeded in ${seconds}s:`) : red(` failed in ${seconds}s:`));
        const body = "Ok" in event.result ? JSON.stringify(event.result.Ok.content) : event.result.Err;
        this.line(dim(abridge(body)));
        return;
      }
      case "stream_error":
        this.line(
          this.paint.yellow(
            // max_attempts 0: not known (a remote app-server says only that it retries).
            `model stream error, retrying (${event.attempt}${event.max_attempts ? `/${event.max_attempts}` : ""}): ${event.message}`,
          ),
        );
        return;
      case "error":
        this.line(red(`ERROR: ${event.message}`));
        return;
      case "warning":
        this.line(this.paint.yellow(`warning: ${event.message}`));
        return;
      case "auto_review_started":
        this.line(this.paint.dim(`auto-review: reviewing ${describeReviewed(event.action)}`));
        return;
      case "auto_review_completed": {
        const { status, assessment } = event.outcome;
        const risk = assessment?.riskLevel ? ` (risk ${assessment.riskLevel})` : "";
        const why = assessment?.rationale ? `: ${assessment.rationale}` : "";
        const text = `auto-review: ${status}${risk}${why}`;
        this.line(status === "approved" ? this.paint.dim(text) : this.paint.yellow(text));
        return;
      }
      case "turn_aborted":
        this.line(red("turn interrupted"));
        return;
      case "agent_spawned":
        this.line(
          cyan(
            `↳ ${agentLabel(event.agent_id)} started${event.agent_type ? ` (${event.agent_type})` : ""}: `,
          ) + abridge(event.message),
        );
        return;
      case "agent_finished":
        this.line(cyan(`↳ ${agentLabel(event.agent_id)} ${describeStatus(event.status)}`));
        return;
      case "agent_event":
        this.childEvent(event.agent_id, event.event);
        return;
      default:
        return;
    }
  }

  /** A sub-agent's progress, indented under its parent's: its commands, patches and messages. */
  private childEvent(agentId: string, event: Event): void {
    let tracker = this.children.get(agentId);
    if (!tracker) {
      tracker = new ItemTracker();
      this.children.set(agentId, tracker);
    }
    const prefix = `  ${agentLabel(agentId)} │ `;
    for (const change of tracker.push(event)) this.childItem(prefix, change);
  }

  private childItem(prefix: string, change: ItemEvent): void {
    const { dim, green, red } = this.paint;
    const { item } = change;
    if (item.type === "command_execution" && change.type === "item_started") {
      this.line(dim(`${prefix}$ ${shellQuote(item.command)}`));
    } else if (change.type !== "item_completed") {
      return;
    } else if (item.type === "command_execution") {
      this.line(dim(prefix) + (item.exit_code === 0 ? green("succeeded") : red(`exited ${item.exit_code}`)));
    } else if (item.type === "file_change") {
      this.line(dim(`${prefix}apply_patch: ${Object.keys(item.changes).join(", ")}`));
    } else if (item.type === "agent_message" && item.status === "completed") {
      for (const text of abridge(item.text).split("\n")) this.line(dim(`${prefix}${text}`));
    }
  }

  /** An approval question and the answer exec gave it (nobody can be asked here). */
  approval(raw: ApprovalRequestEvent, decision: ReviewDecision): void {
    const request = visibleStrings(raw, VISIBLE);
    const { bold, dim, yellow } = this.paint;
    const mcp = request.type === "exec_approval_request" ? request.mcp_tool_call : undefined;
    const network = request.type === "exec_approval_request" ? request.network_approval_context : undefined;
    const what = mcp
      ? bold(`${mcp.server}.${mcp.tool}(${JSON.stringify(mcp.arguments ?? {})})`)
      : network && request.type === "exec_approval_request"
        ? `${bold(network.host)} ${dim(`(${network.protocol}) from ${shellQuote(request.command)}`)}`
        : request.type === "exec_approval_request"
          ? `${bold(shellQuote(request.command))} ${dim(`in ${request.cwd}`)}`
          : Object.entries(request.changes)
              .map(([path, change]) => `  ${change.type[0]?.toUpperCase()} ${path}`)
              .join("\n");
    const kind = mcp
      ? "MCP tool call"
      : network
        ? "network access"
        : request.type === "exec_approval_request"
          ? "command"
          : "patch";
    this.section(yellow(`approval requested (${kind})`), what);
    if (request.reason) this.line(`reason: ${request.reason}`);
    this.line(yellow(`→ ${decision} (answered by approvals.exec_outcome)`));
    this.lastBegun = null;
  }

  private mcpHeader(invocation: McpInvocation): void {
    const { bold, magenta } = this.paint;
    this.line("");
    this.line(
      `${bold(magenta("tool"))}\n${bold(`${invocation.server}.${invocation.tool}`)}(${JSON.stringify(invocation.arguments ?? {})})`,
    );
  }

  private commandHeader(command: string[], cwd: string): void {
    const { bold, dim, magenta } = this.paint;
    this.line("");
    this.line(`${bold(magenta("exec"))}\n${bold(shellQuote(command))} ${dim(`in ${cwd}`)}`);
  }

  finish(result: TurnResult): void {
    this.status?.stop();
    const { bold } = this.paint;
    const total = result.usage.input_tokens + result.usage.output_tokens;
    this.section(bold("tokens used"), groupThousands(total));
  }

  private section(title: string, body: string): void {
    this.line("");
    this.line(title);
    if (body) this.line(body);
  }

  private line(text: string): void {
    this.status?.clear();
    this.out.write(`${guardOutput(text, { newlines: "keep" })}\n`);
    this.status?.restore();
  }
}

/**
 * A few long lines (a minified file, a megabyte without a newline) shown by their ends: the
 * terminal gets what a reader can use, and exec does not hold another copy of the capture.
 */
function abridgeChars(text: string): string {
  if (text.length <= MAX_OUTPUT_CHARS) return text;
  const half = MAX_OUTPUT_CHARS / 2;
  return `${text.slice(0, half)}\n… +${text.length - 2 * half} characters\n${text.slice(-half)}`;
}

/** A command as the user would type it: the script of a `bash -lc SCRIPT` wrapper, else quoted words. */
function commandText(command: string[]): string {
  const [shell, flag, script] = command;
  if (command.length === 3 && shell && /(^|\/)(ba|z)?sh$/.test(shell) && (flag === "-lc" || flag === "-c")) {
    return script ?? "";
  }
  return shellQuote(command);
}

/** A command as one short status line. */
function abridgeLine(text: string): string {
  const line = text.replace(/\s+/g, " ");
  return line.length > 60 ? `${line.slice(0, 59)}…` : line;
}

/** 1234567 → "1,234,567" without toLocaleString, whose ICU start-up costs ~17 ms. */
function groupThousands(value: number): string {
  return String(value).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
}

function abridge(output: string): string {
  // Found by index, not split: a command's output may hold up to a million short lines.
  const text = output.endsWith("\n") ? output.slice(0, -1) : output;
  let lines = 1;
  for (let at = text.indexOf("\n"); at !== -1; at = text.indexOf("\n", at + 1)) lines++;
  if (lines <= MAX_OUTPUT_LINES) return abridgeChars(text);
  const half = MAX_OUTPUT_LINES / 2;
  let headEnd = -1;
  for (let i = 0; i < half; i++) headEnd = text.indexOf("\n", headEnd + 1);
  let tailStart = text.length;
  for (let i = 0; i < half; i++) tailStart = text.lastIndexOf("\n", tailStart - 1);
  return `${text.slice(0, headEnd)}\n… +${lines - 2 * half} lines\n${text.slice(tailStart + 1)}`;
}

function formatPlan(plan: PlanItem[], explanation: string | null): string {
  const marks = { completed: "✔", in_progress: "□", pending: "□" } as const;
  const lines = plan.map(
    (step) => `  ${marks[step.status]} ${step.step}${step.status === "in_progress" ? " (in progress)" : ""}`,
  );
  return [explanation ?? "", ...lines].filter(Boolean).join("\n");
}

type Paint = (text: string) => string;
interface Painter {
  bold: Paint;
  dim: Paint;
  red: Paint;
  green: Paint;
  yellow: Paint;
  cyan: Paint;
  magenta: Paint;
}

function painter(enabled: boolean): Painter {
  const code =
    (open: number, close: number): Paint =>
    (text) =>
      enabled ? `\u001b[${open}m${text}\u001b[${close}m` : text;
  return {
    bold: code(1, 22),
    dim: code(2, 22),
    red: code(31, 39),
    green: code(32, 39),
    yellow: code(33, 39),
    cyan: code(36, 39),
    magenta: code(35, 39),
  };
}

/** One line naming what a review is about. */
function describeReviewed(action: ReviewedAction): string {
  switch (action.kind) {
    case "exec":
      return `\`${shellQuote(action.command)}\``;
    case "patch":
      return `changes to ${action.files.join(", ")}`;
    case "network":
      return `access to ${action.host}`;
    case "mcp":
      return `the ${action.server} MCP tool ${action.tool}`;
  }
}
