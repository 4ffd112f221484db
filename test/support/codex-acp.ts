/**
 * codex-acp (`@agentclientprotocol/codex-acp`, the ACP adapter editors use to drive Codex) run
 * on tscodex: spawned as its bin with `CODEX_PATH` naming a small wrapper that runs
 * `tscodex app-server`, and driven with the ACP SDK's client side over its stdio. Its own log
 * (`APP_SERVER_LOGS`) records every line it wrote to and read from the app-server; `appServerLog`
 * reads it back as JSON-RPC messages so a test can check what it called and what it got.
 *
 * ```ts
 * const h = useCodexAcpHarness();
 * it("answers", async () => {
 *   h.script(turn(message("hi")));
 *   const acp = await h.client();                 // spawned and initialized
 *   const sessionId = await h.newSession(acp);
 *   expect((await h.prompt(acp, sessionId, "hello")).stopReason).toBe("end_turn");
 *   await h.expectEveryCallServed(acp);           // closes it, then checks its log
 * });
 * ```
 */
import { spawn } from "node:child_process";
import { chmod, mkdir, readFile, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { join } from "node:path";
import type {
  PromptResponse,
  RequestPermissionRequest,
  RequestPermissionResponse,
  SessionNotification,
} from "@agentclientprotocol/sdk";
import { afterAll, afterEach, beforeAll, beforeEach, expect } from "vitest";
import { type AcpClientOptions, type AcpProcess, acpClientOf } from "./acp-client.js";
import { CLI_PATH, writeFakeConfig } from "./cli.js";
import {
  type FakeModelServer,
  message,
  type Script,
  startFakeModelServer,
  turn,
} from "./fake-model-server.js";
import { type TempDir, tmpdir } from "./tmpdir.js";

const require = createRequire(import.meta.url);
/** codex-acp's bin (its package exports no subpath, so resolve the directory through package.json). */
export const CODEX_ACP_BIN = join(
  require.resolve("@agentclientprotocol/codex-acp/package.json"),
  "..",
  "dist/index.js",
);

export interface CodexAcpOptions {
  /** TSCODEX_HOME (its config.toml names the fake model). */
  home: string;
  /** Where codex-acp runs, and where the `tscodex` wrapper script is written. */
  work: string;
  /** APP_SERVER_LOGS: codex-acp's log directory (app-server.log). */
  logs: string;
  /** Extra environment (e.g. FAKE_KEY). */
  env?: Record<string, string>;
  /** The client's answer to `session/request_permission` (default: the first allow_once option). */
  onPermission?: (request: RequestPermissionRequest) => RequestPermissionResponse;
}

/** A codex-acp process and the ACP client connected to it. */
export type CodexAcp = AcpProcess;

/** `$CODEX_PATH`: one executable (codex-acp spawns it with no shell) that runs tscodex. */
async function writeWrapper(dir: string): Promise<string> {
  const path = join(dir, "tscodex-wrapper.sh");
  await writeFile(
    path,
    `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(CLI_PATH)} "$@"\n`,
  );
  await chmod(path, 0o755);
  return path;
}

export async function startCodexAcp(options: CodexAcpOptions): Promise<CodexAcp> {
  const wrapper = await writeWrapper(options.logs);
  const child = spawn(process.execPath, [CODEX_ACP_BIN], {
    cwd: options.work,
    env: {
      PATH: process.env.PATH ?? "",
      HOME: options.home,
      TSCODEX_HOME: options.home,
      FAKE_KEY: "sk-test",
      CODEX_PATH: wrapper,
      APP_SERVER_LOGS: options.logs,
      NO_BROWSER: "1",
      ...options.env,
    },
    stdio: ["pipe", "pipe", "pipe"],
  });
  return acpClientOf(child, options);
}

/** One JSON-RPC message codex-acp exchanged with the app-server. */
export interface LoggedMessage {
  /** "in": codex-acp → app-server; "out": app-server → codex-acp. */
  direction: "in" | "out";
  id?: number | string | null;
  method?: string;
  params?: unknown;
  result?: unknown;
  error?: { code: number; message: string };
}

const ENTRY_START = /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3} /;
const CONTEXT_END = / \{"pid":\d+\}$/;

/**
 * codex-acp's app-server traffic from its log: each `[IN]` / `[OUT]` entry holds a chunk of
 * what it wrote / read (an entry may span lines, and a message may span chunks), so the chunks
 * of each direction are joined and split into JSON lines again.
 */
