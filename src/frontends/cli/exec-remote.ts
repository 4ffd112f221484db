/**
 * `tscodex exec --remote ws://HOST:PORT [--remote-auth-token-env VAR]` (and `exec resume`,
 * `exec review`): the turn runs on an existing app-server (tscodex's or Codex's), which this
 * process drives as a v2 client, with the TUI's client and transport (tui/rpc-client.ts,
 * tui/transports.ts). Exec's own renderers show it: the server's notifications are mapped back
 * to the core's events (remote-events.ts), so the human output and the `--json` lines are those
 * of a local run.
 * Flow: options → this machine's config (only exec's own settings: approvals.exec_outcome,
 * approvals.exec_json_items, user_input.exec_answer) → connect (`Authorization: Bearer $VAR`) →
 * initialize → thread/start | thread/resume | (review) thread/start → turn/start | review/start →
 * events rendered, server questions answered as a local exec answers them → final message →
 * exit code. Loaded only with `--remote`: a local exec never reads this module.
 *
 * What is the server's: the model, its provider and key, the thread's files and rollout, the
 * working directory (the server's own unless `-C` names one there), the sandbox (the server's
 * default unless a flag names one). `-c`, `--enable`/`--disable`, `--search` and
 * `--include-plan-tool` go to the thread as its config overrides.
 */
import { writeFile } from "node:fs/promises";
import { resolve } from "node:path";
import { type Config, ConfigError, loadConfig } from "../../config/load.js";
import { ConfigOverrideError, parseOverride } from "../../config/overrides.js";
import { warnConfigOnce } from "../../config/warnings.js";
import { imageFileToDataUrl } from "../../prompt/images.js";
import type { UserQuestion } from "../../protocol/agents.js";
import type { ReviewDecision } from "../../protocol/events.js";
import { emptyUsage, type TokenUsage } from "../../protocol/items.js";
import type { ApprovalPolicy, SandboxMode } from "../../protocol/policy.js";
import type { ReviewTarget } from "../../session/review.js";
import type { TurnResult } from "../../session/thread.js";
import { currentDirectory, outputFileProblem } from "../../util/directory.js";
import { errorMessage } from "../../util/errors.js";
import { VERSION } from "../../version.js";
import { visibleLine, visibleText } from "../common/terminal-text.js";
import { RpcClient } from "../tui/rpc-client.js";
import { bearerHeaders, webSocketTransport } from "../tui/transports.js";
import {
  type ExecCliOptions,
  firstOptions,
  flagOverrides,
  type ResumeTarget,
  readOutputSchema,
  readPrompt,
  wantsColor,
} from "./exec-common.js";
import { ExecJsonWriter } from "./exec-json.js";
import { HumanRenderer } from "./human-output.js";
import { RemoteEventMapper, type RemoteTurnEnd } from "./remote-events.js";
import type { ExecRenderer } from "./renderer.js";

type Params = Record<string, unknown>;

/** What the remote run does: a prompt (on a new or a resumed thread), or a review. */
export type RemoteWork =
  | { kind: "turn"; resume?: ResumeTarget | undefined }
  | { kind: "review"; target: ReviewTarget; display: string };

/** Options that act on this machine's threads or files, which a remote thread does not have. */
const LOCAL_ONLY: [keyof ExecCliOptions, string][] = [
  ["ephemeral", "--ephemeral"],
  ["trust", "--trust"],
  ["dangerouslyBypassHookTrust", "--dangerously-bypass-hook-trust"],
  ["oss", "--oss"],
  ["threadSource", "--thread-source"],
  ["cyberAccessProgram", "--cyber-access-program"],
];

