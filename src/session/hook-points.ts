/**
 * Where a thread's hooks fire, and what their answers do. Builds each event's payload from the
 * thread (session id, transcript, cwd, model, permission mode) and turns a HookOutcome into
 * history items or decisions the turn loop and the orchestrator act on.
 * Tool names are Codex's: shell calls are `Bash` with `tool_input.command` the command string;
 * apply_patch is `apply_patch` (the patch as `command`); MCP tools `mcp__<server>__<tool>` with
 * their arguments (`{}` when none, the raw text when not JSON) and, after the call, the server's
 * result (`{content, structuredContent}`). Other tools start no tool hooks.
 */
import type {
  HookEngine,
  HookEventName,
  HookInputs,
  HookOutcome,
  PermissionMode,
  SessionStartSource,
} from "../hooks/index.js";
import type { Event, HookRunSummary } from "../protocol/events.js";
import { developerMessage, type ResponseItem, type ToolCallItem, userMessage } from "../protocol/items.js";
import type { ApprovalPolicy } from "../protocol/policy.js";
import type { ToolRouter } from "../tools/router.js";
import type { PermissionHookDecision, PermissionQuestion } from "../tools/types.js";
import { shellQuote } from "../util/shell-quote.js";
import type { TurnHooks } from "./turn.js";

/** What a thread tells its hooks about itself; read at each event (cwd and policy may change). */
export interface HookSubject {
  threadId: string;
  transcriptPath(): string | null;
  cwd(): string;
  model(): string;
  approvalPolicy(): ApprovalPolicy;
  warn(message: string): void;
  /** Where `hook_started` / `hook_completed` go (the thread's event stream). */
  emit?(event: Event): void;
}

/** A sub-agent that finished a turn, for SubagentStop. */
export interface SubagentStopped {
  id: string;
  type: string;
  transcriptPath: string | null;
  lastMessage: string | null;
  /** A SubagentStop hook already sent it back to work once. */
  active: boolean;
}

/** A tool call as its hooks see it. */
interface ToolView {
  name: string;
  input: unknown;
  /** The command string of a shell call (for Codex's blocked-call message). */
  command: string | null;
}

const SHELL_TOOLS = new Set(["shell", "shell_command", "exec_command", "local_shell"]);

export class HookPoints {
  constructor(
    private readonly engine: HookEngine,
    private readonly subject: HookSubject,
  ) {}

  has(event: HookEventName): boolean {
    return this.engine.has(event);
  }

  run<E extends HookEventName>(event: E, input: HookInputs[E], signal?: AbortSignal): Promise<HookOutcome> {
    const turnId = "turn_id" in input && input.turn_id ? input.turn_id : null;
    const emit = this.subject.emit?.bind(this.subject);
    return this.engine.run(event, input, {
      cwd: this.subject.cwd(),
      signal,
      warn: (message) => this.subject.warn(message),
      ...(emit
        ? {
            report: (phase: "started" | "completed", run: HookRunSummary) =>
              emit({ type: phase === "started" ? "hook_started" : "hook_completed", turn_id: turnId, run }),
          }
        : {}),
    });
  }

  session() {
    return {
      session_id: this.subject.threadId,
      transcript_path: this.subject.transcriptPath(),
      cwd: this.subject.cwd(),
    };
  }

  turn(turnId: string) {
    return {
      session_id: this.subject.threadId,
      turn_id: turnId,
      transcript_path: this.subject.transcriptPath(),
      cwd: this.subject.cwd(),
      model: this.subject.model(),
      permission_mode: permissionModeOf(this.subject.approvalPolicy()),
    };
  }

  /** SessionStart: the contexts its hooks give the model. */
  async sessionStart(source: SessionStartSource, signal: AbortSignal): Promise<string[]> {
    if (!this.engine.has("SessionStart")) return [];
    const { model, permission_mode } = this.turn("");
    const outcome = await this.run(
      "SessionStart",
      { ...this.session(), model, permission_mode, source },
      signal,
    );
    return outcome.additionalContexts;
  }

  /** UserPromptSubmit: contexts for the model, or why the prompt was blocked. */
  async userPromptSubmit(
    turnId: string,
    prompt: string,
    signal: AbortSignal,
  ): Promise<{ contexts: string[]; blocked: string | null }> {
    if (!this.engine.has("UserPromptSubmit")) return { contexts: [], blocked: null };
    const outcome = await this.run("UserPromptSubmit", { ...this.turn(turnId), prompt }, signal);
    const stopped = outcome.stop ? (outcome.stop.reason ?? "stopped by UserPromptSubmit hook") : null;
    const blocked =
      outcome.block !== null ? `prompt blocked by UserPromptSubmit hook: ${outcome.block}` : stopped;
    return { contexts: outcome.additionalContexts, blocked };
  }

