/**
 * A thread's sub-agents: the children its model starts with spawn_agent, run concurrently as
 * threads of their own (recorded, resumable), steered with send_input / wait / resume_agent /
 * close_agent.
 *
 * Responsibilities: enforce the limits (depth, concurrent children), resolve named agents,
 * track each child's status, report the lifecycle into the parent's stream (agent_spawned,
 * agent_status, agent_finished, and the child's own events as agent_event), forward a child's
 * approval questions to the parent's front-end under an `<agent id>/<call id>` id and route the
 * answers back, and never orphan a child: the parent's interrupted turns interrupt running
 * children, and the parent's shutdown closes them all.
 */
import { type AgentStatus, isFinal } from "../protocol/agents.js";
import type { Event } from "../protocol/events.js";
import { developerMessage } from "../protocol/items.js";
import type { Permissions } from "../protocol/permissions.js";
import { narrowPermissions } from "../protocol/permissions-legacy.js";
import type { SandboxMode } from "../protocol/policy.js";
import { SANDBOX_MODES } from "../protocol/policy-names.js";
import type { TraceCarrier } from "../protocol/telemetry.js";
import type { AgentCollab, SpawnRequest } from "../tools/builtin/agents.js";
import { ToolError, type TurnContext } from "../tools/types.js";
import { errorMessage } from "../util/errors.js";
import { resourceKey, type ScopedResource } from "../util/resource-scope.js";
import type { ForwardedAnswer, Thread } from "./thread.js";

export interface AgentLimits {
  /** How deep children may nest: 1 lets the top thread spawn, and its children not. */
  maxDepth: number;
  /** Children running at once, per parent. */
  maxConcurrent: number;
}

export const DEFAULT_AGENT_LIMITS: AgentLimits = { maxDepth: 1, maxConcurrent: 4 };

/** A named agent (`[agents.NAME]` or `$TSCODEX_HOME/agents/NAME.toml`). */
export interface AgentProfile {
  model?: string | undefined;
  reasoningEffort?: string | undefined;
  developerInstructions?: string | undefined;
  sandboxMode?: SandboxMode | undefined;
  /** Tool names the agent may use; absent: all of the parent's. */
  tools?: string[] | undefined;
}

/** What a child thread is opened with. */
export interface ChildThreadOptions {
  parentId: string;
  depth: number;
  agentType: string | null;
  cwd: string;
  approvalPolicy: TurnContext["approvalPolicy"];
  /** The parent turn's permissions, narrowed to the agent's sandbox_mode: never wider. */
  permissions: Permissions;
  profile: AgentProfile | null;
}

/** The ThreadManager's side: open, reopen and close threads. */
export interface AgentHost {
  openChild(options: ChildThreadOptions): Promise<Thread>;
  /** A stored child of `parentId`; throws when `id` is no such child. */
  reopenChild(id: string, parentId: string): Promise<Thread>;
  /** Shut a thread down and flush its rollout; it stays on disk. */
  closeThread(id: string): Promise<void>;
}

interface Child {
  thread: Thread;
  status: AgentStatus;
  /** Turns submitted and not yet ended: the child is working while this is above 0. */
  active: number;
  /** Turns given so far: a submission id is the child's id and this number. */
  submissions: number;
  /** Resolvers of `wait` calls watching this child. */
  watchers: Set<() => void>;
  /** The parent turn that started it, and its type, for the SubagentStart / SubagentStop hooks. */
  hookTurn: string;
  agentType: string;
  /** A SubagentStop hook sent it back to work: the next stop says so. */
  stopHookActive: boolean;
  unsubscribe: () => void;
}

const AGENTS = resourceKey<AgentControl>("sub-agents");

export class AgentControl implements AgentCollab, ScopedResource {
  private readonly children = new Map<string, Child>();
  private parent: Thread | null = null;
  /** Spawns past the limit check and not yet running (parallel spawn calls count them too). */
  private starting = 0;

  constructor(
    private readonly host: AgentHost,
    private readonly depth: number,
    private readonly limits: AgentLimits,
    private readonly profiles: (name: string) => Promise<AgentProfile | null>,
  ) {}

  /** Bind to the parent thread once it exists. */
  attach(parent: Thread): void {
    this.parent = parent;
    parent.routeAnswers((agentId, callId, answer) => this.route(agentId, callId, answer));
    parent.subscribe(
      (event) => {
        if (event.type !== "turn_aborted") return;
        for (const child of this.children.values()) if (child.active > 0) child.thread.interrupt();
      },
      { outputDeltas: false },
    );
  }

