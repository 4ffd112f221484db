/**
 * What every connection of one `tscodex app-server` process shares: the configuration (reloaded
 * on request), the ThreadManager, and one ThreadChannel per thread a client opened.
 * Threads outlive connections: a client that reconnects (or another one) resumes them by id,
 * and a restarted server loads them from their rollouts.
 */
import { homedir } from "node:os";
import { type Config, type ConfigLoadFlags, loadConfig } from "../../config/load.js";
import { applyOverride, type ConfigOverride, parseOverride } from "../../config/overrides.js";
import { PermissionProfileError, resolvePermissionProfile } from "../../config/permission-profiles.js";
import type { Permissions } from "../../protocol/permissions.js";
import {
  type ApprovalPolicy,
  approvalPolicySchema,
  type SandboxMode,
  sandboxModeSchema,
} from "../../protocol/policy.js";
import { DEFAULT_APPROVAL_TIMEOUT_MS } from "../../session/approvals.js";
import { DEFAULT_CLIENT_TOOL_TIMEOUT_MS } from "../../session/client-calls.js";
import type { Thread } from "../../session/thread.js";
import type { OpenThreadOptions, ThreadManager } from "../../session/thread-manager.js";
import { ThreadBusyError } from "../../store/index.js";
import { encodeNotification, RpcError } from "./protocol/jsonrpc.js";
import type { SkillRootWatcher } from "./skill-watch.js";
import type { ChannelHost, ThreadChannel } from "./thread-channel.js";
import { checkThreadId } from "./thread-id.js";
import { TurnKeys } from "./turn-keys.js";

/** How long a keyed turn whose client left waits for a resend (config `app_server.reconnect_grace_ms`). */
export const DEFAULT_RECONNECT_GRACE_MS = 60_000;

/** A stored thread's model, provider and policies, as its rollout started. */
export interface StoredChoice {
  model: string;
  provider: string;
  approvalPolicy?: ApprovalPolicy;
  sandboxMode?: SandboxMode;
  /** The permission profile it started under, resolved again from today's config. */
  permissions?: Permissions;
}

export interface RuntimeOptions {
  /** Raw `-c key=value` overrides for every thread. */
  config?: string[];
  env?: NodeJS.ProcessEnv;
  /** How config is read at every load (the UI's `--strict-config`, `--ignore-user-config`, `--ignore-rules`). */
  load?: ConfigLoadFlags;
}

/** A client connection, as far as server-wide notifications need it. */
export interface Connection {
  readonly initialized: boolean;
  send(text: string): void;
}

/** The `originator` of our model requests and the rollouts' `source`. */
export const ORIGINATOR = "tscodex_app_server";
export const SOURCE = "app-server";

/** The agent core, the thread store and the thread channels (notifications, questions). */
function loadThreadModules() {
  return Promise.all([
    import("../../session/thread-manager.js"),
    import("../../store/index.js"),
    import("./thread-channel.js"),
  ]);
}

export class AppServerRuntime implements ChannelHost {
  private readonly channels = new Map<string, ThreadChannel>();
  private manager: Promise<ThreadManager> | null = null;
  /** Set with the manager: a channel serves a thread, and there are threads only once it is loaded. */
  private channelClass: typeof ThreadChannel | null = null;
  /** `skills/extraRoots/set`: skill roots besides Codex's, for skills/list and threads opened from now on. */
  skillExtraRoots: readonly string[] = [];
  private readonly connections = new Set<Connection>();
  /** Loaded with the first directory whose skills a client cares about (off the handshake's path). */
  private skillWatch: Promise<SkillRootWatcher> | null = null;
  private closed = false;
  /** turn/start's `clientUserMessageId` keys, per thread (they outlive the thread's channel). */
  readonly turnKeys = new TurnKeys();
  /**
   * The API key `account/login/start` gave, as the value of the provider's `env_key` variable:
   * kept in this process's memory only (never written, logged or sent back), and seen only by
   * the configuration, not by the environment of commands or hooks.
   */
  private loginKey: { envKey: string; key: string } | null = null;

  private constructor(
    private current: Config,
    private readonly overrides: ConfigOverride[],
    readonly env: NodeJS.ProcessEnv,
    private readonly load: ConfigLoadFlags = {},
  ) {}

  static async create(options: RuntimeOptions = {}): Promise<AppServerRuntime> {
    const overrides = (options.config ?? []).map(parseOverride);
    const env = options.env ?? process.env;
    const load = options.load ?? {};
    const config = await loadConfig({ ...load, overrides, env });
    return new AppServerRuntime(config, overrides, env, load);
  }

