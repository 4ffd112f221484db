/**
 * The terminal UI: a client of the app-server protocol and nothing else. It opens (or resumes)
 * a thread with JSON-RPC requests, turns the server's notifications into screen blocks
 * (transcript.ts), answers the server's approvals, user-input questions and MCP elicitations from
 * the keyboard, and redraws only what changed (screen.ts). Keys follow Codex: Enter submits (or
 * steers a running turn), Ctrl+J / Shift+Enter newline, Esc interrupts, Ctrl+C clears, interrupts or quits,
 * Ctrl+D quits, `@` completes file paths (file-mentions.ts); /model, /approvals and /resume
 * open a picker (picker.ts) in place of the composer.
 */
import { VERSION } from "../../version.js";
import type { ClientMethod, ResultOf } from "../app-server/protocol/client-requests.js";
import { ApprovalView } from "./approval.js";
import { Composer } from "./composer.js";
import { ElicitationPrompt, parseElicitation } from "./elicitation.js";
import { MentionMenu } from "./file-mentions.js";
import { ServerFileSearch } from "./file-search.js";
import { type Key, parseKeys } from "./keys.js";
import { composerRows, TranscriptLayout } from "./layout.js";
import { type Picker, pickerView } from "./picker.js";
import { type Prompt, promptView, QuestionPrompt } from "./questions.js";
import { METHOD_NOT_FOUND, RpcCallError, RpcClient, type RpcTransport } from "./rpc-client.js";
import { Screen } from "./screen.js";
import { openResumePicker, runSlashCommand, SLASH_COMMANDS } from "./slash-commands.js";
import { statusRow, type TokenUsageView } from "./status-line.js";
import { type Style, wrapLine } from "./style.js";
import { notFoundMessage, resolveThreadId } from "./thread-ids.js";
import { Transcript } from "./transcript.js";
import { type View, ViewStack } from "./views.js";
import { readNotification, readReply, readServerRequest } from "./wire.js";

export interface ThreadSettings {
  model?: string | undefined;
  /** The reasoning effort turn/start asks for (`/model`'s second step); undefined: the server's. */
  effort?: string | undefined;
  approvalPolicy?: string | undefined;
  sandbox?: string | undefined;
  /** The cwd thread/start asks for; undefined: the server's own (`--remote` without `-C`). */
  cwd?: string | undefined;
}

export interface AppOptions {
  connect: () => Promise<RpcTransport>;
  settings: ThreadSettings;
  style: Style;
  /** Submitted once the thread is open. */
  prompt?: string | undefined;
  /** Absolute paths of images (`-i`) the first prompt carries. */
  images?: string[] | undefined;
  /** `resume`: a thread id, or "last" for the most recent one. */
  resume?: string | undefined;
  /** `resume --all`: the picker and `--last` take threads of every directory, not only the cwd's. */
  allDirectories?: boolean | undefined;
  input: NodeJS.ReadStream;
  output: NodeJS.WriteStream;
}

type Params = Record<string, unknown>;
/** What thread/start and thread/resume answer. */
type OpenedThread = ResultOf<"thread/start"> | ResultOf<"thread/resume">;

/** What the status line shows about the open thread. */
export interface ThreadInfo {
  id: string;
  model: string;
  /** The reasoning effort asked for; null: the model's default. */
  effort: string | null;
  approvalPolicy: string;
  sandbox: string;
  /** The thread's cwd on the server. */
  cwd: string;
}

const QUIT_WINDOW_MS = 2000;
/** How long quitting waits for the server to delete an empty thread. */
const DELETE_WAIT_MS = 2000;

export class TuiApp {
  readonly transcript = new Transcript();
  readonly composer = new Composer();
  private readonly layout: TranscriptLayout;
  private readonly screen: Screen;
  private readonly mentions: MentionMenu;
  private readonly fileSearch: ServerFileSearch;
  client: RpcClient | null = null;
  thread: ThreadInfo | null = null;
  /** The last token usage the server reported, and for which thread (context left). */
  private usage: { threadId: string; view: TokenUsageView } | null = null;
  /** The thread a thread/resume is opening (its restored usage may come before the reply is read). */
  private opening: string | null = null;
  /**
   * The composer, and above it what asks the user something: approvals, questions and
   * elicitations (answered from the composer), pickers (/model, /approvals, /resume: in its place).
   */
  readonly views = new ViewStack({
    onKey: (key) => {
      this.onComposerKey(key);
      return "consumed";
    },
    rows: (style, width) => this.composerRows(style, width),
  });
  private lastCtrlC = 0;
  /** Set by quit: the screen is the terminal's again. */
  private closed = false;
  /** The thread this UI started while no turn has run in it (deleted on quit: see dropEmptyThread). */
  private emptyThread: string | null = null;
  /** Set on quit: the thread the exit hint names (null: none, or an empty one that was deleted). */
  exitThreadId: string | null = null;
  /** Why the thread could not be opened at start-up (the app then exits 1; run.ts prints it). */
  failedStart: string | null = null;
  private hint = "";
  private renderQueued = false;
  private ticker: NodeJS.Timeout | null = null;
  private exit: (code: number) => void = () => {};
  /** `-i` images not sent yet: they ride on the first prompt. */
  private pendingImages: string[];
  readonly done: Promise<number>;

