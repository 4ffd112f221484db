/**
 * The library API.
 *   const agent = new Tscodex();
 *   const thread = agent.startThread({ cwd: "/repo" });
 *   for await (const event of thread.runStreamed("fix the failing test")) { ... }
 *   const { finalResponse } = await thread.run("and add a test for it");
 * Approvals (asking policies): pass `onApproval` to startThread, or answer the
 * exec_approval_request / apply_patch_approval_request events with thread.approve(callId, decision);
 * unanswered questions are denied after `approval_timeout_ms` (default 120 s).
 * Client tools: `startThread({ tools: [{ name, description, parameters, handler }] })` or per turn
 * `thread.run(prompt, { tools })`; a handler runs in process (a throw is a failed call the model
 * reads). Tools without a handler are answered from the stream with thread.respondToTool().
 * Threads are recorded under $TSCODEX_HOME/sessions: `agent.resumeThread(id)` continues one,
 * `agent.forkThread(id, { turns })` copies one, `agent.listThreads()` lists them; `agent.close()`
 * shuts live threads down and flushes their rollouts.
 * The CLI and the servers are built on the same pieces.
 */
import { type Config, type LoadOptions, loadConfig } from "./config/load.js";
import type { ConfigOverride } from "./config/overrides.js";
import { type QuestionResponders, questionRouter } from "./frontends/common/turn-driver.js";
import type { HookCallbacks, ThreadStartSource } from "./hooks/index.js";
import type { UserInputReply } from "./protocol/agents.js";
import type { ClientToolResult, ClientToolSpec } from "./protocol/client-tools.js";
import { clientToolResultSchema } from "./protocol/client-tools-schema.js";
import type {
  ApprovalRequestEvent,
  ElicitationResult,
  Event,
  EventOf,
  ReviewDecision,
} from "./protocol/events.js";
import type { ApprovalPolicy, SandboxMode } from "./protocol/policy.js";
import type { Telemetry } from "./protocol/telemetry.js";
import type { Thread, TurnOverrides, TurnResult, UserInput } from "./session/thread.js";
import { type OpenThreadOptions, ThreadManager } from "./session/thread-manager.js";
import { openThreadStore, type ThreadSummary } from "./store/index.js";
import { workingDirectoryProblemSync } from "./util/directory.js";
import { EventStream } from "./util/event-stream.js";
import { uuidv7 } from "./util/ids.js";

export interface TscodexOptions {
  /** Config home (default $TSCODEX_HOME or ~/.tscodex). */
  home?: string;
  profile?: string;
  /** Dotted-key overrides, as `-c key=value` on the CLI: `{ "model_provider": "oss" }`. */
  config?: Record<string, unknown>;
  env?: NodeJS.ProcessEnv;
  /** Idle time before a live thread leaves memory (it stays on disk); default 30 min. */
  sessionTtlMs?: number;
  /** false: do not record threads (they cannot be resumed). Default true. */
  persist?: boolean;
}

export interface ThreadOptions {
  cwd?: string;
  model?: string;
  sandboxMode?: SandboxMode;
  approvalPolicy?: ApprovalPolicy;
  baseInstructions?: string;
  developerInstructions?: string;
  /**
   * Answers approval questions (commands, patches) as they come. A throw or rejection counts
   * as "denied". Without it, answer the request events with AgentThread.approve().
   */
  onApproval?: ApprovalHandler;
  /** Tools of this program that the model may call (see LibraryTool). */
  tools?: LibraryTool[];
  /**
   * Answers the model's questions (`request_user_input`, feature `collaboration_modes`): the
   * answers by question id, "declined", or null when nobody can answer. A throw counts as null.
   * Without it, answer the `request_user_input` events with AgentThread.answerUserInput().
   */
  onUserInput?: UserInputHandler;
  /**
   * Answers an MCP server's elicitation (`elicitation_request`: a form to fill in or a URL to
   * open) during one of its tool calls. A throw counts as decline. Without it, answer the
   * events with AgentThread.answerElicitation(); unanswered ones are declined after the bound.
   */
  onElicitation?: ElicitationHandler;
  /**
   * Hooks as callbacks, run in process with Codex's payload (beside the configured command
   * hooks, and trusted as the program's own code): `{ PreToolUse: async (input) => ({
   * hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "deny",
   * permissionDecisionReason: "no" } }) }`. They answer as a command hook's stdout would.
   */
  hooks?: HookCallbacks;
}

