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

import { describeBlock } from "../network-proxy/blocked.js";
import type { ProxyBlock } from "../network-proxy/types.js";
import type { Permissions } from "../protocol/permissions.js";
import type {
  AttemptContext,
  AttemptOutcome,
  CommandOrchestrator,
  McpCallApprovalRequest,
  McpCallVerdict,
  OrchestratedCommand,
  OrchestratedResult,
  ToolInvocation,
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
import { openCommandSandbox } from "./sandbox/command-sandbox.js";
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
  /** Hosts approved for one turn (turn id + host); the session's live in the store. */
  private readonly turnHosts = new Set<string>();
  /** Network questions wait for each other: they may share a command's call id. */
  private questions: Promise<unknown> = Promise.resolve();

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
    if (plan.action === "reject") {
      inv.telemetry?.decision("denied", "Config");
      return { kind: "rejected", message: plan.message };
    }

    let started = false;
    const start = (): void => {
      if (started) return;
      started = true;
      request.onStart?.();
    };
    // PermissionRequest hooks decide first; only when none does is a person asked.
    const ask = async (
      reason: string | null,
      rule = false,
    ): Promise<{ approved: boolean; message: string }> => {
      start();
      const justification = request.escalation?.justification ?? reason;
      const hook = await turn.permissionHook?.({
        kind: "exec",
        command,
        justification: justification ?? null,
      });
      if (hook) {
        inv.telemetry?.decision(hook.allow ? "approved" : "denied", "Hook");
        return hook.allow
          ? { approved: true, message: "" }
          : { approved: false, message: hookRejection(hook.message) };
      }
      const question = {
        kind: "exec" as const,
        callId: inv.callId,
        command,
        cwd,
        reason,
        ...(rule ? { rule } : {}),
      };
      const decision = await this.store.ask(turn, question);
      inv.telemetry?.decision(decision, "User");
      // Automatic review says why it turned the command down; a person's "no" is Codex's text.
      const message = turn.approvalNote?.(inv.callId) ?? EXEC_REJECTED_BY_USER;
      return { approved: isApproved(decision), message };
    };

    if (plan.action === "ask") {
      const answer = await ask(plan.reason, plan.rule === true);
      if (!answer.approved) return { kind: "rejected", message: answer.message };
    }
    const sandboxed = !plan.escalated && turn.sandboxMode !== "danger-full-access";
    let first: PreparedAttempt;
    try {
      first = await this.prepareAttempt(command, cwd, inv, sandboxed);
    } catch (error) {
      if (error instanceof SandboxUnavailableError) return { kind: "rejected", message: error.message };
      throw error;
    }
    start();
    const firstResult = await first.run(request.runner);
    if (!sandboxed || !plan.retryOnDenial || turn.signal.aborted)
      return { kind: "ran", result: firstResult, sandboxed };
    if (!this.deniedBySandbox(request.outcome?.(firstResult) ?? null))
      return { kind: "ran", result: firstResult, sandboxed };

    const retry = await ask(RETRY_WITHOUT_SANDBOX_REASON);
    if (!retry.approved) return { kind: "rejected", message: retry.message };
    const second = await this.prepareAttempt(command, cwd, inv, false);
    return { kind: "ran", result: await second.run(request.runner), sandboxed: false };
  }

  /**
   * The argv that runs `command` under the turn's sandbox (contained only without one). A
   * proxied network cannot be handed on with an argv alone: here it is none (narrower, never wider).
   */
  async confine(command: string[], cwd: string, turn: TurnContext): Promise<string[]> {
    if (turn.sandboxMode === "danger-full-access") return this.contain(command);
    const { permissions } = turn;
    const offline: Permissions =
      permissions.kind === "sandboxed" && permissions.network.kind === "proxied"
        ? { ...permissions, network: { kind: "none" } }
        : permissions;
    const sandbox = await openCommandSandbox(offline, this.sandboxContext(cwd, turn));
    if (!sandbox.policy) return this.contain(command);
    return (await this.prepare(command, cwd, sandbox.policy, { backend: this.backend })).argv;
  }

  /**
   * One attempt: sandboxed, the sandbox's argv and the proxy's variables (its route open while
   * the process runs, its blocks collected for the model, an allowlist miss asked about as a
   * network question); else contained only, without the proxy (an approved escalation).
   */
  private async prepareAttempt(
    command: string[],
    cwd: string,
    inv: ToolInvocation,
    sandboxed: boolean,
  ): Promise<PreparedAttempt> {
    const { turn } = inv;
    if (!sandboxed) return attemptOf(await this.contain(command), false, {}, null);
    const blocked = new BlockedHosts();
    const sandbox = await openCommandSandbox(turn.permissions, {
      ...this.sandboxContext(cwd, turn),
      onBlock: (block) => blocked.add(block),
      allowMiss: (block) => this.allowHost(block, command, cwd, inv),
    });
    try {
      const argv = sandbox.policy
        ? (await this.prepare(command, cwd, sandbox.policy, { backend: this.backend })).argv
        : await this.contain(command);
      return attemptOf(argv, true, sandbox.env, { blocked, release: sandbox.release });
    } catch (error) {
      await sandbox.release();
      throw error;
    }
  }

  private sandboxContext(cwd: string, turn: TurnContext) {
    return {
      cwd,
      tmpdir: turn.shellEnvironment.env.TMPDIR || null,
      protectedPaths: this.protectedPaths,
      allowUnixSockets: this.allowUnixSockets,
    };
  }

  /**
   * A host no allow entry matches: allowed when approved for this turn or the session, asked
   * about where the approval policy lets the model ask (a PermissionRequest hook first), else
   * blocked. One question at a time: a command's questions share its call id.
   */
  private allowHost(
    block: ProxyBlock,
    command: string[],
    cwd: string,
    inv: ToolInvocation,
  ): Promise<boolean> {
    const { turn } = inv;
    const key = `${turn.turnId}\u0000${block.host}`;
    if (this.turnHosts.has(key)) return Promise.resolve(true);
    if (turn.approvalPolicy === "never" && !turn.permissionHook) return Promise.resolve(false);
    const asking = this.questions.then(async () => {
      if (this.turnHosts.has(key)) return true;
      const hook = await turn.permissionHook?.({
        kind: "exec",
        command,
        justification: `network access to ${block.host}`,
      });
      if (hook) return hook.allow;
      if (turn.approvalPolicy === "never") return false;
      const question = {
        kind: "network" as const,
        callId: inv.callId,
        command,
        cwd,
        host: block.host,
        protocol: block.protocol,
        reason: `${block.host} is not on the network allowlist; allow this command to reach it?`,
      };
      const approved = isApproved(await this.store.ask(turn, question));
      if (approved) this.turnHosts.add(key);
      return approved;
    });
    this.questions = asking.catch(() => false);
    return asking;
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

/** An attempt ready to run: its argv, and what its runner gets besides. */
interface PreparedAttempt {
  run<T>(runner: (argv: string[], attempt: AttemptContext) => Promise<T>): Promise<T>;
}

function attemptOf(
  argv: string[],
  sandboxed: boolean,
  env: Readonly<Record<string, string>>,
  network: { blocked: BlockedHosts; release: () => Promise<void> } | null,
): PreparedAttempt {
  return {
    async run(runner) {
      const held: { until: Promise<unknown> | null } = { until: null };
      const context: AttemptContext = {
        sandboxed,
        env,
        blockedHosts: () => network?.blocked.sentences() ?? [],
        holdUntil: (exited) => {
          held.until = exited;
        },
      };
      try {
        return await runner(argv, context);
      } finally {
        // The route closes when the process is done: now, or when a held session exits.
        const release = network?.release;
        if (release && held.until) void held.until.finally(release);
        else if (release) await release();
      }
    },
  };
}

/** The hosts the proxy refused for one attempt, one sentence each, in the order refused. */
class BlockedHosts {
  private readonly seen = new Map<string, string>();

  add(block: ProxyBlock): void {
    const key = `${block.host}\u0000${block.reason}`;
    if (!this.seen.has(key)) this.seen.set(key, describeBlock(block));
  }

  sentences(): string[] {
    return [...this.seen.values()];
  }
}
