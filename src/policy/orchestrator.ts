/**
 * The orchestrator: how every command a tool runs goes through policy.
 *
 * Responsibilities: classify the command (exec-policy rules, known-safe list), decide
 * (approval.ts), ask the user when needed (through the turn, bounded, with session memory),
 * pick the sandbox, run, and on a sandbox denial offer an unsandboxed retry where the policy
 * allows asking.
 *
 * Flow: classify → plan → [reject] | [ask → denied: reject] → sandbox (read-only /
 * workspace-write: prepareSandboxedCommand; danger-full-access or an approved escalation:
 * unsandboxed, but contained: what it starts ends with it) → run → [sandboxed, denied by the sandbox, retry allowed: ask "command failed;
 * retry without sandbox?" → approved: run unsandboxed] → result. The model sees only the final
 * attempt. When no sandbox backend works, the model gets SandboxUnavailableError's message:
 * nothing runs unsandboxed unless policy or the user said so.
 */
import type {
  AttemptOutcome,
  CommandOrchestrator,
  McpCallApprovalRequest,
  McpCallVerdict,
  OrchestratedCommand,
  OrchestratedResult,
  TurnContext,
} from "../tools/types.js";
import {
  type CommandSafety,
  classifyCommand,
  EXEC_REJECTED_BY_USER,
  planExec,
  RETRY_WITHOUT_SANDBOX_REASON,
} from "./approval.js";
import { ApprovalStore, isApproved } from "./approval-store.js";
import { ExecPolicy } from "./exec-policy.js";
import { approveMcpCall } from "./mcp-approval.js";
import {
  containCommand,
  isLikelySandboxDenial,
  type PreparedCommand,
  type PrepareOptions,
  prepareSandboxedCommand,
  type SandboxBackendChoice,
  type SandboxPolicy,
  SandboxUnavailableError,
} from "./sandbox/index.js";

export interface OrchestratorOptions {
  rules?: ExecPolicy | undefined;
  /** Config `sandbox_backend`; "auto" (default) lets the sandbox runtime pick. */
  backend?: SandboxBackendChoice | undefined;
  /** Paths kept read-only in every sandbox (the tscodex home). */
  protectedPaths?: readonly string[] | undefined;
  /** Config `sandbox_allow_unix_sockets`. */
  allowUnixSockets?: boolean | undefined;
  /** Session memory; share it with the thread's gate. */
  store?: ApprovalStore;
  /** Test seams: the sandbox wrapper and the denial heuristic. */
  prepare?:
    | ((
        argv: string[],
        cwd: string,
        policy: SandboxPolicy,
        options: PrepareOptions,
      ) => Promise<PreparedCommand>)
    | undefined;
  /** Test seam: the containment of unsandboxed commands (sandbox/contain.ts). */
  contain?: ((argv: string[]) => Promise<string[]>) | undefined;
  isDenial?: (exitCode: number, output: string) => boolean;
}

/** The thread's orchestrator (one per thread: it holds that thread's session approvals). */
export class PolicyOrchestrator implements CommandOrchestrator {
  readonly store: ApprovalStore;
  private readonly rules: ExecPolicy;
  private readonly backend: SandboxBackendChoice;
  private readonly protectedPaths: readonly string[];
  private readonly allowUnixSockets: boolean;
  private readonly prepare: NonNullable<OrchestratorOptions["prepare"]>;
  private readonly contain: NonNullable<OrchestratorOptions["contain"]>;
  private readonly isDenial: NonNullable<OrchestratorOptions["isDenial"]>;

  constructor(options: OrchestratorOptions = {}) {
    this.store = options.store ?? new ApprovalStore();
    this.rules = options.rules ?? ExecPolicy.empty();
    this.backend = options.backend ?? "auto";
    this.protectedPaths = options.protectedPaths ?? [];
    this.allowUnixSockets = options.allowUnixSockets ?? false;
    this.prepare = options.prepare ?? prepareSandboxedCommand;
    this.contain = options.contain ?? containCommand;
    this.isDenial = options.isDenial ?? isLikelySandboxDenial;
  }

