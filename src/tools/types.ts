/**
 * The tool system's contracts. A tool is a spec (what the model sees) plus a handler
 * (what runs). Handlers state facts (`isMutating`); the router and the policy layer decide.
 */
import type { Event } from "../protocol/events.js";
import type { InputContent, LocalShellAction } from "../protocol/items.js";
import type { ToolSpec } from "../protocol/tool-spec.js";

export type ApprovalPolicy = "untrusted" | "on-failure" | "on-request" | "never";
export type SandboxMode = "read-only" | "workspace-write" | "danger-full-access";

/** How output meant for the model is cut down (from model metadata; reference section 4). */
export type TruncationPolicy = { mode: "tokens"; limit: number } | { mode: "bytes"; limit: number };

/** What the environment of spawned commands is built from (config `shell_environment_policy`). */
export interface ShellEnvironment {
  /** The complete environment for spawned commands. */
  env: Record<string, string>;
}

/** Everything a handler may know about the turn it runs in. Narrow on purpose. */
export interface TurnContext {
  readonly threadId: string;
  readonly turnId: string;
  readonly cwd: string;
  readonly approvalPolicy: ApprovalPolicy;
  readonly sandboxMode: SandboxMode;
  readonly networkAccess: boolean;
  readonly writableRoots: readonly string[];
  readonly shellEnvironment: ShellEnvironment;
  readonly truncation: TruncationPolicy;
  /** Aborted when the turn is interrupted; handlers pass it to whatever they spawn. */
  readonly signal: AbortSignal;
  emit(event: Event): void;
}

export type ToolPayload =
  | { kind: "function"; arguments: string }
  | { kind: "custom"; input: string }
  | { kind: "local_shell"; action: LocalShellAction }
  | { kind: "mcp"; server: string; tool: string; rawArguments: string };

export type ToolKind = ToolPayload["kind"];

export interface ToolInvocation {
  callId: string;
  toolName: string;
  payload: ToolPayload;
  turn: TurnContext;
}

/** A handler's answer. `content` goes to the model as the call's output. */
export interface ToolOutput {
  content: string | InputContent[];
  success?: boolean;
  /** Items to add to history after the outputs (e.g. an image the model asked to see). */
  followUp?: InputContent[];
}

export interface ToolHandler {
  /** Which payload kinds this handler accepts (a mismatch is an error for the model). */
  readonly kinds: readonly ToolKind[];
  isMutating(invocation: ToolInvocation): boolean;
  /** Throw ToolError for failures; anything else thrown is treated as fatal. */
  handle(invocation: ToolInvocation): Promise<ToolOutput>;
}

export interface ToolDefinition {
  spec: ToolSpec;
  handler: ToolHandler;
  /** May run concurrently with other parallel-safe calls of the same response. */
  supportsParallel: boolean;
}

/**
 * `respond`: the text goes back to the model as the tool output and the turn goes on.
 * `fatal`: the turn ends with an error event.
 */
export class ToolError extends Error {
  constructor(
    message: string,
    readonly kind: "respond" | "fatal",
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = "ToolError";
  }

  static respond(message: string, options?: { cause?: unknown }): ToolError {
    return new ToolError(message, "respond", options);
  }

  static fatal(message: string, options?: { cause?: unknown }): ToolError {
    return new ToolError(message, "fatal", options);
  }
}
