/**
 * The scaffolding of the `tscodex app-server` tests: one fake model server per file (reset before
 * each test), a fresh temporary home whose config.toml points at it, and a fresh work dir; the
 * servers and clients a test opens are closed after it, then home and work dir are removed.
 *
 * ```ts
 * const h = useAppServerHarness();
 * it("answers", async () => {
 *   const client = await h.stdio();           // spawned and initialized
 *   const { thread } = await client.call("thread/start", { cwd: h.work });
 * });
 * ```
 */
import { afterAll, afterEach, beforeAll, beforeEach } from "vitest";
import { StdioAppClient, WsAppServer } from "./app-server-client.js";
import { writeFakeConfig } from "./cli.js";
import { type FakeModelServer, startFakeModelServer } from "./fake-model-server.js";
import { type TempDir, tmpdir } from "./tmpdir.js";

export interface AppServerHarnessOptions {
  /** Lines added to the config.toml written before each test (e.g. `approval_timeout_ms = 300`). */
  extraConfig?: string;
}

export interface AppServerHarness {
  readonly model: FakeModelServer;
  readonly home: string;
  readonly work: string;
  /** A spawned stdio server, initialized unless `initialize: false`; closed after the test. */
  stdio(options?: {
    args?: string[];
    initialize?: boolean;
    capabilities?: Record<string, unknown>;
  }): Promise<StdioAppClient>;
  /** A spawned WebSocket server (`env`: extra variables); stopped after the test. */
  wsServer(args?: string[], env?: Record<string, string>): Promise<WsAppServer>;
  /** Close something at the end of the test. */
  defer(closeable: { close(): Promise<void> }): void;
}

export function useAppServerHarness(options: AppServerHarnessOptions = {}): AppServerHarness {
  let model: FakeModelServer | undefined;
  let home: TempDir | undefined;
  let work: TempDir | undefined;
  const opened: { close(): Promise<void> }[] = [];
  const current = <T>(value: T | undefined, name: string): T => {
    if (value === undefined) throw new Error(`app-server harness: no ${name} outside a test`);
    return value;
  };

  const harness: AppServerHarness = {
    get model() {
      return current(model, "model server");
    },
    get home() {
      return current(home, "home").path;
    },
    get work() {
      return current(work, "work dir").path;
    },
    async stdio(stdioOptions = {}) {
      const client = new StdioAppClient({ home: harness.home, cwd: harness.work }, stdioOptions.args ?? []);
      opened.push(client);
      if (stdioOptions.initialize !== false) {
        const reply = await client.initialize(stdioOptions.capabilities);
        if (reply.error) throw new Error(`initialize failed: ${reply.error.message}\n${client.stderr}`);
      }
      return client;
    },
    async wsServer(args = [], env = {}) {
      const server = await WsAppServer.start({ home: harness.home, cwd: harness.work, env }, args);
      opened.push({ close: () => server.stop() });
      return server;
    },
    defer(closeable) {
      opened.push(closeable);
    },
  };

  beforeAll(async () => {
    model = await startFakeModelServer();
  });
  afterAll(() => model?.close());
  beforeEach(async () => {
    harness.model.reset();
    home = await tmpdir("tscodex-app-home-");
    work = await tmpdir("tscodex-app-work-");
    await writeFakeConfig(harness.home, { baseUrl: harness.model.url, extra: options.extraConfig });
  });
  afterEach(async () => {
    // Clients first (they end their sessions), then servers.
    for (const closeable of opened.splice(0).reverse()) await closeable.close();
    await home?.cleanup();
    await work?.cleanup();
  });
  return harness;
}
