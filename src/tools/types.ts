/**
 * The tool system's contracts. A tool is a spec (what the model sees) plus a handler
 * (what runs). A handler prepares each call: it validates and plans it, states what it would
 * change (`approval`), and returns how to run it; the router and the policy layer decide.
 */
import type { TurnDiff } from "../apply-patch/lazy-turn-diff.js";
import type { McpToolApprovalMode } from "../config/mcp-servers.js";
import type { UserInputOutcome, UserQuestion } from "../protocol/agents.js";
import type { ClientToolResult } from "../protocol/client-tools.js";
import type { EditorFiles } from "../protocol/editor-files.js";
import type {
  ElicitationRequest,
  ElicitationResult,
  Event,
  FileChange,
  NetworkApprovalProtocol,
  ReviewDecision,
} from "../protocol/events.js";
import type { InputContent, LocalShellAction } from "../protocol/items.js";
import type { Permissions } from "../protocol/permissions.js";
import type { ApprovalPolicy, SandboxMode, TruncationPolicy } from "../protocol/policy.js";
import type { ToolTelemetry, TurnTelemetry } from "../protocol/telemetry.js";
import type { ToolSpec } from "../protocol/tool-spec.js";
import type { ResourceScope } from "../util/resource-scope.js";

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
  /** The effective permissions, whole (what the sandbox enforces). */
  readonly permissions: Permissions;
  /** How `permissions` reads as a sandbox mode (the approval rules speak modes). */
  readonly sandboxMode: SandboxMode;
  /** Whether commands may reach the network (directly, or through the managed proxy). */
  readonly networkAccess: boolean;
  /** Every writable path, concrete (the cwd and temp dirs included). */
  readonly writableRoots: readonly string[];
  readonly shellEnvironment: ShellEnvironment;
  readonly truncation: TruncationPolicy;
  /** Aborted when the turn is interrupted; handlers pass it to whatever they spawn. */
  readonly signal: AbortSignal;
  /** State that lives as long as the thread (e.g. exec sessions), disposed when it shuts down. */
  readonly resources: ResourceScope;
  /**
   * Ask the user (through the front-end) to approve a command or a patch. Bounded: resolves
   * with the declared outcome ("denied") when nobody answers in time and with "abort" when the
   * turn is interrupted; never rejects.
   */
  requestApproval(question: ApprovalQuestion): Promise<ReviewDecision>;
  /**
   * Why automatic review or the granular policy turned call `callId` down, when one did (what the
   * model reads instead of "rejected by user"); read once; absent or undefined otherwise.
   */
  approvalNote?(callId: string): string | undefined;
  /**
   * PermissionRequest hooks: asked before a person is asked to approve a command. Null (or
   * absent) when no hook decided; then the question goes to the front-end as usual.
   */
  permissionHook?(question: PermissionQuestion): Promise<PermissionHookDecision | null>;
  /** Runs commands under the thread's approval and sandbox policy (policy/orchestrator.ts). */
  readonly orchestrator: CommandOrchestrator;
  /**
   * Ask the front-end's client to run one of its tools. Bounded: resolves with a failed result
   * when the client does not answer in time or the turn is interrupted; never rejects.
   */
  callClientTool(call: ClientToolCall): Promise<ClientToolResult>;
  /**
   * Ask the user questions (`request_user_input`) through the front-end. Bounded; never rejects.
   */
  requestUserInput(callId: string, questions: UserQuestion[]): Promise<UserInputOutcome>;
  /**
   * Pass an MCP server's elicitation to the user through the front-end. Bounded: declines when
   * nobody answers in time, cancels when the turn is interrupted; never rejects.
   */
  requestElicitation(server: string, request: ElicitationRequest): Promise<ElicitationResult>;
  /** The turn's file changes so far, for `turn_diff` (apply_patch records what it wrote). */
  readonly diffTracker: TurnDiff;
  emit(event: Event): void;
  /** The turn's telemetry, present only when `[otel]` exports (protocol/telemetry.ts). */
  readonly telemetry?: TurnTelemetry | undefined;
  /** The client's files (an ACP editor's buffers): the edit tool reads and writes through them. */
  readonly editorFiles?: EditorFiles | undefined;
  /**
   * Whether anyone listens for `exec_command_output_delta` (absent: assume so). Commands skip
   * copying their output into deltas nobody reads (the exec CLI shows only the end).
   */
  wantsOutputDeltas?(): boolean;
}