  constructor(readonly options: AppOptions) {
    this.transcript.cwd = options.settings.cwd ?? "";
    this.pendingImages = options.images ?? [];
    this.layout = new TranscriptLayout(options.style);
    this.screen = new Screen(options.output, options.output.rows || 24);
    this.fileSearch = new ServerFileSearch(
      (method, params) => this.rpc(method, params),
      () => this.thread?.cwd ?? null,
    );
    this.mentions = new MentionMenu(this.fileSearch.search, () => this.scheduleRender());
    this.done = new Promise((resolve) => {
      this.exit = resolve;
    });
  }

  get style(): Style {
    return this.options.style;
  }

  /** The open thread's cwd on the server, else the one asked for. */
  get cwd(): string {
    return this.thread?.cwd ?? this.options.settings.cwd ?? "";
  }

  /** thread/list's `cwd` for `resume`: the cwd's threads only, unless `--all` (or no cwd known). */
  get listCwd(): string | undefined {
    return this.options.allDirectories ? undefined : this.cwd || undefined;
  }

  /** The token usage of the open thread, if the server reported one. */
  get tokenUsage(): TokenUsageView | null {
    return this.usage && this.usage.threadId === this.thread?.id ? this.usage.view : null;
  }

  /** Draws the first screen at once, then connects and opens the thread. */
  async start(): Promise<void> {
    const { input, output } = this.options;
    if (input.isTTY) input.setRawMode(true);
    input.setEncoding("utf8");
    input.on("data", (data: string) => this.onInput(data));
    input.resume();
    output.write("\x1b[?25l\x1b[?2004h");
    output.on("resize", () => {
      this.screen.invalidate(output.rows || 24);
      this.render();
    });
    this.hint = "connecting…";
    this.render();
    try {
      const transport = await this.options.connect();
      transport.onClose((reason) => {
        this.transcript.notice(`disconnected: ${reason}`, "error");
        this.scheduleRender();
      });
      this.client = new RpcClient(transport, {
        notification: (method, params) => this.onNotification(method, params),
        request: (method, params) => this.onServerRequest(method, params),
      });
      await this.client.request("initialize", { clientInfo: { name: "tscodex-tui", version: "0" } });
      this.client.notify("initialized");
      if (this.options.resume === "pick") await openResumePicker(this, () => this.newThread());
      else if (this.options.resume) await this.resumeThread(this.options.resume);
      else await this.newThread();
    } catch (error) {
      // No thread, no use for the screen: say why and exit, as Codex does (not a dead composer).
      this.failedStart = (error as Error).message;
      this.quit(1);
      return;
    }
    this.hint = "";
    if (this.pendingImages.length > 0 && !this.options.prompt)
      this.transcript.notice(`the next prompt carries ${this.pendingImages.join(", ")}`);
    this.render();
    if (this.options.prompt && this.thread) await this.submit(this.options.prompt);
  }

  /**
   * thread/start with the CLI's settings; clears the transcript. `clear` (/clear) also wipes the
   * terminal, scrollback included (as Codex's /clear), and starts the thread with
   * `sessionStartSource: "clear"` so its SessionStart hooks know why it began.
   */
  async newThread(options: { clear?: boolean } = {}): Promise<void> {
    const { model, approvalPolicy, sandbox, cwd } = this.options.settings;
    const opened = await this.call("thread/start", {
      cwd,
      model,
      approvalPolicy,
      sandbox,
      ...(options.clear ? { sessionStartSource: "clear" } : {}),
    });
    await this.dropEmptyThread();
    this.transcript.clear();
    if (options.clear) this.screen.wipe();
    this.setThread(opened);
    this.showHeader();
    this.emptyThread = this.thread?.id ?? null;
  }