  /** The turn loop's hook points, bound to turn `turnId`; undefined when no hook would fire. */
  turnHooks(turnId: string, signal: AbortSignal): TurnHooks | undefined {
    if (!(this.has("PreToolUse") || this.has("PostToolUse") || this.has("Stop"))) return undefined;
    return {
      beforeTool: (call, router) => this.beforeTool(call, router, turnId, signal),
      afterTool: (call, output, router, response) =>
        this.afterTool(call, output, router, turnId, signal, response),
      beforeStop: async (lastAgentMessage, active) => {
        if (!this.has("Stop")) return null;
        const outcome = await this.run(
          "Stop",
          { ...this.turn(turnId), stop_hook_active: active, last_assistant_message: lastAgentMessage },
          signal,
        );
        if (outcome.block === null || outcome.stop) return null;
        // Codex's run id of the blocking hook (a callback's is `stop:<order>:callback:<name>`).
        const id = outcome.blockedBy ?? `stop:${turnId}`;
        return userMessage(`<hook_prompt hook_run_id="${id}">${outcome.block}</hook_prompt>`);
      },
    };
  }

  /** SessionEnd when the thread shuts down (its hooks are bounded: at most 3 s each). */
  async sessionEnd(): Promise<void> {
    if (this.has("SessionEnd")) await this.run("SessionEnd", { ...this.session(), reason: "other" });
  }

  /** SubagentStart: the contexts its hooks give the child (developer messages before its first prompt). */
  async subagentStart(turnId: string, agent: { id: string; type: string }): Promise<string[]> {
    if (!this.has("SubagentStart")) return [];
    const outcome = await this.run("SubagentStart", {
      ...this.turn(turnId),
      agent_id: agent.id,
      agent_type: agent.type,
    });
    return outcome.additionalContexts;
  }

  /** SubagentStop: a block reason is the child's next input (null: it may stop). */
  async subagentStop(turnId: string, agent: SubagentStopped): Promise<string | null> {
    if (!this.has("SubagentStop")) return null;
    const outcome = await this.run("SubagentStop", {
      ...this.turn(turnId),
      agent_id: agent.id,
      agent_type: agent.type,
      agent_transcript_path: agent.transcriptPath,
      stop_hook_active: agent.active,
      last_assistant_message: agent.lastMessage,
    });
    return outcome.stop ? null : outcome.block;
  }

  /** PreCompact / PostCompact payload fields (no permission_mode there). */
  compact(turnId: string, trigger: "manual" | "auto") {
    const { permission_mode: _mode, ...fields } = this.turn(turnId);
    return { ...fields, trigger };
  }

  /**
   * PreToolUse: null when the call may run as is; `deny` is the output the model gets instead;
   * `call` is the call rewritten by `updatedInput`.
   */
  async beforeTool(
    call: ToolCallItem,
    router: ToolRouter,
    turnId: string,
    signal: AbortSignal,
  ): Promise<{ deny: string } | { call: ToolCallItem; stop: string | null } | null> {
    if (!this.engine.has("PreToolUse")) return null;
    const view = toolView(call, router);
    if (!view) return null;
    const outcome = await this.run(
      "PreToolUse",
      { ...this.turn(turnId), tool_name: view.name, tool_input: view.input, tool_use_id: call.call_id },
      signal,
    );
    if (outcome.block !== null) {
      const what = view.command !== null ? `Command: ${view.command}` : `Tool: ${view.name}`;
      const noun = view.command !== null ? "Command" : "Tool call";
      return { deny: `${noun} blocked by PreToolUse hook: ${outcome.block}. ${what}` };
    }
    const rewritten = outcome.updatedInput !== undefined ? withInput(call, outcome.updatedInput) : call;
    const stop = outcome.stop ? (outcome.stop.reason ?? "stopped by PreToolUse hook") : null;
    return rewritten === call && stop === null ? null : { call: rewritten, stop };
  }

  /** PostToolUse: developer messages for the model (its contexts and block reasons). */
  async afterTool(
    call: ToolCallItem,
    output: ResponseItem,
    router: ToolRouter,
    turnId: string,
    signal: AbortSignal,
    toolResponse?: unknown,
  ): Promise<{ items: ResponseItem[]; stop: string | null }> {
    if (!this.engine.has("PostToolUse")) return { items: [], stop: null };
    const view = toolView(call, router);
    if (!view) return { items: [], stop: null };
    const text = "output" in output ? outputText(output.output) : "";
    // A shell call's response is what the command printed, without the tool's header lines.
    const printed = view.command !== null ? (/(?:^|\n)Output:\n([\s\S]*)$/.exec(text)?.[1] ?? text) : text;
    const response = toolResponse !== undefined ? toolResponse : printed;
    const outcome = await this.run(
      "PostToolUse",
      {
        ...this.turn(turnId),
        tool_name: view.name,
        tool_input: view.input,
        tool_response: response,
        tool_use_id: call.call_id,
      },
      signal,
    );
    const texts = [...outcome.additionalContexts, ...(outcome.block !== null ? [outcome.block] : [])];
    const stop = outcome.stop ? (outcome.stop.reason ?? "stopped by PostToolUse hook") : null;
    return { items: texts.map(developerMessage), stop };
  }

