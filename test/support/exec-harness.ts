/**
 * The scaffolding of the end-to-end tests: one fake model server per file (reset before each
 * test), a fresh temporary home whose config.toml points at it, and a fresh work dir (`git init`ed
 * unless told otherwise), removed after each test.
 *
 * ```ts
 * const h = useExecHarness({ execArgs: ["--full-auto"] });
 * it("runs", async () => {
 *   h.server.enqueue(turn(functionCall("shell_command", { command: "ls" }, "call_1")), turn(message("ok")));
 *   expect((await h.exec(["go"])).code).toBe(0);
 *   expect(h.outputOf(1, "call_1")).toContain("Exit code: 0");
 * });
 * ```
 */
import { execFileSync } from "node:child_process";
import { afterAll, afterEach, beforeAll, beforeEach } from "vitest";
import type { ResponseItem } from "../../src/protocol/items.js";
import { type CliOptions, type CliResult, type FakeProviderConfig, runCli, writeFakeConfig } from "./cli.js";
import { type FakeModelServer, startFakeModelServer } from "./fake-model-server.js";
import { skipIfSandboxWasNeeded } from "./skips.js";
import { type TempDir, tmpdir } from "./tmpdir.js";

/** Provider settings of the config.toml the harness writes (the base URL is the fake server's). */
export type HarnessConfig = Omit<FakeProviderConfig, "baseUrl">;

export interface ExecHarnessOptions {
  /** The config.toml written before each test; `false` writes none. Default: the Responses wire. */
  config?: HarnessConfig | false;
  /** `git init` the work dir before each test (default true). */
  git?: boolean;
  /** Arguments `exec()` puts right after `exec`, e.g. `["--full-auto"]` or `["-s", "danger-full-access"]`. */
  execArgs?: string[];
  /** Environment of every run, besides FAKE_KEY (a run's own `env` adds to it). */
  env?: Record<string, string>;
  /** The API key the config names (FAKE_KEY); default "sk-test". */
  key?: string;
}

export interface ExecHarness {
  /** The fake model server (started once per file, reset before each test). */
  readonly server: FakeModelServer;
  /** This test's TSCODEX_HOME (and HOME) path. */
  readonly home: string;
  /** This test's work dir path (the CLI's cwd). */
  readonly work: string;
  /** Runs `tscodex exec <execArgs> <args>` in the work dir with FAKE_KEY set. */
  exec(args: string[], options?: Partial<CliOptions>): Promise<CliResult>;
  /** Runs `tscodex <args>` in the work dir with FAKE_KEY set. */
  cli(args: string[], options?: Partial<CliOptions>): Promise<CliResult>;
  /** Rewrites config.toml for the fake server with other settings. */
  writeConfig(config?: HarnessConfig): Promise<void>;
  /** The environment for the library API: FAKE_KEY, PATH, and HOME = the test's home. */
  libraryEnv(): Record<string, string>;
  /** The tool outputs request `requestIndex` (negative counts from the end) sent back, by call id. */
  outputs(requestIndex?: number): Record<string, unknown>;
  /** The output of one function call in request `requestIndex`; throws if there is none. */
  outputOf(requestIndex: number, callId: string): string;
}

/**
 * Registers the vitest hooks of an end-to-end test file (call it at the top level, once) and
 * returns the handle the tests use; `home` and `work` are fresh for each test.
 */
export function useExecHarness(options: ExecHarnessOptions = {}): ExecHarness {
  const key = options.key ?? "sk-test";
  let server: FakeModelServer | undefined;
  let home: TempDir | undefined;
  let work: TempDir | undefined;
  const current = <T>(value: T | undefined, name: string): T => {
    if (value === undefined) throw new Error(`exec harness: no ${name} outside a test`);
    return value;
  };

  const harness: ExecHarness = {
    get server() {
      return current(server, "server");
    },
    get home() {
      return current(home, "home").path;
    },
    get work() {
      return current(work, "work dir").path;
    },
    exec(args, runOptions = {}) {
      return harness.cli(["exec", ...(options.execArgs ?? []), ...args], runOptions);
    },
    async cli(args, runOptions = {}) {
      const result = await runCli(args, {
        cwd: harness.work,
        home: harness.home,
        ...runOptions,
        env: { FAKE_KEY: key, ...options.env, ...runOptions.env },
      });
      // A machine without bubblewrap or the Landlock helper skips a test whose commands needed one.
      await skipIfSandboxWasNeeded(
        `${result.stdout}${result.stderr}${JSON.stringify(harness.server.requests)}`,
      );
      return result;
    },
    writeConfig(config = {}) {
      return writeFakeConfig(harness.home, { ...config, baseUrl: harness.server.url });
    },
    libraryEnv() {
      return { FAKE_KEY: key, PATH: process.env.PATH ?? "", HOME: harness.home };
    },
    outputs(requestIndex = -1) {
      return callOutputs(harness.server.requests.at(requestIndex)?.input ?? []);
    },
    outputOf(requestIndex, callId) {
      return outputOf(harness.server.requests.at(requestIndex)?.input ?? [], callId);
    },
  };

  beforeAll(async () => {
    server = await startFakeModelServer();
  });
  afterAll(() => server?.close());
  beforeEach(async () => {
    harness.server.reset();
    home = await tmpdir("tscodex-home-");
    work = await tmpdir("tscodex-work-");
    if (options.git ?? true) execFileSync("git", ["init", "-q", work.path]);
    if (options.config !== false) await harness.writeConfig(options.config);
  });
  afterEach(async () => {
    await home?.cleanup();
    await work?.cleanup();
  });
  return harness;
}

/** The tool outputs (function and custom calls) in `input`, by call id; a later one wins. */
export function callOutputs(input: readonly ResponseItem[]): Record<string, unknown> {
  const byCall: Record<string, unknown> = {};
  for (const item of input) {
    if (item.type === "function_call_output" || item.type === "custom_tool_call_output")
      byCall[item.call_id] = item.output;
  }
  return byCall;
}

/** The output of function call `callId` in `input` (JSON for content items); throws if there is none. */
export function outputOf(input: readonly ResponseItem[], callId: string): string {
  for (const item of input) {
    if (item.type === "function_call_output" && item.call_id === callId)
      return typeof item.output === "string" ? item.output : JSON.stringify(item.output);
  }
  throw new Error(`no output for ${callId}`);
}