  /**
   * The threads of this process. Loaded on first use: the agent core (model client, tools,
   * policy) is most of the code, and `initialize` should not wait for it; nor for the thread
   * channels (notifications, questions to the client and their schemas).
   */
  threads(): Promise<ThreadManager> {
    this.manager ??= loadThreadModules().then(
      async ([{ ThreadManager }, { openThreadStore }, { ThreadChannel }]) => {
        this.channelClass = ThreadChannel;
        const store = await openThreadStore(this.current);
        return new ThreadManager({
          config: this.current,
          store,
          source: SOURCE,
          originator: ORIGINATOR,
          env: this.env,
        });
      },
    );
    return this.manager;
  }

  /**
   * Load the code threads() needs without opening the store or starting anything: the background
   * load after the handshake, so a client's first thread/start does not wait for the modules.
   */
  preloadThreads(): Promise<unknown> {
    return loadThreadModules();
  }

  /** The server's configuration (config.toml + the CLI's -c), as last loaded. */
  get config(): Config {
    return this.current;
  }

  /** Read config.toml again: threads opened from now on use it. */
  async reloadConfig(): Promise<Config> {
    this.current = await this.configWith({});
    return this.current;
  }

  /**
   * The server's configuration with a thread's own overrides (dotted keys) applied last; with
   * `cwd`, that project's `.codex/config.toml` layers too when the user trusts it (as exec).
   */
  configWith(extra: Record<string, unknown>, cwd?: string): Promise<Config> {
    const own = Object.entries(extra).map(([key, value]) => ({ path: key.split("."), value }));
    const env = this.loginKey ? { ...this.env, [this.loginKey.envKey]: this.loginKey.key } : this.env;
    return loadConfig({ ...this.load, overrides: [...this.overrides, ...own], env, ...(cwd ? { cwd } : {}) });
  }

  /**
   * Use `key` as the value of `envKey` for threads opened from now on (null: forget the key
   * given before, so the environment's own value is used again).
   */
  async setLoginKey(login: { envKey: string; key: string } | null): Promise<void> {
    this.loginKey = login;
    await this.reloadConfig();
  }

  /** Whether `account/login/start` gave a key that is still in use. */
  get loggedIn(): boolean {
    return this.loginKey !== null;
  }

  /**
   * The configuration in config.toml's terms: the file's table with the server's -c flags
   * applied, and the model and provider actually in use.
   */
  effectiveConfig(file: Record<string, unknown>, config: Config = this.current): Record<string, unknown> {
    const table = structuredClone(file);
    for (const override of this.overrides) applyOverride(table, override);
    return JSON.parse(
      JSON.stringify({ ...table, model: config.model, model_provider: config.provider.id }),
    ) as Record<string, unknown>;
  }

  /** Whether the server's -c flags set `keyPath` (or a table holding it): a file edit does not show. */
  overridden(keyPath: string): boolean {
    return this.overrides.some(({ path }) => {
      const key = path.join(".");
      return keyPath === key || keyPath.startsWith(`${key}.`);
    });
  }

  approvalBoundMs(): number {
    const bound = this.current.approvalTimeoutMs ?? DEFAULT_APPROVAL_TIMEOUT_MS;
    // Ours ends first, so the declared outcome is ours and not raced by the thread's own timer.
    return Math.max(1, bound - Math.min(250, bound / 10));
  }

  toolBoundMs(): number {
    // A safety net only: the thread ends an unanswered call itself at client_tool_timeout_ms.
    return (this.current.clientToolTimeoutMs ?? DEFAULT_CLIENT_TOOL_TIMEOUT_MS) + 5_000;
  }

  userInputBoundMs(): number {
    // A safety net only: the thread ends an unanswered question itself at approval_timeout_ms.
    return (this.current.approvalTimeoutMs ?? DEFAULT_APPROVAL_TIMEOUT_MS) + 5_000;
  }

  /** A client connected (until `disconnected`): it hears server-wide notifications once initialized. */
  connected(connection: Connection): void {
    this.connections.add(connection);
  }

  disconnected(connection: Connection): void {
    this.connections.delete(connection);
  }

  /** Send a notification to every initialized connection. */
  broadcast(method: string, params: unknown): void {
    const text = encodeNotification(method, params);
    for (const connection of this.connections) if (connection.initialized) connection.send(text);
  }

  /** Skills may have changed (on disk, in config, in the extra roots): every client lists again. */
  skillsChanged(): void {
    this.broadcast("skills/changed", {});
  }