/** What a new thread is started with: ThreadOptions, and why its session starts. */
export interface StartThreadOptions extends ThreadOptions {
  /**
   * SessionStart hooks' `source`: "clear" when this thread replaces one the user cleared
   * (Codex's `/clear`); default "startup".
   */
  sessionStartSource?: ThreadStartSource;
}

/** Answers one elicitation_request event. */
export type ElicitationHandler = (
  request: EventOf<"elicitation_request">,
) => ElicitationResult | Promise<ElicitationResult>;

/** Answers one request_user_input event. */
export type UserInputHandler = (
  request: EventOf<"request_user_input">,
) => UserInputReply | Promise<UserInputReply>;

/** What a library tool's handler knows about its call. */
export interface LibraryToolContext {
  callId: string;
  threadId: string;
  turnId: string;
}

/**
 * A tool the calling program brings. `parameters` is any JSON Schema (repaired as MCP schemas
 * are). `handler` runs in process: a string is the output, a ClientToolResult is passed as is,
 * anything else is sent as JSON; a throw or rejection is a failed call whose message the model
 * reads. Without a handler, answer `client_tool_call_request` events with respondToTool().
 */
export interface LibraryTool<Args = Record<string, unknown>> {
  name: string;
  description?: string;
  parameters?: Record<string, unknown>;
  /** The call's arguments as the model sent them (typed from `parameters` by clientTool()). */
  handler?(args: Args, context: LibraryToolContext): unknown;
}

/*
 * A library tool's handler arguments typed from its JSON Schema: `clientTool({ parameters: { type:
 * "object", properties: { id: { type: "string" } }, required: ["id"] }, handler: async ({ id }) =>
 * ... })` gives `id: string`. Covers what tool schemas use (object, string, number, integer,
 * boolean, null, array, enum); anything else is `unknown`, which the handler then narrows.
 */

/** The TypeScript type of a value valid against JSON Schema `S` (as far as the schema says). */
export type JsonSchemaValue<S> = S extends { enum: readonly (infer E)[] }
  ? E
  : S extends { type: "string" }
    ? string
    : S extends { type: "number" | "integer" }
      ? number
      : S extends { type: "boolean" }
        ? boolean
        : S extends { type: "null" }
          ? null
          : S extends { type: "array"; items: infer Item }
            ? JsonSchemaValue<Item>[]
            : S extends { type: "array" }
              ? unknown[]
              : S extends { type: "object"; properties: infer Props }
                ? ObjectValue<Props, S extends { required: readonly (infer R)[] } ? R : never>
                : S extends { type: "object" }
                  ? Record<string, unknown>
                  : unknown;

type ObjectValue<Props, Required> = Flatten<
  { [K in keyof Props & Required]: JsonSchemaValue<Props[K]> } & {
    [K in Exclude<keyof Props, Required>]?: JsonSchemaValue<Props[K]>;
  }
>;
type Flatten<T> = { [K in keyof T]: T[K] };

/**
 * A library tool whose handler's arguments are typed from `parameters` (written inline, no
 * `as const` needed). The result goes in `tools` like any LibraryTool.
 */
export function clientTool<const Schema extends { type: "object" }>(
  tool: LibraryTool<JsonSchemaValue<Schema>> & { parameters: Schema },
): LibraryTool<JsonSchemaValue<Schema>> {
  return tool;
}

/** A turn's options: TurnOverrides, with `tools` (library tools) replacing the thread's from this turn on. */
export type RunOptions = Omit<TurnOverrides, "clientTools"> & { tools?: LibraryTool[] };

/** Decides one approval question. */
export type ApprovalHandler = (request: ApprovalRequestEvent) => ReviewDecision | Promise<ReviewDecision>;

export class Tscodex {
  private config: Promise<Config> | null = null;
  private manager: Promise<ThreadManager> | null = null;
  /** With `[otel]`: the telemetry this agent started (flushed by close()). */
  private telemetry: Promise<Telemetry> | null = null;

  constructor(private readonly options: TscodexOptions = {}) {}