export async function appServerLog(logs: string): Promise<LoggedMessage[]> {
  const text = await readFile(join(logs, "app-server.log"), "utf8");
  const entries: string[] = [];
  for (const line of text.split("\n")) {
    if (ENTRY_START.test(line)) entries.push(line.replace(ENTRY_START, ""));
    else if (entries.length > 0) entries[entries.length - 1] += `\n${line}`;
  }
  const streams = { in: "", out: "" };
  const messages: LoggedMessage[] = [];
  const drain = (direction: "in" | "out") => {
    let newline = streams[direction].indexOf("\n");
    while (newline >= 0) {
      const line = streams[direction].slice(0, newline).trim();
      streams[direction] = streams[direction].slice(newline + 1);
      if (line.startsWith("{")) messages.push({ direction, ...(JSON.parse(line) as object) });
      newline = streams[direction].indexOf("\n");
    }
  };
  for (const entry of entries) {
    const match = /^\[(IN|OUT)\] /.exec(entry);
    if (!match) continue;
    const direction = match[1] === "IN" ? "in" : "out";
    streams[direction] += entry.slice(match[0].length).replace(CONTEXT_END, "");
    drain(direction);
  }
  return messages;
}

/**
 * The requests codex-acp sent that the app-server answered with an error (with `code` when
 * given), as "method: code message".
 */
export function answeredWith(messages: readonly LoggedMessage[], code?: number): string[] {
  const methods = new Map<unknown, string>();
  for (const message of messages)
    if (message.direction === "in" && message.method !== undefined && message.id != null)
      methods.set(message.id, message.method);
  return messages
    .filter(
      (message) =>
        message.direction === "out" && message.error && (code ?? message.error.code) === message.error.code,
    )
    .map((message) => `${methods.get(message.id) ?? "?"}: ${message.error?.code} ${message.error?.message}`);
}

/** The methods codex-acp called on the app-server, in order (repeats kept). */
export function calledMethods(messages: readonly LoggedMessage[]): string[] {
  return messages
    .filter((message) => message.direction === "in" && message.method !== undefined && message.id != null)
    .map((message) => message.method as string);
}

type Update = SessionNotification["update"];

export interface CodexAcpHarness {
  readonly model: FakeModelServer;
  /** TSCODEX_HOME, with a config.toml naming the fake model. */
  readonly home: string;
  /** The sessions' cwd. */
  readonly work: string;
  /** codex-acp's APP_SERVER_LOGS. */
  readonly logs: string;
  /**
   * Answer the model requests: the sessions' in order, and codex-acp's title side turns (an
   * ephemeral thread asking for `{"title": …}` after a session's first prompt, at a time of its
   * own) whenever they come.
   */
  script(...turns: Script[]): void;
  /** A codex-acp, initialized as a plain client (no fs, no terminal); closed after the test. */
  client(options?: Partial<CodexAcpOptions>): Promise<CodexAcp>;
  /**
   * `tscodex acp` itself (the native agent, same home and work dir), initialized; with `files`
   * the client offers the editor's files (fs/*). Closed after the test. The helpers below work
   * on either.
   */
  native(options?: AcpClientOptions & { env?: Record<string, string> }): Promise<AcpProcess>;
  /** `session/new` in `work` (then `session/set_mode` when `modeId` is given); the session id. */
  newSession(acp: CodexAcp, mcpServers?: unknown[], modeId?: string): Promise<string>;
  prompt(acp: CodexAcp, sessionId: string, text: string): Promise<PromptResponse>;
  /** The session's updates of one kind (`tool_call`, `agent_message_chunk`, …). */
  updatesOf<K extends Update["sessionUpdate"]>(
    acp: CodexAcp,
    sessionId: string,
    kind: K,
  ): Extract<Update, { sessionUpdate: K }>[];
  /** Tool call `id`: its start and every later update of it, merged in order. */
  toolCall(acp: CodexAcp, sessionId: string, id: string): Record<string, unknown>;
  /** A command's output as codex-acp streams it to a plain client (`_meta.terminal_output_delta`). */
  commandOutput(acp: CodexAcp, sessionId: string, id: string): string;
  /**
   * Close `acp` (so its log is complete, title side turns included), check that the app-server
   * answered none of its requests with an error (-32601 included), and return the methods it called.
   */
  expectEveryCallServed(acp: CodexAcp): Promise<string[]>;
}

