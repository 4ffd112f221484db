/**
 * The scaffolding of the `tscodex mcp-server` tests: one fake model server per file (reset
 * before each test), a fresh temporary home whose config.toml points at it, and a fresh work dir;
 * the servers a test connects to are closed after it, then home and work dir are removed.
 *
 * ```ts
 * const h = useMcpHarness();
 * it("answers", async () => {
 *   const { client } = await h.connect();
 *   h.model.enqueue(turn(message("done")));
 *   expect((await callTool(client, "codex", { prompt: "go", cwd: h.work })).text).toBe("done");
 * });
 * ```
 */
import { afterAll, afterEach, beforeAll, beforeEach } from "vitest";
import { writeFakeConfig } from "./cli.js";
import { type FakeModelServer, startFakeModelServer } from "./fake-model-server.js";
import {
  connectStdio,
  type ElicitHandler,
  RawStdioClient,
  type ServerEnv,
  type StdioSession,
} from "./mcp-client.js";
import { type TempDir, tmpdir } from "./tmpdir.js";

export interface McpHarnessOptions {
  /** Lines appended to the config.toml written before each test (e.g. `approval_timeout_ms = 1500`). */
  extraConfig?: string;
}

export interface McpHarness {
  /** The fake model server (started once per file, reset before each test). */
  readonly model: FakeModelServer;
  /** This test's TSCODEX_HOME (and HOME) path. */
  readonly home: string;
  /** This test's work dir path (the server's cwd). */
  readonly work: string;
  /** Where a server of this test runs: its home and cwd. */
  serverEnv(): ServerEnv;
  /** Spawns `tscodex mcp-server [args]` and connects an SDK client over stdio; closed after the test. */
  connect(options?: { args?: string[]; onElicit?: ElicitHandler }): Promise<StdioSession>;
  /** Spawns `tscodex mcp-server [args]` behind a raw JSON-RPC client; closed after the test. */
  rawClient(args?: string[]): RawStdioClient;
}

/**
 * Registers the vitest hooks of an MCP server test file (call it at the top level, once) and
 * returns the handle the tests use; `home` and `work` are fresh for each test.
 */
export function useMcpHarness(options: McpHarnessOptions = {}): McpHarness {
  let model: FakeModelServer | undefined;
  let home: TempDir | undefined;
  let work: TempDir | undefined;
  const opened: { close(): Promise<void> }[] = [];
  const current = <T>(value: T | undefined, name: string): T => {
    if (value === undefined) throw new Error(`mcp harness: no ${name} outside a test`);
    return value;
  };

  const harness: McpHarness = {
    get model() {
      return current(model, "model server");
    },
    get home() {
      return current(home, "home").path;
    },
    get work() {
      return current(work, "work dir").path;
    },
    serverEnv() {
      return { home: harness.home, cwd: harness.work };
    },
    async connect(connectOptions = {}) {
      const session = await connectStdio(harness.serverEnv(), connectOptions);
      opened.push(session);
      return session;
    },
    rawClient(args = []) {
      const client = new RawStdioClient(harness.serverEnv(), args);
      opened.push(client);
      return client;
    },
  };

  beforeAll(async () => {
    model = await startFakeModelServer();
  });
  afterAll(() => model?.close());
  beforeEach(async () => {
    harness.model.reset();
    home = await tmpdir("tscodex-mcp-home-");
    work = await tmpdir("tscodex-mcp-work-");
    await writeFakeConfig(harness.home, { baseUrl: harness.model.url, extra: options.extraConfig });
  });
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((closeable) => closeable.close()));
    await home?.cleanup();
    await work?.cleanup();
  });
  return harness;
}