  async spawn(request: SpawnRequest, turn: TurnContext): Promise<string> {
    const parent = this.requireParent();
    if (this.depth + 1 > this.limits.maxDepth) {
      throw ToolError.respond(
        `spawn_agent refused: agents at depth ${this.depth} cannot start sub-agents (max depth ${this.limits.maxDepth})`,
      );
    }
    const running = [...this.children.values()].filter((child) => child.active > 0).length + this.starting;
    if (running >= this.limits.maxConcurrent) {
      throw ToolError.respond(
        `spawn_agent refused: ${running} sub-agents are already running (limit ${this.limits.maxConcurrent}); wait for one or close one first`,
      );
    }
    this.starting += 1;
    try {
      return await this.start(parent, request, turn);
    } finally {
      this.starting -= 1;
    }
  }

  private async start(parent: Thread, request: SpawnRequest, turn: TurnContext): Promise<string> {
    let profile: AgentProfile | null = null;
    try {
      profile = request.agentType ? await this.profiles(request.agentType) : null;
    } catch (error) {
      throw ToolError.respond(
        `spawn_agent refused: agent_type '${request.agentType}': ${errorMessage(error)}`,
      );
    }
    if (request.agentType && !profile) {
      throw ToolError.respond(`spawn_agent refused: unknown agent_type '${request.agentType}'`);
    }
    const sandboxMode = profile?.sandboxMode ?? turn.sandboxMode;
    if (SANDBOX_MODES.indexOf(sandboxMode) > SANDBOX_MODES.indexOf(turn.sandboxMode)) {
      throw ToolError.respond(
        `spawn_agent refused: agent_type '${request.agentType}' asks for sandbox_mode '${sandboxMode}', wider than this agent's '${turn.sandboxMode}'; a sub-agent's sandbox is at most its parent's`,
      );
    }
    // The parent's shutdown closes its children (its resource scope is disposed then).
    turn.resources.use(AGENTS, () => this);
    const thread = await this.host.openChild({
      parentId: parent.id,
      depth: this.depth + 1,
      agentType: request.agentType,
      cwd: turn.cwd,
      approvalPolicy: turn.approvalPolicy,
      permissions: narrowPermissions(turn.permissions, sandboxMode),
      profile,
    });
    const child = this.track(thread);
    child.hookTurn = turn.turnId;
    child.agentType = request.agentType ?? "default";
    // The hooks' contexts reach the child as Codex records them: developer messages after its
    // initial context, before its first prompt.
    const contexts = await parent.subagentStart(turn.turnId, { id: thread.id, type: child.agentType });
    if (contexts.length > 0) await thread.importHistory(contexts.map(developerMessage));
    this.publish({
      type: "agent_spawned",
      agent_id: thread.id,
      agent_type: request.agentType,
      message: request.message,
      depth: this.depth + 1,
    });
    this.submit(thread.id, request.message, request.trace);
    return thread.id;
  }

  async send(id: string, message: string, interrupt: boolean, trace?: TraceCarrier): Promise<string> {
    const child = this.children.get(id);
    if (!child) throw ToolError.respond(`send_input failed: no sub-agent with id ${id}`);
    if (child.status === "shutdown") {
      throw ToolError.respond(`send_input failed: sub-agent ${id} is closed; call resume_agent first`);
    }
    if (interrupt && child.active > 0) child.thread.interrupt();
    return this.submit(id, message, trace);
  }

  async resume(id: string, turn: TurnContext): Promise<AgentStatus> {
    const known = this.children.get(id);
    if (known && known.status !== "shutdown") return known.status;
    const parent = this.requireParent();
    let thread: Thread;
    try {
      thread = await this.host.reopenChild(id, parent.id);
    } catch (error) {
      throw ToolError.respond(`resume_agent failed: ${errorMessage(error)}`, { cause: error });
    }
    turn.resources.use(AGENTS, () => this);
    known?.unsubscribe();
    const child = this.track(thread);
    child.status = { completed: null };
    this.publish({ type: "agent_status", agent_id: id, status: child.status });
    return child.status;
  }

  wait(
    ids: string[],
    timeoutMs: number,
    signal: AbortSignal,
  ): Promise<{ status: Record<string, AgentStatus>; timedOut: boolean }> {
    const finished = () => {
      const status: Record<string, AgentStatus> = {};
      for (const id of ids) {
        const current = this.statusOf(id);
        if (isFinal(current)) status[id] = current;
      }
      return status;
    };
    const now = finished();
    if (Object.keys(now).length > 0 || ids.length === 0)
      return Promise.resolve({ status: now, timedOut: false });
    return new Promise((resolve) => {
      const done = (timedOut: boolean) => {
        clearTimeout(timer);
        signal.removeEventListener("abort", onAbort);
        for (const id of ids) this.children.get(id)?.watchers.delete(check);
        resolve({ status: finished(), timedOut });
      };
      const check = () => {
        if (Object.keys(finished()).length > 0) done(false);
      };
      const onAbort = () => done(false);
      const timer = setTimeout(() => done(true), timeoutMs);
      signal.addEventListener("abort", onAbort, { once: true });
      for (const id of ids) this.children.get(id)?.watchers.add(check);
    });
  }