/**
 * What a PermissionRequest hook is asked about: a command's escalation, or an MCP tool call
 * that needs approval (`toolName` as the model calls it: `mcp__<server>__<tool>`).
 */
export type PermissionQuestion =
  | { kind: "exec"; command: string[]; justification: string | null }
  | {
      kind: "mcp";
      toolName: string;
      server: string;
      tool: string;
      arguments: Record<string, unknown> | null;
    };

/** A PermissionRequest hook's decision: allow, or deny with the hook's message. */
export type PermissionHookDecision = { allow: true } | { allow: false; message: string };

/** A call of a client tool, for the front-end to run. `arguments` is the parsed JSON. */
export interface ClientToolCall {
  callId: string;
  tool: string;
  arguments: unknown;
}

/** A question for the user: may this command run, may this patch be applied? */
export type ApprovalQuestion =
  /** `rule`: an exec-policy `prompt` rule asks (not an escalation or a sandbox retry). */
  | { kind: "exec"; callId: string; command: string[]; cwd: string; reason: string | null; rule?: boolean }
  | {
      kind: "patch";
      callId: string;
      changes: Record<string, FileChange>;
      reason: string | null;
      grantRoot: string | null;
    }
  | {
      /** A running command's request to a host the managed proxy blocked (allowlist miss). */
      kind: "network";
      callId: string;
      command: string[];
      cwd: string;
      host: string;
      protocol: NetworkApprovalProtocol;
      reason: string;
    }
  | {
      kind: "mcp";
      callId: string;
      server: string;
      tool: string;
      arguments: Record<string, unknown> | null;
      cwd: string;
      /** What the front-end shows: which server wants to run which tool. */
      reason: string;
    };

/** An MCP tool call for the policy layer to allow, ask about or refuse before it reaches the server. */
export interface McpCallApprovalRequest {
  inv: ToolInvocation;
  server: string;
  tool: string;
  arguments: Record<string, unknown> | null;
  /** The tool's effective `approval_mode`. */
  approvalMode: McpToolApprovalMode;
  /** The server annotated the tool `readOnlyHint: true`. */
  readOnly: boolean;
}

/** `allowed: false`: the server is never called; `message` is the model's output for the call. */
export type McpCallVerdict = { allowed: true } | { allowed: false; message: string };

/** A finished attempt's exit code and output, for spotting a sandbox denial. */
export interface AttemptOutcome {
  exitCode: number;
  output: string;
}

/** What one attempt of a command runs with, besides its argv. */
export interface AttemptContext {
  sandboxed: boolean;
  /** Variables to set over the command's environment (the managed proxy's); empty without one. */
  env: Readonly<Record<string, string>>;
  /** One sentence per host the managed proxy refused this attempt so far (what the model reads). */
  blockedHosts(): string[];
  /**
   * The attempt's process outlives the runner (a session still running): its proxy route stays
   * open until `exited` settles instead of closing when the runner returns.
   */
  holdUntil(exited: Promise<unknown>): void;
}

/** A command for the orchestrator to assess, maybe ask about, sandbox and run. */
export interface OrchestratedCommand<T> {
  command: string[];
  cwd: string;
  inv: ToolInvocation;
  /** The model asked to run outside the sandbox (`sandbox_permissions: "require_escalated"`). */
  escalation?: { justification?: string | undefined } | null | undefined;
  /** Runs one attempt: `argv` is the command, wrapped in the sandbox when `sandboxed`. */
  runner: (argv: string[], attempt: AttemptContext) => Promise<T>;
  /** A finished attempt's exit code and output; null when it cannot tell (still running). */
  outcome?: ((result: T) => AttemptOutcome | null) | undefined;
  /** Called once, before the first approval question or attempt (e.g. exec_command_begin). */
  onStart?: (() => void) | undefined;
  /** Whose wording an escalation rejection under `never` uses (default "shell"). */
  tool?: "shell" | "exec_command" | undefined;
  /**
   * Variables the model set for this command (local_shell's `env`). Any at all make the command
   * not known-safe: `BASH_FUNC_*`, `LD_PRELOAD`, `GIT_CONFIG_*`, ... turn a reader into anything.
   */
  modelEnv?: Readonly<Record<string, string>> | null | undefined;
}