export function useCodexAcpHarness(): CodexAcpHarness {
  let model: FakeModelServer | undefined;
  let dir: TempDir | undefined;
  const opened: CodexAcp[] = [];
  const paths = () => {
    if (!dir) throw new Error("codex-acp harness: no temp dir outside a test");
    return { home: join(dir.path, "home"), work: join(dir.path, "work"), logs: join(dir.path, "logs") };
  };
  const sessionUpdates = (acp: CodexAcp, sessionId: string) =>
    acp.updates.filter((note) => note.sessionId === sessionId).map((note) => note.update);

  const harness: CodexAcpHarness = {
    get model() {
      if (!model) throw new Error("codex-acp harness: no model server outside a test");
      return model;
    },
    get home() {
      return paths().home;
    },
    get work() {
      return paths().work;
    },
    get logs() {
      return paths().logs;
    },
    script(...turns) {
      const queue = [...turns];
      const route = (request: { rawBody: string }): Script =>
        request.rawBody.includes("very short title")
          ? turn(message('{"title":"A test session"}'))
          : (queue.shift() ?? turn(message("(unscripted)")));
      harness.model.enqueue(...Array.from({ length: turns.length + 10 }, () => route));
    },
    async client(options = {}) {
      const acp = await startCodexAcp({ ...paths(), ...options });
      opened.push(acp);
      await acp.agent.request("initialize", {
        protocolVersion: 1,
        clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
      });
      return acp;
    },
    async native(options = {}) {
      const { home, work } = paths();
      const child = spawn(process.execPath, [CLI_PATH, "acp"], {
        cwd: work,
        env: {
          PATH: process.env.PATH ?? "",
          HOME: home,
          TSCODEX_HOME: home,
          FAKE_KEY: "sk-test",
          ...options.env,
        },
        stdio: ["pipe", "pipe", "pipe"],
      });
      const acp = acpClientOf(child, options);
      opened.push(acp);
      const fs = Boolean(options.files);
      await acp.agent.request("initialize", {
        protocolVersion: 1,
        clientCapabilities: { fs: { readTextFile: fs, writeTextFile: fs }, terminal: false },
      });
      return acp;
    },
    async newSession(acp, mcpServers = [], modeId) {
      const session = await acp.agent.request("session/new", { cwd: harness.work, mcpServers } as never);
      if (modeId) await acp.agent.request("session/set_mode", { sessionId: session.sessionId, modeId });
      return session.sessionId;
    },
    prompt(acp, sessionId, text) {
      return acp.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text }] });
    },
    updatesOf<K extends Update["sessionUpdate"]>(acp: CodexAcp, sessionId: string, kind: K) {
      return sessionUpdates(acp, sessionId).filter(
        (update): update is Extract<Update, { sessionUpdate: K }> => update.sessionUpdate === kind,
      );
    },
    toolCall(acp, sessionId, id) {
      const parts = sessionUpdates(acp, sessionId).filter(
        (update) =>
          (update.sessionUpdate === "tool_call" || update.sessionUpdate === "tool_call_update") &&
          update.toolCallId === id,
      );
      return Object.assign({}, ...parts) as Record<string, unknown>;
    },
    commandOutput(acp, sessionId, id) {
      return sessionUpdates(acp, sessionId)
        .map(
          (update) =>
            update as { toolCallId?: string; _meta?: { terminal_output_delta?: { data?: string } } },
        )
        .filter((update) => update.toolCallId === id)
        .map((update) => update._meta?.terminal_output_delta?.data ?? "")
        .join("");
    },
    async expectEveryCallServed(acp) {
      await acp.close();
      const log = await appServerLog(harness.logs);
      // Codex answers everything codex-acp asks in these flows: no error at all, -32601 least of all.
      expect(answeredWith(log)).toEqual([]);
      return calledMethods(log);
    },
  };

  beforeAll(async () => {
    model = await startFakeModelServer();
  });
  afterAll(async () => {
    await model?.close();
  });
  beforeEach(async () => {
    harness.model.reset();
    dir = await tmpdir("tscodex-acp-");
    const { home, work, logs } = paths();
    await Promise.all([mkdir(work, { recursive: true }), mkdir(logs, { recursive: true })]);
    await writeFakeConfig(home, { baseUrl: harness.model.url });
  });
  afterEach(async () => {
    for (const acp of opened.splice(0)) await acp.close();
    await dir?.cleanup();
    dir = undefined;
  });
  return harness;
}