  /**
   * Deletes the thread this UI started if no turn ever ran in it: quitting (or /new) right
   * after start-up stores no empty thread (Codex writes a session only with its first turn).
   */
  private async dropEmptyThread(): Promise<void> {
    const threadId = this.emptyThread;
    this.emptyThread = null;
    if (!threadId || !this.client) return;
    // A server that went away must not hold the exit up.
    let timer: NodeJS.Timeout | undefined;
    const giveUp = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, DELETE_WAIT_MS);
    });
    await Promise.race([this.rpc("thread/delete", { threadId }).catch(() => {}), giveUp]);
    clearTimeout(timer);
  }

  /** thread/resume (id, or the newest thread for "last"), with the stored turns on screen. */
  async resumeThread(which: string): Promise<void> {
    let threadId = which;
    if (which === "last") {
      const listed = await this.call("thread/list", { limit: 1, sortKey: "updated_at", cwd: this.listCwd });
      const first = listed.data?.[0];
      if (!first)
        throw new Error(`no stored thread${this.listCwd ? ` started in ${this.listCwd}` : ""} to resume`);
      threadId = first.id;
    } else threadId = await resolveThreadId((method, params) => this.rpc(method, params), which);
    const { model, approvalPolicy, sandbox } = this.options.settings;
    this.opening = threadId;
    let opened: OpenedThread;
    try {
      opened = await this.call("thread/resume", { threadId, model, approvalPolicy, sandbox });
    } catch (error) {
      if (/thread not found/.test((error as Error).message)) throw new Error(notFoundMessage(threadId));
      throw error;
    } finally {
      this.opening = null;
    }
    if (this.emptyThread !== threadId) await this.dropEmptyThread();
    this.transcript.clear();
    this.setThread(opened);
    this.showHeader();
    const read = await this.call("thread/read", { threadId, includeTurns: true });
    this.transcript.loadTurns(read.thread?.turns ?? []);
    this.transcript.notice(`resumed thread ${threadId}`);
  }

  /** Codex's header: what the thread runs with, where, and its id (for `tscodex resume`). */
  private showHeader(): void {
    const thread = this.thread;
    if (!thread) return;
    const rows = [
      `>_ tscodex (v${VERSION})`,
      `model:     ${thread.model}${thread.effort ? ` ${thread.effort}` : ""}`,
      `directory: ${thread.cwd}`,
      `thread:    ${thread.id}`,
    ];
    this.transcript.notice(rows.join("\n"));
  }

  /** The thread to name in the exit hint: the open one, unless it was empty and so deleted. */
  get keptThreadId(): string | null {
    return this.thread && this.thread.id !== this.emptyThread ? this.thread.id : null;
  }

  private setThread(opened: OpenedThread): void {
    const sandbox = opened.sandbox?.type ?? "?";
    const cwd = typeof opened.cwd === "string" ? opened.cwd : (this.options.settings.cwd ?? "");
    const effort = typeof opened.reasoningEffort === "string" ? opened.reasoningEffort : null;
    this.thread = {
      id: opened.thread.id,
      model: String(opened.model ?? "?"),
      effort: this.options.settings.effort ?? effort,
      approvalPolicy: String(opened.approvalPolicy ?? "?"),
      sandbox,
      cwd,
    };
    this.transcript.cwd = cwd;
  }

  /** Shows `picker` in place of the composer until it picks or is cancelled. */
  openPicker(picker: Picker): void {
    this.openView(
      pickerView(picker, (error) => {
        if (error) this.transcript.notice(`${picker.title}: ${error.message}`, "error");
        this.scheduleRender();
      }),
    );
  }

  /** Puts `view` on top: it takes the keys until it closes. */
  openView(view: View): void {
    this.views.push(view);
    this.scheduleRender();
  }

  /** Asks `prompt` above the composer (answered from it). */
  private askAbove(prompt: Prompt): void {
    this.openView(promptView(prompt, this.composer, () => this.mentions.open));
  }

  /** A request the protocol types: the reply is read as its result for `method`. */
  async call<M extends ClientMethod>(method: M, params: Params): Promise<ResultOf<M>> {
    return readReply(method, await this.rpc(method, params));
  }

  /** A JSON-RPC request on the open connection. */
  rpc(method: string, params: Params): Promise<Params> {
    if (!this.client) return Promise.reject(new Error("not connected"));
    return this.client.request<Params>(method, params);
  }

  async submit(text: string): Promise<void> {
    if (text.startsWith("/")) {
      await runSlashCommand(this, text);
      this.scheduleRender();
      return;
    }
    if (!this.thread) return;
    const running = this.transcript.runningTurnId;
    const images = running ? [] : this.pendingImages.splice(0);
    const input = [
      { type: "text", text, text_elements: [] },
      ...images.map((path) => ({ type: "localImage", path })),
    ];
    try {
      if (running) {
        await this.rpc("turn/steer", { threadId: this.thread.id, input, expectedTurnId: running });
        this.transcript.notice(`↳ steered: ${text}`);
      } else {
        const { model, effort, approvalPolicy } = this.options.settings;
        this.emptyThread = null;
        await this.rpc("turn/start", { threadId: this.thread.id, input, model, effort, approvalPolicy });
      }
    } catch (error) {
      if (running && error instanceof RpcCallError && error.code === METHOD_NOT_FOUND)
        this.transcript.notice(
          "this server does not support turn/steer: wait for the turn to end or press Esc",
          "warn",
        );
      else this.transcript.notice(`error: ${(error as Error).message}`, "error");
    }
    this.scheduleRender();
  }

  quit(code = 0): void {
    if (this.closed) return;
    this.closed = true;
    if (this.ticker) clearInterval(this.ticker);
    // The transcript stays in the terminal; the composer and status line go (no stale frame).
    this.screen.draw(this.layout.rows(this.transcript.blocks, this.width));
    this.screen.release();
    const { input, output } = this.options;
    output.write("\x1b[?2004l");
    if (input.isTTY) input.setRawMode(false);
    input.pause();
    this.exitThreadId = this.keptThreadId;
    void this.dropEmptyThread().finally(() => {
      this.client?.close();
      this.exit(code);
    });
  }

  private onNotification(method: string, params: unknown): void {
    const notification = readNotification(method, params);
    if (!notification) return;
    if (this.fileSearch.onNotification(notification)) return;
    if (notification.method === "thread/tokenUsage/updated") {
      // A resumed thread's restored usage can be read before the reply that opens it.
      const { threadId, tokenUsage } = notification.params;
      if (tokenUsage && (threadId === this.thread?.id || threadId === this.opening))
        this.usage = { threadId, view: tokenUsage };
      this.scheduleRender();
      return;
    }
    if ("threadId" in notification.params && notification.params.threadId !== this.thread?.id) return;
    if (notification.method === "turn/started") this.startTicker();
    if (notification.method === "turn/completed") {
      if (this.ticker) clearInterval(this.ticker);
      this.ticker = null;
      this.fileSearch.refresh();
    }
    if (this.transcript.apply(notification)) this.scheduleRender();
  }

  private startTicker(): void {
    if (this.ticker) clearInterval(this.ticker);
    this.ticker = setInterval(() => this.scheduleRender(), 1000);
    this.ticker.unref();
  }

  private onServerRequest(method: string, params: unknown): Promise<unknown> {
    const request = readServerRequest(method, params);
    switch (request?.method) {
      case "item/commandExecution/requestApproval":
      case "item/fileChange/requestApproval":
        return new Promise((resolve) => {
          const notice = (text: string, tone: "info" | "warn") => this.transcript.notice(text, tone);
          this.openView(new ApprovalView(request, (decision) => resolve({ decision }), notice));
        });
      case "item/tool/requestUserInput":
        return new Promise((resolve, reject) => {
          this.askAbove(new QuestionPrompt(request.params.questions, resolve, reject));
        });
      case "mcpServer/elicitation/request": {
        const elicitation = parseElicitation(request.params);
        if (!elicitation) break;
        return new Promise((resolve) => {
          this.askAbove(new ElicitationPrompt(elicitation, resolve));
        });
      }
    }
    return Promise.reject(new Error(`the terminal UI does not answer ${method}`));
  }

  private onInput(data: string): void {
    for (const key of parseKeys(data)) {
      this.onKey(key);
      this.mentions.update(this.composer);
    }
    // Echo first: a keystroke is drawn before anything else queued.
    this.render();
  }

  private onKey(key: Key): void {
    if (key.name !== "ctrl-c") this.lastCtrlC = 0;
    this.views.onKey(key);
  }

  /** The keys of the composer (and of the `@` menu while it is open). */
  private onComposerKey(key: Key): void {
    const composer = this.composer;
    if (this.mentions.open && this.onMentionKey(key)) return;
    switch (key.name) {
      case "text":
        composer.insert(key.text);
        return;
      case "newline":
        composer.insert("\n");
        return;
      case "enter": {
        if (composer.text.trim() === "") return;
        void this.submit(composer.take());
        return;
      }
      case "backspace":
        composer.backspace();
        return;
      case "delete":
        composer.deleteForward();
        return;
      case "left":
        composer.left();
        return;
      case "right":
        composer.right();
        return;
      case "home":
        composer.home();
        return;
      case "end":
        composer.end();
        return;
      case "up":
        composer.up();
        return;
      case "down":
        composer.down();
        return;
      case "ctrl-u":
        composer.clear();
        return;
      case "escape":
        this.interrupt();
        return;
      case "ctrl-d":
        if (composer.empty) this.quit(0);
        return;
      case "ctrl-c":
        this.onCtrlC();
        return;
      case "tab":
        return;
    }
  }

  /**
   * Ctrl+C as Codex's: it clears a composer with text; else it interrupts a running turn (as Esc
   * does, the command killed with it); on an idle, empty composer it asks for a second press
   * within QUIT_WINDOW_MS, then quits. The ask is the composer's hint, not a transcript line.
   */
  private onCtrlC(): void {
    const now = Date.now();
    if (!this.composer.empty) {
      this.composer.clear();
      this.lastCtrlC = 0;
      return;
    }
    if (this.transcript.runningTurnId) {
      this.lastCtrlC = 0;
      this.interrupt();
      return;
    }
    if (now - this.lastCtrlC <= QUIT_WINDOW_MS) {
      this.quit(0);
      return;
    }
    this.lastCtrlC = now;
    // The hint goes when the window closes.
    setTimeout(() => this.scheduleRender(), QUIT_WINDOW_MS + 10).unref();
  }

  /** Keys the `@` file menu takes while it is open; false for the others. */
  private onMentionKey(key: Key): boolean {
    switch (key.name) {
      case "up":
      case "down":
        this.mentions.move(key.name === "up" ? -1 : 1);
        return true;
      case "tab":
      case "enter":
        this.mentions.accept(this.composer);
        return true;
      case "escape":
        this.mentions.dismiss(this.composer);
        return true;
      default:
        return false;
    }
  }

  private interrupt(): void {
    const turnId = this.transcript.runningTurnId;
    if (!turnId || !this.thread) return;
    this.rpc("turn/interrupt", { threadId: this.thread.id, turnId }).catch((error: Error) => {
      this.transcript.notice(`interrupt failed: ${error.message}`, "error");
      this.scheduleRender();
    });
  }

  scheduleRender(): void {
    if (this.renderQueued) return;
    this.renderQueued = true;
    setImmediate(() => this.render());
  }

  private get width(): number {
    return Math.max(20, this.options.output.columns || 80);
  }

  /** Builds the frame and writes its difference from the last one. */
  render(): number {
    this.renderQueued = false;
    // Quit drew the last frame (the transcript without the composer): nothing comes after it.
    if (this.closed) return 0;
    const width = this.width;
    const s = this.style;
    const rows = this.layout.rows(this.transcript.blocks, width);
    rows.push(...this.views.rows(s, width));
    const turnStartedAt = this.transcript.runningTurnId ? this.transcript.turnStartedAt : null;
    rows.push(statusRow({ thread: this.thread, usage: this.tokenUsage, turnStartedAt }, s, width));
    return this.screen.draw(rows);
  }

  /** The composer with its hint, and the `/` and `@` menus under it. */
  private composerRows(s: Style, width: number): string[] {
    const quitting = Date.now() - this.lastCtrlC <= QUIT_WINDOW_MS;
    const hint =
      this.hint ||
      (quitting ? "press Ctrl+C again to quit" : "") ||
      (this.transcript.runningTurnId
        ? "Enter steers the turn · Esc interrupts"
        : "Ask anything · / for commands");
    return [
      ...composerRows(this.composer.text, this.composer.cursor, width, s, hint),
      ...this.commandMenuRows(width),
      ...this.mentions.rows(s, width),
    ];
  }

  /** While the composer holds a bare `/word`, the commands it could be. */
  private commandMenuRows(width: number): string[] {
    const text = this.composer.text;
    if (!/^\/\S*$/.test(text)) return [];
    return Object.entries(SLASH_COMMANDS)
      .filter(([name]) => name.startsWith(text))
      .map(
        ([name, what]) =>
          wrapLine(`${this.style.cyan(name.padEnd(11))} ${this.style.dim(what)}`, width)[0] ?? "",
      );
  }
}