  /** Throws at once when `options.cwd` is not an existing directory (given as an absolute path). */
  startThread(options: StartThreadOptions = {}): AgentThread {
    const cwdProblem =
      options.cwd === undefined ? undefined : workingDirectoryProblemSync(options.cwd, "cwd");
    if (cwdProblem) throw new Error(cwdProblem);
    const id = uuidv7();
    const { onApproval, onUserInput, onElicitation, tools, ...threadOptions } = options;
    const clientTools = tools ? { clientTools: tools.map(toClientToolSpec) } : {};
    return new AgentThread(
      id,
      async () => (await this.threads()).start({ ...this.openOptions(threadOptions), ...clientTools }, id),
      { onApproval, onUserInput, onElicitation },
      tools,
    );
  }

  /** Continue stored thread `id` (its full history is resent with the next turn). */
  resumeThread(id: string, options: ThreadOptions = {}): AgentThread {
    const { onApproval, onUserInput, onElicitation, tools, ...threadOptions } = options;
    const clientTools = tools ? { clientTools: tools.map(toClientToolSpec) } : {};
    return new AgentThread(
      id,
      async () =>
        (await this.threads()).resume(id, { ...this.openOptions(threadOptions, false), ...clientTools }),
      { onApproval, onUserInput, onElicitation },
      tools,
    );
  }

  /** Copy the first `turns` turns (default all) of thread `id` into a new thread. */
  async forkThread(id: string, options: ThreadOptions & { turns?: number } = {}): Promise<AgentThread> {
    const { onApproval, onUserInput, onElicitation, turns, tools, ...threadOptions } = options;
    const manager = await this.threads();
    const newId = uuidv7();
    const forked = manager.fork(
      id,
      { newId, ...(turns !== undefined ? { turns } : {}) },
      this.openOptions(threadOptions, false),
    );
    // Report a missing source now, not at the first turn.
    await forked;
    return new AgentThread(newId, () => forked, { onApproval, onUserInput, onElicitation }, tools);
  }

  /** Stored threads, newest first. */
  async listThreads(limit?: number): Promise<ThreadSummary[]> {
    return (await this.threads()).list(limit);
  }

  /** Shut live threads down and flush their rollouts (and, with `[otel]`, the telemetry). */
  async close(): Promise<void> {
    if (this.manager) await (await this.manager).close();
    await (await this.telemetry)?.shutdown();
  }

  private openOptions(
    options: Omit<StartThreadOptions, "onApproval" | "onUserInput" | "onElicitation" | "tools">,
    defaultCwd = true,
  ): OpenThreadOptions {
    return {
      ...(defaultCwd ? { cwd: process.cwd() } : {}),
      ...options,
      ...(this.options.env ? { env: this.options.env } : {}),
    };
  }

  private threads(): Promise<ThreadManager> {
    this.manager ??= this.load().then(async (config) => {
      // `[otel]` in the agent's config exports from this process (its own providers; the
      // program's OpenTelemetry globals are untouched).
      if (config.otel && !this.telemetry)
        this.telemetry = import("./frontends/common/telemetry.js").then(({ startTelemetry }) =>
          startTelemetry(config, "sdk", this.options.env ?? process.env),
        );
      await this.telemetry;
      return new ThreadManager({
        config,
        ...(this.options.persist === false ? {} : { store: await openThreadStore(config) }),
        source: "sdk",
        originator: "tscodex_sdk",
        ...(this.options.sessionTtlMs !== undefined ? { ttlMs: this.options.sessionTtlMs } : {}),
        ...(this.options.persist !== undefined ? { persist: this.options.persist } : {}),
        ...(this.options.env ? { env: this.options.env } : {}),
      });
    });
    // A failed load (bad config) is retried on the next call.
    this.manager.catch(() => {
      this.manager = null;
    });
    return this.manager.then(async (manager) => {
      const config = await this.load();
      if (config.providerProblem) throw new Error(config.providerProblem);
      return manager;
    });
  }

  private load(): Promise<Config> {
    const loadOptions: LoadOptions = {
      ...(this.options.home ? { home: this.options.home } : {}),
      ...(this.options.profile ? { profile: this.options.profile } : {}),
      ...(this.options.env ? { env: this.options.env } : {}),
      overrides: Object.entries(this.options.config ?? {}).map(
        ([key, value]): ConfigOverride => ({ path: key.split("."), value }),
      ),
    };
    this.config ??= loadConfig(loadOptions);
    return this.config;
  }
}

/** A thread handle: created at once, connected to the model on its first turn. */
export class AgentThread {
  private thread: Promise<Thread> | null = null;
  /** Handlers of the library tools in force, by name. */
  private toolHandlers = new Map<string, NonNullable<LibraryTool["handler"]>>();