export async function runRemoteExec(
  promptArg: string | undefined,
  options: ExecCliOptions,
  work: RemoteWork,
): Promise<number> {
  const json = Boolean(options.json || options.experimentalJson);
  const fail = (message: string) => {
    process.stderr.write(`tscodex: ${message}\n`);
    return 1;
  };
  const url = options.remote ?? "";
  if (!/^wss?:\/\//.test(url)) return fail(`--remote: '${url}' must be ws://HOST:PORT or wss://HOST:PORT`);
  const localOnly = LOCAL_ONLY.filter(([key]) => options[key] !== undefined && options[key] !== false);
  if ((options.addDir ?? []).length > 0) localOnly.push(["addDir", "--add-dir"]);
  if (localOnly.length > 0)
    return fail(`${localOnly.map(([, flag]) => flag).join(", ")}: not available with --remote`);
  let headers: Record<string, string>;
  try {
    headers = bearerHeaders(options.remoteAuthTokenEnv);
  } catch (error) {
    return fail(errorMessage(error));
  }
  const processCwd = currentDirectory() ?? "/";
  const lastMessagePath = options.outputLastMessage
    ? resolve(processCwd, options.outputLastMessage)
    : undefined;
  const outputProblem = lastMessagePath && (await outputFileProblem(lastMessagePath, "-o"));
  if (outputProblem) return fail(outputProblem);

  // This machine's config holds only exec's own answers; the thread gets -c as its overrides.
  let config: Config;
  let threadConfig: Record<string, unknown>;
  try {
    const overrides = [...options.config.map(parseOverride), ...flagOverrides(options)];
    threadConfig = Object.fromEntries(overrides.map(({ path, value }) => [path.join("."), value]));
    config = await loadConfig({
      ...(options.profile ? { profile: options.profile } : {}),
      cwd: processCwd,
      overrides,
    });
  } catch (error) {
    if (error instanceof ConfigError || error instanceof ConfigOverrideError) return fail(error.message);
    throw error;
  }
  warnConfigOnce(config, process.stderr, visibleLine);

  let prompt = "";
  if (work.kind === "turn") {
    const read = await readPrompt(promptArg);
    if (read === null) return fail("no prompt: pass it as an argument or pipe it on stdin");
    if (read.trim() === "") return fail("empty prompt: say what the agent should do");
    prompt = read;
  }
  let input: Params[];
  let outputSchema: Record<string, unknown> | undefined;
  try {
    // The server may be another machine: images are this one's files (-C names the server's
    // directory), sent as data URLs.
    const images = await Promise.all(
      options.image.map((path) => imageFileToDataUrl(resolve(processCwd, path))),
    );
    input = [
      { type: "text", text: prompt, text_elements: [] },
      ...images.map((url) => ({ type: "image", url })),
    ];
    outputSchema = options.outputSchema ? await readOutputSchema(resolve(options.outputSchema)) : undefined;
  } catch (error) {
    return fail(errorMessage(error));
  }

  const bypass = options.dangerouslyBypassApprovalsAndSandbox === true;
  const sandbox: SandboxMode | undefined =
    work.kind === "review"
      ? "read-only"
      : bypass
        ? "danger-full-access"
        : (options.sandbox ?? (options.fullAuto ? "workspace-write" : undefined));
  // As a local exec: nobody can answer here, so unless asked otherwise, never ask.
  const approvalPolicy: ApprovalPolicy = bypass
    ? "never"
    : (options.askForApproval ??
      (options.approveForMe ? "on-request" : undefined) ??
      (options.fullAuto ? "never" : (config.approvalPolicySetting ?? "never")));
  const settings: Params = {
    ...(options.cd ? { cwd: options.cd } : {}),
    ...(options.model ? { model: options.model } : {}),
    approvalPolicy,
    ...(sandbox ? { sandbox } : {}),
    ...(Object.keys(threadConfig).length > 0 ? { config: threadConfig } : {}),
  };

  const session = new RemoteSession(config, json);
  // The server's words (its errors) are shown as text, never run as terminal controls.
  const failWith = (error: unknown) => fail(visibleText(errorMessage(error)));
  try {
    await session.connect(url, headers);
  } catch (error) {
    session.close();
    return failWith(error);
  }
  try {
    const opened = await session.open(work, settings);
    const renderer = session.render(opened, work.kind === "review" ? work.display : prompt, {
      color: wantsColor(options.color),
    });
    const result = await session.runTurn(
      work.kind === "review"
        ? { method: "review/start", params: { target: reviewTargetWire(work.target), delivery: "inline" } }
        : { method: "turn/start", params: { input, ...(outputSchema ? { outputSchema } : {}) } },
    );
    renderer.finish(result);
    if (lastMessagePath) await writeFile(lastMessagePath, result.finalResponse ?? "");
    if (!json && result.finalResponse) {
      const text = result.finalResponse;
      process.stdout.write(`${process.stdout.isTTY ? visibleText(text, { tabs: "keep" }) : text}\n`);
    }
    if (result.status === "failed" && json)
      process.stderr.write(`tscodex: ${visibleText(result.error ?? "turn failed")}\n`);
    if (session.stoppedBy === "SIGTERM") return 143;
    const flushed = await new Promise<boolean>((done) => process.stdout.write("", (error) => done(!error)));
    if (session.stdoutClosed || !flushed) return 141;
    return result.status === "completed" ? 0 : 1;
  } catch (error) {
    return failWith(error);
  } finally {
    session.close();
  }
}

/** The opened thread, as exec's header shows it. */
interface OpenedThread {
  threadId: string;
  model: string;
  provider: string;
  cwd: string;
  approvalPolicy: string;
  sandboxMode: string;
}

/** One connection to the app-server, one thread, one turn. */
class RemoteSession {
  private client: RpcClient | null = null;
  private mapper: RemoteEventMapper | null = null;
  private renderer: ExecRenderer | null = null;
  /** Notifications that came before the thread was known (restored usage, MCP startup). */
  private readonly early: [string, Params][] = [];
  private readonly ended = new Map<string, RemoteTurnEnd>();
  private waiting: { turnId: string; done: (end: RemoteTurnEnd) => void } | null = null;
  private closed: ((error: Error) => void) | null = null;
  private turnId: string | null = null;
  private threadId = "";
  stoppedBy: NodeJS.Signals | null = null;
  stdoutClosed = false;
  /** Every question gets the declared outcome at once, as in a local exec. */
  private readonly outcome: ReviewDecision;

  constructor(
    private readonly config: Config,
    private readonly json: boolean,
  ) {
    this.outcome = config.execApprovalOutcome === "approve" ? "approved" : "denied";
  }

  async connect(url: string, headers: Record<string, string>): Promise<void> {
    const transport = await webSocketTransport(url, headers);
    transport.onClose((reason) =>
      this.closed?.(new Error(`the app-server closed the connection: ${reason}`)),
    );
    this.client = new RpcClient(transport, {
      notification: (method, params) => this.notification(method, params),
      request: (method, params) => this.request(method, params),
    });
    await this.client.request("initialize", {
      clientInfo: { name: "tscodex_exec", title: null, version: VERSION },
    });
    this.client.notify("initialized");
  }

  /** thread/start, or thread/resume of an id (or the newest thread, `--last`). */
  async open(work: RemoteWork, settings: Params): Promise<OpenedThread> {
    const client = this.requireClient();
    let opened: Params;
    if (work.kind === "turn" && work.resume) {
      const threadId = "id" in work.resume ? work.resume.id : await this.newestThread();
      opened = await client.request("thread/resume", { threadId, ...settings });
    } else {
      opened = await client.request("thread/start", settings);
    }
    const thread = (opened.thread ?? {}) as Params;
    this.threadId = String(thread.id ?? "");
    this.mapper = new RemoteEventMapper(this.threadId);
    const sandbox = ((opened.sandbox ?? {}) as Params).type;
    return {
      threadId: this.threadId,
      model: String(opened.model ?? "?"),
      provider: String(opened.modelProvider ?? "?"),
      cwd: String(opened.cwd ?? "?"),
      approvalPolicy: String(opened.approvalPolicy ?? "?"),
      sandboxMode: SANDBOX_NAMES[String(sandbox)] ?? String(sandbox ?? "?"),
    };
  }

  private async newestThread(): Promise<string> {
    const listed = await this.requireClient().request("thread/list", { limit: 1, sortKey: "created_at" });
    const first = ((listed.data ?? []) as Params[])[0];
    if (!first || typeof first.id !== "string")
      throw new Error("no stored thread to resume on the app-server");
    return first.id;
  }

  /** exec's renderer for the opened thread, fed the notifications that came before it. */
  render(opened: OpenedThread, prompt: string, options: { color: boolean }): ExecRenderer {
    this.renderer = this.json
      ? newJsonWriter(this.config)
      : new HumanRenderer(process.stderr, {
          color: options.color,
          statusLine: Boolean(process.stderr.isTTY),
        });
    this.renderer.start({ ...opened, prompt });
    for (const [method, params] of this.early.splice(0)) this.notification(method, params);
    return this.renderer;
  }

  /** Starts the turn (turn/start or review/start) and resolves with its result once it ends. */
  async runTurn(start: { method: string; params: Params }): Promise<TurnResult> {
    const client = this.requireClient();
    const mapper = this.requireMapper();
    const stop = (signal: NodeJS.Signals) => {
      if (this.stoppedBy) process.exit(signal === "SIGTERM" ? 143 : 130);
      this.stoppedBy = signal;
      this.interrupt();
    };
    process.on("SIGINT", stop);
    process.on("SIGTERM", stop);
    const onStdoutError = (error: NodeJS.ErrnoException) => {
      if (error.code !== "EPIPE") process.stderr.write(`tscodex: stdout: ${error.message}\n`);
      if (this.stdoutClosed) return;
      this.stdoutClosed = true;
      this.interrupt();
    };
    process.stdout.on("error", onStdoutError);
    try {
      // The connection lost mid-turn: the turn's end is unknown here, so it failed for exec.
      const ended = new Promise<RemoteTurnEnd>((done, fail) => {
        this.closed = fail;
        this.waiting = { turnId: "", done };
      }).catch(
        (error: Error): RemoteTurnEnd => ({
          turnId: this.turnId ?? "",
          status: "failed",
          error: error.message,
        }),
      );
      const started = await client.request(start.method, { threadId: this.threadId, ...start.params });
      const turnId = String(((started.turn ?? {}) as Params).id ?? "");
      this.turnId = turnId;
      if (this.waiting) this.waiting.turnId = turnId;
      const already = this.ended.get(turnId);
      if (already) this.waiting?.done(already);
      if (this.stoppedBy || this.stdoutClosed) this.interrupt();
      const end = await ended;
      return {
        turnId,
        status: end.status,
        finalResponse: mapper.lastMessage,
        items: [],
        usage: usageSince(mapper.total, mapper.turnBase),
        error: end.error,
        pendingCalls: [],
      };
    } finally {
      process.off("SIGINT", stop);
      process.off("SIGTERM", stop);
    }
  }

  close(): void {
    this.closed = null;
    this.client?.close();
  }

  private interrupt(): void {
    if (!this.turnId) return;
    this.client?.request("turn/interrupt", { threadId: this.threadId, turnId: this.turnId }).catch(() => {});
  }

  private notification(method: string, params: Params): void {
    const mapper = this.mapper;
    const renderer = this.renderer;
    if (!mapper || !renderer) {
      this.early.push([method, params]);
      return;
    }
    for (const event of mapper.map(method, params)) renderer.event(event);
    const ending = mapper.turnEnd(method, params);
    if (!ending) return;
    for (const event of ending.events) renderer.event(event);
    this.ended.set(ending.end.turnId, ending.end);
    if (this.waiting && this.waiting.turnId === ending.end.turnId) this.waiting.done(ending.end);
  }

  /** The server's questions, answered as a local exec answers the core's. */
  private async request(method: string, params: Params): Promise<unknown> {
    const question = this.mapper?.approvalRequest(method, params);
    if (question) {
      this.renderer?.approval(question, this.outcome);
      return { decision: this.outcome === "approved" ? "accept" : "decline" };
    }
    if (method === "item/tool/requestUserInput" && this.config.execUserInput === "first")
      return firstOptions((params.questions ?? []) as UserQuestion[]);
    // An MCP server's form: nobody can fill it in here, declined at once.
    if (method === "mcpServer/elicitation/request") return { action: "decline" };
    // Questions to the user (Codex's exec cannot ask), client tools (exec has none): an error
    // reply, which the server takes as declined.
    throw new Error(`tscodex exec does not answer ${method}`);
  }

  private requireClient(): RpcClient {
    if (!this.client) throw new Error("not connected");
    return this.client;
  }

  private requireMapper(): RemoteEventMapper {
    if (!this.mapper) throw new Error("no thread open");
    return this.mapper;
  }
}

/** The wire's SandboxPolicy type as the mode exec's header names. */
const SANDBOX_NAMES: Record<string, string> = {
  readOnly: "read-only",
  workspaceWrite: "workspace-write",
  dangerFullAccess: "danger-full-access",
  externalSandbox: "external-sandbox",
};

function newJsonWriter(config: Config): ExecRenderer {
  return new ExecJsonWriter(process.stdout, process.stderr, { approvalItems: config.execJsonApprovalItems });
}

/** A turn's usage: the thread's total at its end less the total before it began. */
function usageSince(total: TokenUsage | null, base: TokenUsage | null): TokenUsage {
  const end = total ?? emptyUsage();
  const start = base ?? emptyUsage();
  return {
    input_tokens: end.input_tokens - start.input_tokens,
    cached_input_tokens: end.cached_input_tokens - start.cached_input_tokens,
    output_tokens: end.output_tokens - start.output_tokens,
    reasoning_output_tokens: end.reasoning_output_tokens - start.reasoning_output_tokens,
    total_tokens: end.total_tokens - start.total_tokens,
  };
}

/** The core's review target as review/start's. */
function reviewTargetWire(target: ReviewTarget): Params {
  switch (target.type) {
    case "uncommitted":
      return { type: "uncommittedChanges" };
    case "base":
      return { type: "baseBranch", branch: target.branch };
    case "commit":
      return { type: "commit", sha: target.sha, title: target.title ?? null };
    case "custom":
      return { type: "custom", instructions: target.instructions };
  }
}