  /**
   * Tell every client when the skills `cwd` sees change on disk (skill-watch.ts). Resolves once
   * its roots are watched.
   */
  async watchSkillsOf(cwd: string): Promise<void> {
    if (this.closed) return;
    this.skillWatch ??= import("./skill-watch.js").then(
      ({ SkillRootWatcher }) =>
        new SkillRootWatcher({
          home: () => this.current.home,
          env: this.env,
          extraRoots: () => this.skillExtraRoots,
          onChange: () => this.skillsChanged(),
        }),
    );
    const watch = await this.skillWatch;
    if (this.closed) watch.close();
    else await watch.addCwd(cwd);
  }

  /** The skill roots changed (extra roots set): watch the new set; resolves once watched. */
  async rewatchSkills(): Promise<void> {
    await (await this.skillWatch)?.sync();
  }

  reconnectGraceMs(): number {
    return this.current.appServerReconnectGraceMs ?? DEFAULT_RECONNECT_GRACE_MS;
  }

  /** Serve `thread` (just started or loaded by threads()): its channel, created or re-bound. */
  adopt(thread: Thread): ThreadChannel {
    void this.watchSkillsOf(thread.cwd);
    let channel = this.channels.get(thread.id);
    if (!channel) {
      if (!this.channelClass)
        throw new Error(`thread ${thread.id} did not come from this runtime's threads()`);
      channel = new this.channelClass(thread.id, this);
      this.channels.set(thread.id, channel);
    }
    channel.bind(thread);
    return channel;
  }

  /** The channel of thread `id` if a client opened it in this process. */
  channel(id: string): ThreadChannel | undefined {
    return this.channels.get(id);
  }

  /**
   * Thread `id` ready for a turn: its channel with a live thread, loading the thread from its
   * rollout when it left memory (idle expiry) or this process never had it. A loaded thread gets
   * back the model, provider and policies its rollout started with; `options` win. Throws
   * Codex's "invalid thread id" / "thread not found".
   */
  async open(id: string, options: OpenThreadOptions = {}): Promise<ThreadChannel> {
    checkThreadId(id);
    const threads = await this.threads();
    const live = threads.peek(id);
    if (live) return this.adopt(live);
    const base = await this.storedChoice(id);
    if (!base) throw RpcError.invalidRequest(`thread not found: ${id}`);
    const { provider, ...restored } = base;
    const config =
      options.config ??
      (provider === this.current.provider.id
        ? this.current
        : await this.configWith({ model_provider: provider }).catch(() => this.current));
    let thread: Thread;
    try {
      thread = await threads.resume(id, { ...restored, ...options, config });
    } catch (error) {
      // Another process is running a turn on it (a shared store): say so, not "not found".
      if (error instanceof ThreadBusyError) throw RpcError.invalidRequest(error.message);
      throw RpcError.invalidRequest(`thread not found: ${id}`);
    }
    if (thread.id !== id) throw RpcError.invalidRequest(`thread not found: ${id}`);
    return this.adopt(thread);
  }

  /**
   * What thread `id` started with, from its rollout's first line (the options a reload or a
   * fork starts from); null when it is stored nowhere.
   */
  async storedChoice(id: string): Promise<StoredChoice | null> {
    const stored = await (await this.threads()).read(id).catch(() => null);
    if (!stored) return null;
    const { meta } = stored;
    const approvalPolicy = approvalPolicySchema.safeParse(meta.approval_policy).data;
    const sandboxMode = sandboxModeSchema.safeParse(meta.sandbox_mode).data;
    const permissions = meta.permission_profile ? this.storedProfile(meta.permission_profile) : undefined;
    return {
      model: meta.model,
      provider: meta.provider,
      ...(approvalPolicy ? { approvalPolicy } : {}),
      ...(permissions ? { permissions } : sandboxMode ? { sandboxMode } : {}),
    };
  }

  /**
   * A stored thread's profile as today's config defines it; undefined when it no longer does
   * (the thread then gets its stored sandbox mode, as before profiles).
   */
  private storedProfile(id: string): Permissions | undefined {
    try {
      return resolvePermissionProfile(this.current.permissionProfiles, id, homedir());
    } catch (error) {
      if (error instanceof PermissionProfileError) return undefined;
      throw error;
    }
  }

  /** A channel whose thread shut down (idle expiry, archive, rollback) is forgotten. */
  released(channel: ThreadChannel): void {
    if (this.channels.get(channel.id) === channel) this.channels.delete(channel.id);
  }

  /** Ids of the threads in memory now that a client opened. */
  loadedThreads(): string[] {
    return [...this.channels.keys()];
  }

  /** Shut every thread down (running turns end, processes stop) and flush the rollouts. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.skillWatch) (await this.skillWatch).close();
    if (this.manager) await (await this.manager).close();
  }
}