  async close(id: string): Promise<AgentStatus> {
    const child = this.children.get(id);
    if (!child) return "not_found";
    const before = child.status;
    if (before === "shutdown") return before;
    await this.host.closeThread(id);
    // Closing a child mid-work ends that work; closing a finished one only changes its status.
    this.setStatus(id, child, "shutdown", isFinal(before) ? "agent_status" : "agent_finished");
    return before;
  }

  /** The parent shut down: close every child still open. */
  async dispose(): Promise<void> {
    const open = [...this.children.entries()].filter(([, child]) => child.status !== "shutdown");
    await Promise.all(open.map(([id]) => this.close(id).catch(() => undefined)));
  }

  private statusOf(id: string): AgentStatus {
    return this.children.get(id)?.status ?? "not_found";
  }

  private track(thread: Thread): Child {
    const child: Child = {
      thread,
      status: "pending_init",
      active: 0,
      submissions: 0,
      watchers: new Set(),
      unsubscribe: () => {},
      hookTurn: "",
      agentType: "default",
      stopHookActive: false,
    };
    child.unsubscribe = thread.subscribe((event) => this.forward(thread.id, event));
    this.children.set(thread.id, child);
    return child;
  }

  /** Queue a turn on the child; its status follows the turns until the last one ends. */
  private submit(id: string, message: string, trace?: TraceCarrier): string {
    const child = this.children.get(id);
    if (!child) throw ToolError.respond(`no sub-agent with id ${id}`);
    child.active += 1;
    if (child.status !== "running") this.setStatus(id, child, "running", "agent_status");
    child.submissions += 1;
    const submission = `${id}:${child.submissions}`;
    const stream = child.thread.runStreamed({ text: message }, trace ? { trace } : undefined);
    void stream.result().then(
      async (result) => {
        if (result.status === "completed" && child.active === 1 && this.parent) {
          const active = child.stopHookActive;
          const reason = await this.parent.subagentStop(child.hookTurn, {
            id,
            type: child.agentType,
            transcriptPath: child.thread.transcriptPath,
            lastMessage: result.finalResponse,
            active,
          });
          child.stopHookActive = reason !== null;
          if (reason !== null && child.status !== "shutdown") {
            child.active -= 1;
            this.submit(id, reason);
            return;
          }
        }
        child.active -= 1;
        if (child.active > 0 || child.status === "shutdown") return;
        const status: AgentStatus =
          result.status === "completed"
            ? { completed: result.finalResponse }
            : result.status === "interrupted"
              ? "interrupted"
              : { errored: result.error ?? "the sub-agent's turn failed" };
        this.setStatus(id, child, status, "agent_finished");
      },
      () => {
        child.active -= 1;
      },
    );
    return submission;
  }

  private setStatus(
    id: string,
    child: Child,
    status: AgentStatus,
    type: "agent_status" | "agent_finished",
  ): void {
    child.status = status;
    this.publish({ type, agent_id: id, status });
    for (const watcher of [...child.watchers]) watcher();
  }

  /**
   * A child's event into the parent's stream. Its questions (approvals, request_user_input) go
   * out as the parent's own with the asking agent's `agent_id`, so any front-end answers them as
   * it answers the parent's, passing that field back (Thread.approve / answerUserInput).
   */
  private forward(id: string, event: Event): void {
    if (
      event.type === "exec_approval_request" ||
      event.type === "apply_patch_approval_request" ||
      event.type === "request_user_input"
    ) {
      // The deepest asker keeps its id: a grandchild's question passes through its parent.
      this.publish({ ...event, agent_id: event.agent_id ?? id });
      return;
    }
    this.publish({ type: "agent_event", agent_id: id, event });
  }

  /** An answer for sub-agent `agentId`: a child of ours, or one of their descendants. */
  private route(agentId: string, callId: string, answer: ForwardedAnswer): boolean {
    const child = this.children.get(agentId);
    if (!child) {
      return [...this.children.values()].some((other) => other.thread.routeAnswer(agentId, callId, answer));
    }
    if ("approval" in answer) child.thread.approve(callId, answer.approval);
    else child.thread.answerUserInput(callId, answer.userInput);
    return true;
  }

  private publish(event: Event): void {
    this.parent?.publish(event);
  }

  private requireParent(): Thread {
    if (!this.parent) throw ToolError.fatal("sub-agents need their parent thread");
    return this.parent;
  }
}