/** `rejected`: nothing (more) runs; `message` is the model's output for the call. */
export type OrchestratedResult<T> =
  | { kind: "ran"; result: T; sandboxed: boolean }
  | { kind: "rejected"; message: string };

/** The policy layer's command runner: assess → maybe ask → pick the sandbox → run → retry. */
export interface CommandOrchestrator {
  run<T>(request: OrchestratedCommand<T>): Promise<OrchestratedResult<T>>;
  /** Approval for an MCP tool call (approval modes, readOnlyHint, the turn's policy). */
  approveMcpCall(request: McpCallApprovalRequest): Promise<McpCallVerdict>;
  /**
   * The argv that runs `command` under the turn's sandbox, or contained without one in
   * danger-full-access, asking nobody: a command the user typed (session/user-shell.ts). Throws
   * SandboxUnavailableError when the sandbox cannot start.
   */
  confine(command: string[], cwd: string, turn: TurnContext): Promise<string[]>;
}

export type ToolPayload =
  | { kind: "function"; arguments: string }
  | { kind: "custom"; input: string }
  | { kind: "local_shell"; action: LocalShellAction }
  | { kind: "mcp"; server: string; tool: string; rawArguments: string };

export type ToolKind = ToolPayload["kind"];

export interface ToolInvocation {
  readonly callId: string;
  readonly toolName: string;
  readonly payload: ToolPayload;
  /** The turn's context: policies, signal, events, and per-turn state such as the diff tracker. */
  readonly turn: TurnContext;
  /** This call's telemetry (present only with `[otel]`): policy reports its decision here. */
  readonly telemetry?: ToolTelemetry | undefined;
}

/**
 * What a call would change, for the approval gate to allow, ask about or reject before it runs:
 * a patch's changes and the absolute real paths it writes (symlinks resolved, move sources and
 * destinations included). Commands are not described here: the orchestrator decides them when
 * they run, since only then can it retry after a sandbox denial.
 */
export interface ApprovalRequest {
  kind: "patch";
  changes: Record<string, FileChange>;
  paths: string[];
}

/** How an allowed call was allowed: `asked` when a human (or client) approved it. */
export interface ApprovalOutcome {
  asked: boolean;
}

/** A call checked and planned by its handler, ready for the gate and then to run. */
export interface PreparedCall {
  /** What the call would change; absent when there is nothing for the gate to decide. */
  approval?: ApprovalRequest | undefined;
  /** Run the call; `approved` says how the gate allowed it (never called when it refused). */
  run(approved: ApprovalOutcome): Promise<ToolOutput>;
}

/** A handler's answer. `content` goes to the model as the call's output. */
export interface ToolOutput {
  content: string | InputContent[];
  success?: boolean;
  /** Items to add to history after the outputs (e.g. an image the model asked to see). */
  followUp?: InputContent[];
  /** What PostToolUse hooks get as `tool_response` when it is not the output text (MCP: the call result). */
  hookResponse?: unknown;
}

export interface ToolHandler {
  /** Which payload kinds this handler accepts (a mismatch is an error for the model). */
  readonly kinds: readonly ToolKind[];
  /**
   * Check and plan one call. Throw ToolError.respond when it cannot run at all (bad arguments,
   * a patch that does not verify): the model gets the text and nobody is asked. The prepared
   * call carries everything `run` needs (parsed arguments, plans), so nothing is parsed twice.
   * In `run`, throw ToolError for failures; anything else thrown is treated as fatal.
   */
  prepare(invocation: ToolInvocation): Promise<PreparedCall>;
}

/** A prepared call that needs no approval. */
export function runsAsIs(run: () => Promise<ToolOutput>): PreparedCall {
  return { run };
}

export interface ToolDefinition {
  spec: ToolSpec;
  handler: ToolHandler;
  /** May run concurrently with other parallel-safe calls of the same response. */
  supportsParallel: boolean;
  /** An MCP server's tool: the router turns function calls of this name into `mcp` payloads. */
  mcpTool?: { server: string; tool: string };
  /** A client's tool (see tools/client-tools.ts). */
  clientTool?: boolean;
}

/** The name calls use: a function or custom tool's name, else the spec type (local_shell, web_search). */
export function toolName(definition: ToolDefinition): string {
  const { spec } = definition;
  return spec.type === "function" || spec.type === "custom" ? spec.name : spec.type;
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