  /**
   * PermissionRequest for an escalation or an MCP call needing approval: the hooks' decision, or
   * null when none decided. A command is Codex's `Bash` with `{command, description}`; an MCP
   * call is named as in PreToolUse (`mcp__<server>__<tool>`) with its arguments as `tool_input`.
   */
  async permission(
    turnId: string,
    question: PermissionQuestion,
    signal: AbortSignal,
  ): Promise<PermissionHookDecision | null> {
    if (!this.engine.has("PermissionRequest")) return null;
    const tool =
      question.kind === "exec"
        ? {
            tool_name: "Bash",
            tool_input: {
              command: commandText(question.command),
              ...(question.justification ? { description: question.justification } : {}),
            },
          }
        : { tool_name: question.toolName, tool_input: question.arguments ?? {} };
    const outcome = await this.run("PermissionRequest", { ...this.turn(turnId), ...tool }, signal);
    if (!outcome.permission) return null;
    return outcome.permission.behavior === "allow"
      ? { allow: true }
      : { allow: false, message: outcome.permission.message };
  }
}

/** tscodex's approval policy as Codex's permission mode: `never` asks nobody, the rest ask. */
export function permissionModeOf(policy: ApprovalPolicy): PermissionMode {
  return policy === "never" ? "bypassPermissions" : "default";
}

function toolView(call: ToolCallItem, router: ToolRouter): ToolView | null {
  if (call.type === "local_shell_call") {
    const command = commandText(call.action.command);
    return { name: "Bash", input: { command }, command };
  }
  if (call.type === "custom_tool_call")
    return call.name === "apply_patch"
      ? { name: "apply_patch", input: { command: call.input }, command: null }
      : null;
  const args = parseArgs(call.arguments);
  if (SHELL_TOOLS.has(call.name)) {
    const raw = call.name === "exec_command" ? args.cmd : args.command;
    const command = Array.isArray(raw) ? commandText(raw.map(String)) : typeof raw === "string" ? raw : "";
    return { name: "Bash", input: { command }, command };
  }
  if (call.name === "apply_patch")
    return { name: "apply_patch", input: { command: String(args.input ?? "") }, command: null };
  const mcp = router.definitions.find(
    (definition) => definition.mcpTool && definitionName(definition) === call.name,
  );
  // The model-visible name (`mcp__<server>__<tool>`, sanitized as the model sees it), as Codex.
  if (mcp) return { name: call.name, input: mcpInput(call.arguments), command: null };
  return null;
}

function definitionName(definition: ToolRouter["definitions"][number]): string {
  const { spec } = definition;
  return spec.type === "function" || spec.type === "custom" ? spec.name : spec.type;
}

/** `bash -lc 'x'` is shown as `x`, as Codex shows the command the model wrote. */
function commandText(argv: readonly string[]): string {
  if (argv.length === 3 && /(^|\/)(ba|z)?sh$/.test(argv[0] ?? "") && /^-l?c$/.test(argv[1] ?? ""))
    return argv[2] ?? "";
  return shellQuote(argv);
}

/** The call with its input replaced by a hook's `updatedInput`. */
function withInput(call: ToolCallItem, updated: unknown): ToolCallItem {
  const fields = typeof updated === "object" && updated !== null ? (updated as Record<string, unknown>) : {};
  const command = typeof fields.command === "string" ? fields.command : null;
  if (call.type === "local_shell_call")
    return command === null
      ? call
      : { ...call, action: { ...call.action, command: ["bash", "-lc", command] } };
  if (call.type === "custom_tool_call") return command === null ? call : { ...call, input: command };
  const args = parseArgs(call.arguments);
  if (!SHELL_TOOLS.has(call.name)) return { ...call, arguments: JSON.stringify(fields) };
  if (command === null) return call;
  if (call.name === "exec_command") args.cmd = command;
  else if (call.name === "shell") args.command = ["bash", "-lc", command];
  else args.command = command;
  return { ...call, arguments: JSON.stringify(args) };
}

/** An MCP call's arguments as its hooks see them: `{}` when empty, the raw text when not JSON. */
function mcpInput(text: string): unknown {
  if (text.trim() === "") return {};
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function parseArgs(text: string): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(text);
    return typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : {};
  } catch {
    return {};
  }
}

function outputText(output: unknown): string {
  if (typeof output === "string") return output;
  if (Array.isArray(output))
    return output
      .map((part) => (typeof part === "object" && part && "text" in part ? String(part.text) : ""))
      .join("");
  return "";
}
