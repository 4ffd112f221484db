/**
 * The router: the one place a model's tool call becomes a tool output.
 * Flow: look up the handler → check the payload kind → prepare (validate and plan) → if the
 * call would change something, ask the approval gate → run → convert to the output item for
 * the wire. ToolError `respond` and argument problems become outputs the model can act on;
 * anything else ends the turn (fatal).
 */
import type { ResponseItem, ToolCallItem } from "../protocol/items.js";
import type { ToolSpec } from "../protocol/tool-spec.js";
import { errorMessage } from "../util/errors.js";
import { observeCall, outputText } from "./call-telemetry.js";
import {
  type ApprovalRequest,
  type ToolDefinition,
  ToolError,
  type ToolInvocation,
  type ToolOutput,
  type ToolPayload,
  type TurnContext,
  toolName,
} from "./types.js";

/**
 * A gate's decision. Allowed: `asked` when a human (or client) approved, absent or false when
 * policy allowed on its own. Denied: `message` goes to the model as the call's output.
 */
export type ApprovalVerdict = { allowed: true; asked?: boolean } | { allowed: false; message: string };

/** Decides whether a call that would change something may run. The policy layer supplies it. */
export interface ApprovalGate {
  /** `request`: what the call would change, from its prepared call. */
  check(invocation: ToolInvocation, request: ApprovalRequest): Promise<ApprovalVerdict>;
}

export interface DispatchResult {
  output: ResponseItem;
  /** Extra history after the outputs (e.g. an image the model asked to see). */
  followUp: ResponseItem[];
  /** ToolOutput.hookResponse, for PostToolUse. */
  hookResponse?: unknown;
  /** False when the call failed (a refusal, bad arguments, the tool's own failure). */
  success?: boolean;
}

export class ToolRouter {
  private readonly byName = new Map<string, ToolDefinition>();
  private readonly all: ToolDefinition[];

  constructor(
    definitions: readonly ToolDefinition[],
    private readonly gate: ApprovalGate,
  ) {
    this.all = [...definitions];
    for (const definition of definitions) this.byName.set(toolName(definition), definition);
  }

  get definitions(): readonly ToolDefinition[] {
    return this.all;
  }

  specs(): ToolSpec[] {
    return this.all.map((definition) => definition.spec);
  }

  /** True when this call may run concurrently with the other calls of its response. */
  supportsParallel(call: ToolCallItem): boolean {
    return this.byName.get(callName(call))?.supportsParallel ?? false;
  }

  async dispatch(call: ToolCallItem, turn: TurnContext): Promise<DispatchResult> {
    const toolName = callName(call);
    const definition = this.byName.get(toolName);
    const invocation: ToolInvocation = {
      callId: call.call_id,
      toolName,
      payload: payloadOf(call, definition),
      turn,
    };
    if (!turn.telemetry) return this.dispatchInvocation(call, invocation);
    const telemetry = observeCall(turn.telemetry, call, toolName, definition);
    const result = await this.dispatchInvocation(call, { ...invocation, telemetry }).catch(
      (error: unknown) => {
        telemetry.end({ success: false, output: errorMessage(error) });
        throw error;
      },
    );
    telemetry.decision("approved", "Config");
    telemetry.end({ success: result.success !== false, output: outputText(result.output) });
    return result;
  }

  private async dispatchInvocation(call: ToolCallItem, invocation: ToolInvocation): Promise<DispatchResult> {
    try {
      const output = await this.run(invocation);
      const followUp: ResponseItem[] = output.followUp
        ? [{ type: "message", role: "user", content: output.followUp }]
        : [];
      const result: DispatchResult = { output: toOutputItem(call, output), followUp };
      if (output.success === false) result.success = false;
      if (output.hookResponse !== undefined) result.hookResponse = output.hookResponse;
      return result;
    } catch (error) {
      if (error instanceof ToolError && error.kind === "respond") {
        const output = toOutputItem(call, { content: error.message, success: false });
        return { output, followUp: [], success: false };
      }
      throw error instanceof ToolError ? error : ToolError.fatal(errorMessage(error), { cause: error });
    }
  }

  private async run(invocation: ToolInvocation): Promise<ToolOutput> {
    const definition = this.byName.get(invocation.toolName);
    if (!definition) throw ToolError.respond(`unsupported call: ${invocation.toolName}`);
    const { handler } = definition;
    if (!handler.kinds.includes(invocation.payload.kind)) {
      throw ToolError.respond(
        `tool ${invocation.toolName} cannot take a ${invocation.payload.kind} call; call it as ${handler.kinds.join(" or ")}`,
      );
    }
    const prepared = await handler.prepare(invocation);
    if (!prepared.approval) return prepared.run({ asked: false });
    const verdict = await this.gate.check(invocation, prepared.approval);
    if (!verdict.allowed) throw ToolError.respond(verdict.message);
    return prepared.run({ asked: verdict.asked ?? false });
  }
}

function callName(call: ToolCallItem): string {
  return call.type === "local_shell_call" ? "local_shell" : call.name;
}

function payloadOf(call: ToolCallItem, definition: ToolDefinition | undefined): ToolPayload {
  switch (call.type) {
    case "function_call":
      // `mcp__server__tool` names are looked up, never parsed: sanitizing made them ambiguous.
      if (definition?.mcpTool) return { kind: "mcp", ...definition.mcpTool, rawArguments: call.arguments };
      return { kind: "function", arguments: call.arguments };
    case "custom_tool_call":
      return { kind: "custom", input: call.input };
    case "local_shell_call":
      return { kind: "local_shell", action: call.action };
  }
}

/** Custom calls answer with plain text; everything else with a function_call_output. */
function toOutputItem(call: ToolCallItem, output: ToolOutput): ResponseItem {
  if (call.type === "custom_tool_call") {
    const text =
      typeof output.content === "string"
        ? output.content
        : output.content.map((part) => (part.type === "input_text" ? part.text : "")).join("");
    return { type: "custom_tool_call_output", call_id: call.call_id, output: text };
  }
  return { type: "function_call_output", call_id: call.call_id, output: output.content };
}