  async run<T>(request: OrchestratedCommand<T>): Promise<OrchestratedResult<T>> {
    const { command, cwd, inv } = request;
    const { turn } = inv;
    const plan = planExec({
      safety: withModelEnv(classifyCommand(command, this.rules), request.modelEnv),
      approvalPolicy: turn.approvalPolicy,
      sandboxMode: turn.sandboxMode,
      escalation: request.escalation ?? null,
      tool: request.tool ?? "shell",
    });
    if (plan.action === "reject") return { kind: "rejected", message: plan.message };

    let started = false;
    const start = (): void => {
      if (started) return;
      started = true;
      request.onStart?.();
    };
    // PermissionRequest hooks decide first; only when none does is a person asked.
    const ask = async (reason: string | null): Promise<{ approved: boolean; message: string }> => {
      start();
      const justification = request.escalation?.justification ?? reason;
      const hook = await turn.permissionHook?.({
        kind: "exec",
        command,
        justification: justification ?? null,
      });
      if (hook)
        return hook.allow
          ? { approved: true, message: "" }
          : { approved: false, message: hookRejection(hook.message) };
      const question = { kind: "exec" as const, callId: inv.callId, command, cwd, reason };
      return { approved: isApproved(await this.store.ask(turn, question)), message: EXEC_REJECTED_BY_USER };
    };

    if (plan.action === "ask") {
      const answer = await ask(plan.reason);
      if (!answer.approved) return { kind: "rejected", message: answer.message };
    }
    const sandboxed = !plan.escalated && turn.sandboxMode !== "danger-full-access";
    let argv: string[];
    try {
      argv = await this.argvFor(command, cwd, turn, sandboxed);
    } catch (error) {
      if (error instanceof SandboxUnavailableError) return { kind: "rejected", message: error.message };
      throw error;
    }
    start();
    const first = await request.runner(argv, { sandboxed });
    if (!sandboxed || !plan.retryOnDenial || turn.signal.aborted)
      return { kind: "ran", result: first, sandboxed };
    if (!this.deniedBySandbox(request.outcome?.(first) ?? null))
      return { kind: "ran", result: first, sandboxed };

    const retry = await ask(RETRY_WITHOUT_SANDBOX_REASON);
    if (!retry.approved) return { kind: "rejected", message: retry.message };
    const second = await request.runner(await this.contain(command), { sandboxed: false });
    return { kind: "ran", result: second, sandboxed: false };
  }

  confine(command: string[], cwd: string, turn: TurnContext): Promise<string[]> {
    return this.argvFor(command, cwd, turn, turn.sandboxMode !== "danger-full-access");
  }

  /** Sandboxed: the sandbox's argv (protected paths read-only); else contained only. */
  private async argvFor(command: string[], cwd: string, turn: TurnContext, sandboxed: boolean) {
    // No sandbox, but what the command starts still ends with it.
    if (!sandboxed) return this.contain(command);
    const policy = {
      ...sandboxPolicyOf(turn),
      readOnlyPaths: this.protectedPaths,
      allowUnixSockets: this.allowUnixSockets,
    };
    return (await this.prepare(command, cwd, policy, { backend: this.backend })).argv;
  }

  /** MCP tool calls take the same approval path and session memory (mcp-approval.ts). */
  approveMcpCall(request: McpCallApprovalRequest): Promise<McpCallVerdict> {
    return approveMcpCall(this.store, request);
  }

  private deniedBySandbox(outcome: AttemptOutcome | null): boolean {
    return outcome !== null && this.isDenial(outcome.exitCode, outcome.output);
  }
}

/** What the model gets when a PermissionRequest hook denies (Codex's wording). */
function hookRejection(message: string): string {
  return `exec_command failed: CreateProcess { message: "Rejected(\\"${message}\\")" }`;
}

/** A command run with model-chosen variables is never trusted (rules may still forbid or ask). */
function withModelEnv(
  safety: CommandSafety,
  modelEnv: Readonly<Record<string, string>> | null | undefined,
): CommandSafety {
  if (safety.kind !== "trusted" || !modelEnv || Object.keys(modelEnv).length === 0) return safety;
  return { kind: "unknown" };
}

/**
 * The sandbox policy of a turn (writable roots only count in workspace-write). Only a full
 * network reaches the host's: a proxied one never does.
 */
export function sandboxPolicyOf(turn: TurnContext): SandboxPolicy {
  const { permissions } = turn;
  return {
    mode: turn.sandboxMode,
    writableRoots: turn.sandboxMode === "workspace-write" ? [...turn.writableRoots] : [],
    networkAccess: permissions.kind === "danger-full-access" || permissions.network.kind === "full",
  };
}