  constructor(
    readonly id: string,
    private readonly open: () => Promise<Thread>,
    private readonly handlers: {
      onApproval?: ApprovalHandler | undefined;
      onUserInput?: UserInputHandler | undefined;
      onElicitation?: ElicitationHandler | undefined;
    } = {},
    tools?: LibraryTool[],
  ) {
    if (tools) this.useTools(tools);
  }

  runStreamed(input: string | UserInput, options: RunOptions = {}): EventStream<Event, TurnResult> {
    const out = new EventStream<Event, TurnResult>();
    const { tools, ...rest } = options;
    const overrides: TurnOverrides = tools ? { ...rest, clientTools: tools.map(toClientToolSpec) } : rest;
    this.connect().then(
      async (thread) => {
        if (tools) this.useTools(tools);
        const inner = thread.runStreamed(typeof input === "string" ? { text: input } : input, overrides);
        for await (const event of inner) out.push(event);
        out.end(await inner.result());
      },
      (error: unknown) => out.fail(error),
    );
    return out;
  }

  run(input: string | UserInput, options?: RunOptions): Promise<TurnResult> {
    return this.runStreamed(input, options).result();
  }

  /**
   * Answer a `request_user_input` event: the answers, "declined", or null (nobody to ask);
   * `agentId`: the event's `agent_id` when a sub-agent asked.
   */
  async answerUserInput(callId: string, reply: UserInputReply, agentId?: string): Promise<void> {
    (await this.connect()).answerUserInput(callId, reply, agentId);
  }

  /** Answer a client tool call (a `client_tool_call_request` event); false when none is waiting. */
  async respondToTool(callId: string, result: ClientToolResult): Promise<boolean> {
    return (await this.connect()).respondToTool(callId, result);
  }

  /** Summarise the history now and continue from the summary (as auto-compaction does). */
  async compact(): Promise<void> {
    await (await this.connect()).compact();
  }

  async interrupt(): Promise<void> {
    (await this.connect()).interrupt();
  }

  /** Answer an MCP server's elicitation (an `elicitation_request` event's id). */
  async answerElicitation(id: string, result: ElicitationResult): Promise<void> {
    (await this.connect()).answerElicitation(id, result);
  }

  /** Answer the approval question of call `callId` (pass the event's `agent_id` when it has one). */
  async approve(callId: string, decision: ReviewDecision, agentId?: string): Promise<void> {
    (await this.connect()).approve(callId, decision, agentId);
  }

  private connect(): Promise<Thread> {
    this.thread ??= this.open().then((thread) => {
      // The library's responders are the caller's callbacks; without one, the caller answers
      // from the stream itself.
      const { onApproval, onUserInput, onElicitation } = this.handlers;
      const responders: QuestionResponders = {
        clientTool: (event) => {
          const handler = this.toolHandlers.get(event.tool);
          if (!handler) return undefined;
          const context = { callId: event.call_id, threadId: thread.id, turnId: event.turn_id };
          return (
            Promise.resolve()
              // The model's JSON arguments, trusted to follow the tool's schema as the handler's type says.
              .then(() => handler(event.arguments as Record<string, unknown>, context))
              .then(toClientToolResult)
          );
        },
      };
      if (onApproval) responders.approval = (event) => Promise.resolve().then(() => onApproval(event));
      if (onUserInput) responders.userInput = (event) => Promise.resolve().then(() => onUserInput(event));
      if (onElicitation)
        responders.elicitation = (event) => Promise.resolve().then(() => onElicitation(event));
      thread.subscribe(questionRouter(thread, responders));
      return thread;
    });
    return this.thread;
  }

  private useTools(tools: LibraryTool[]): void {
    this.toolHandlers = new Map();
    for (const tool of tools) if (tool.handler) this.toolHandlers.set(tool.name, tool.handler);
  }
}

function toClientToolSpec(tool: LibraryTool): ClientToolSpec {
  return {
    name: tool.name,
    description: tool.description ?? "",
    inputSchema: tool.parameters ?? { type: "object", properties: {} },
  };
}

/** A handler's return value as the client's answer. */
function toClientToolResult(value: unknown): ClientToolResult {
  const parsed = clientToolResultSchema.safeParse(value);
  if (parsed.success) return parsed.data;
  const text = typeof value === "string" ? value : (JSON.stringify(value) ?? "");
  return { contentItems: [{ type: "inputText", text }], success: true };
}
