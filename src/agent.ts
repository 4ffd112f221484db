/**
 * The library API.
 *   const agent = new Tscodex();
 *   const thread = agent.startThread({ cwd: "/repo" });
 *   for await (const event of thread.runStreamed("fix the failing test")) { ... }
 *   const { finalResponse } = await thread.run("and add a test for it");
 * Approvals (asking policies): pass `onApproval` to startThread, or answer the
 * exec_approval_request / apply_patch_approval_request events with thread.approve(callId, decision);
 * unanswered questions are denied after `approval_timeout_ms` (default 120 s).
 * The CLI and the servers are built on the same pieces.
 */
import { type Config, type LoadOptions, loadConfig } from "./config/load.js";
import type { ConfigOverride } from "./config/overrides.js";
import type { ApprovalRequestEvent, Event, ReviewDecision } from "./protocol/events.js";
import { createThread } from "./session/create.js";
import type { Thread, TurnOverrides, TurnResult, UserInput } from "./session/thread.js";
import type { ApprovalPolicy, SandboxMode } from "./tools/types.js";
import { EventStream } from "./util/event-stream.js";
import { uuidv7 } from "./util/ids.js";

export interface TscodexOptions {
  /** Config home (default $TSCODEX_HOME or ~/.tscodex). */
  home?: string;
  profile?: string;
  /** Dotted-key overrides, as `-c key=value` on the CLI: `{ "model_provider": "oss" }`. */
  config?: Record<string, unknown>;
  env?: NodeJS.ProcessEnv;
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
}

/** Decides one approval question. */
export type ApprovalHandler = (request: ApprovalRequestEvent) => ReviewDecision | Promise<ReviewDecision>;

export class Tscodex {
  private config: Promise<Config> | null = null;

  constructor(private readonly options: TscodexOptions = {}) {}

  startThread(options: ThreadOptions = {}): AgentThread {
    const id = uuidv7();
    const { onApproval, ...threadOptions } = options;
    return new AgentThread(id, () => this.build(threadOptions, id), onApproval);
  }

  private async build(options: ThreadOptions, threadId: string): Promise<Thread> {
    const loadOptions: LoadOptions = {
      ...(this.options.home ? { home: this.options.home } : {}),
      ...(this.options.profile ? { profile: this.options.profile } : {}),
      ...(this.options.env ? { env: this.options.env } : {}),
      overrides: Object.entries(this.options.config ?? {}).map(
        ([key, value]): ConfigOverride => ({ path: key.split("."), value }),
      ),
    };
    this.config ??= loadConfig(loadOptions);
    const config = await this.config;
    if (config.providerProblem) throw new Error(config.providerProblem);
    return createThread(config, {
      cwd: options.cwd ?? process.cwd(),
      originator: "tscodex_sdk",
      threadId,
      ...options,
      ...(this.options.env ? { env: this.options.env } : {}),
    });
  }
}

/** A thread handle: created at once, connected to the model on its first turn. */
export class AgentThread {
  private thread: Promise<Thread> | null = null;

  constructor(
    readonly id: string,
    private readonly open: () => Promise<Thread>,
    private readonly onApproval?: ApprovalHandler,
  ) {}

  runStreamed(input: string | UserInput, overrides?: TurnOverrides): EventStream<Event, TurnResult> {
    const out = new EventStream<Event, TurnResult>();
    this.connect().then(
      async (thread) => {
        const inner = thread.runStreamed(typeof input === "string" ? { text: input } : input, overrides);
        for await (const event of inner) out.push(event);
        out.end(await inner.result());
      },
      (error: unknown) => out.fail(error),
    );
    return out;
  }

  run(input: string | UserInput, overrides?: TurnOverrides): Promise<TurnResult> {
    return this.runStreamed(input, overrides).result();
  }

  async interrupt(): Promise<void> {
    (await this.connect()).interrupt();
  }

  /** Answer the approval question of call `callId` (from an approval request event). */
  async approve(callId: string, decision: ReviewDecision): Promise<void> {
    (await this.connect()).approve(callId, decision);
  }

  private connect(): Promise<Thread> {
    this.thread ??= this.open().then((thread) => {
      const handler = this.onApproval;
      if (handler) {
        thread.subscribe((event) => {
          if (event.type !== "exec_approval_request" && event.type !== "apply_patch_approval_request") return;
          void Promise.resolve()
            .then(() => handler(event))
            .catch((): ReviewDecision => "denied")
            .then((decision) => thread.approve(event.call_id, decision));
        });
      }
      return thread;
    });
    return this.thread;
  }
}
