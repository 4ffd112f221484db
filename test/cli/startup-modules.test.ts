/**
 * The start-up rule for every entry point a host starts and waits for (issue 23): no zod, no
 * commander and no MCP SDK before a request needs them. A one-turn exec, a bare `mcp-server`
 * answering initialize and tools/list, and a bare `app-server` answering initialize run the
 * built CLI with the module-log loader hook; the packages of the loaded files are checked.
 * The app-server validates every request, initialize included, with its zod schemas
 * (app-server/protocol/), so zod is needed there from the first request: only commander and the
 * MCP SDK are held back; and initialize needs only its own schema, not the method table's. The last case shows the check finds a package when it is loaded
 * (commander, for a command only the parser knows).
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { StdioAppClient } from "../support/app-server-client.js";
import { CLI_PATH } from "../support/cli.js";
import { useExecHarness } from "../support/exec-harness.js";
import { message, turn } from "../support/fake-model-server.js";
import { loadedModules, moduleLogEnv } from "../support/module-log.js";

const LAZY_PACKAGES = ["zod", "commander", "@modelcontextprotocol/sdk"];

const PROTOCOL = "src/frontends/app-server/protocol";
/** The schemas of the methods other than initialize (and the wire vocabulary they share). */
const METHOD_TABLE = [`${PROTOCOL}/client-requests.ts`, `${PROTOCOL}/common.ts`];
/** The schemas of what the server asks its client (approvals, client tools): needed with a thread. */
const SERVER_REQUESTS = `${PROTOCOL}/server-messages.ts`;

/**
 * Code a one-turn exec on the Responses wire with no tool call and no --json never runs, loaded
 * when first needed (issue 26: what a one-turn exec loads is its peak RSS).
 */
const LAZY_ON_EXEC = [
  "src/apply-patch/turn-diff.ts",
  "src/model/chat.ts",
  "src/session/agent-control.ts",
  "src/frontends/cli/exec-json.ts",
  // Approval decisions and the sandbox: a thread's policy loads on its first mutating call.
  "src/policy/gate.ts",
  "src/policy/orchestrator.ts",
  "src/policy/approval.ts",
  "src/policy/safe-commands.ts",
  "src/policy/sandbox/prepare.ts",
  // Running hooks (and the process runner hook commands use): with the first hook that runs.
  "src/hooks/run.ts",
  "src/hooks/command.ts",
  "src/exec/spawn.ts",
  "src/exec/head-tail-buffer.ts",
  // With the first MCP server, the first SKILL.md.
  "src/tools/mcp.ts",
  "src/mcp/render.ts",
  "src/prompt/skill-front-matter.ts",
  "src/prompt/skill-file.ts",
  // `exec --remote`: the app-server client, only with --remote (issue 38).
  "src/frontends/cli/exec-remote.ts",
  "src/frontends/cli/remote-events.ts",
  "src/frontends/tui/rpc-client.ts",
  "src/frontends/tui/transports.ts",
];

/**
 * The servers load their runtime in the background right after the handshake (by design; the
 * bench measures it). These cases check what the handshake itself needs, so the background load
 * is off: with it on, whether it shows in the log would depend on when stdin's end arrives.
 */
const NO_PRELOAD = { TSCODEX_PRELOAD: "0" };

/** An MCP host's initialize and initialized, as stdio lines' messages. */
const HANDSHAKE = [
  {
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } },
  },
  { jsonrpc: "2.0", method: "notifications/initialized" },
];

const h = useExecHarness({ execArgs: ["-s", "danger-full-access"] });

const jsonLines = (...messages: object[]) => messages.map((m) => `${JSON.stringify(m)}\n`).join("");

/** The JSON-RPC responses on stdout, by id. */
function responses(stdout: string): Map<unknown, Record<string, unknown>> {
  const parsed = stdout
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line) as Record<string, unknown>);
  return new Map(parsed.filter((m) => "id" in m).map((m) => [m.id, m]));
}

const DATE_CALLS = fileURLToPath(new URL("../fixtures/date-calls/preload.cjs", import.meta.url));

describe("start-up loads no zod, commander or MCP SDK", () => {
  it("one-turn exec", async () => {
    h.server.enqueue(turn(message("hello there")));
    const log = join(h.home, "modules.log");
    const result = await h.exec(["say hello"], { env: moduleLogEnv(log) });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("hello there");
    const { packages, sources, esModules } = await loadedModules(log);
    expect(LAZY_PACKAGES.filter((name) => packages.has(name))).toEqual([]);
    expect(sources).toContain("src/session/thread.ts");
    expect(LAZY_ON_EXEC.filter((source) => sources.has(source))).toEqual([]);
    expect(packages.has("ws")).toBe(false);
    // The CLI is CommonJS (scripts/build.mjs): no ES module, no builtin by an ES import.
    expect([...esModules]).toEqual([]);
  });

  it("bare mcp-server answering initialize and tools/list", async () => {
    const log = join(h.home, "modules.log");
    const stdin = jsonLines(
      {
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } },
      },
      { jsonrpc: "2.0", method: "notifications/initialized" },
      { jsonrpc: "2.0", id: 2, method: "tools/list", params: {} },
    );
    const result = await h.cli(["mcp-server"], { stdin, env: { ...moduleLogEnv(log), ...NO_PRELOAD } });
    expect(result.stderr).not.toContain("Error");
    const replies = responses(result.stdout);
    expect(replies.get(1)?.result).toMatchObject({ serverInfo: expect.any(Object) });
    const listed = replies.get(2)?.result as { tools: { name: string }[] } | undefined;
    expect(listed?.tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(["codex", "codex-reply"]));
    const { packages } = await loadedModules(log);
    expect(LAZY_PACKAGES.filter((name) => packages.has(name))).toEqual([]);
  });

  it("mcp-server loads its runtime in the background once initialize is answered", async () => {
    const log = join(h.home, "modules.log");
    const child = spawn(process.execPath, [CLI_PATH, "mcp-server"], {
      cwd: h.work,
      env: { PATH: process.env.PATH ?? "", HOME: h.home, TSCODEX_HOME: h.home, ...moduleLogEnv(log) },
      stdio: ["pipe", "pipe", "inherit"],
    });
    const closed = once(child, "close");
    try {
      child.stdin.write(jsonLines(...HANDSHAKE));
      let stdout = "";
      child.stdout.setEncoding("utf8");
      for await (const chunk of child.stdout) {
        stdout += chunk as string;
        if (responses(stdout).has(1)) break;
      }
      // No tools/list, no call: the SDK shows up in the log only because of the background load.
      const deadline = Date.now() + 20_000;
      while (!(await loadedModules(log)).packages.has("@modelcontextprotocol/sdk")) {
        expect(Date.now()).toBeLessThan(deadline);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    } finally {
      child.stdin.end();
      await closed;
    }
  });

  it("mcp-server's first plain codex call, at once after tools/list", async () => {
    h.server.enqueue(turn(message("first call done")));
    const log = join(h.home, "modules.log");
    const child = spawn(process.execPath, [CLI_PATH, "mcp-server"], {
      cwd: h.work,
      env: {
        PATH: process.env.PATH ?? "",
        HOME: h.home,
        TSCODEX_HOME: h.home,
        FAKE_KEY: "sk-test",
        ...moduleLogEnv(log),
        ...NO_PRELOAD,
      },
      stdio: ["pipe", "pipe", "inherit"],
    });
    const closed = once(child, "close");
    let stdout = "";
    try {
      child.stdin.write(
        jsonLines(
          ...HANDSHAKE,
          { jsonrpc: "2.0", id: 2, method: "tools/list", params: {} },
          {
            jsonrpc: "2.0",
            id: 3,
            method: "tools/call",
            params: { name: "codex", arguments: { prompt: "go", "approval-policy": "never" } },
          },
        ),
      );
      child.stdout.setEncoding("utf8");
      for await (const chunk of child.stdout) {
        stdout += chunk as string;
        if (responses(stdout).has(3)) break;
      }
    } finally {
      child.stdin.end();
      await closed;
    }
    const reply = responses(stdout).get(3)?.result as { content: { text: string }[]; isError?: boolean };
    expect(reply.isError).toBeUndefined();
    expect(reply.content[0]?.text).toContain("first call done");
    // The call runs on the runtime alone: neither zod nor the MCP SDK server is on its path.
    const { packages, sources } = await loadedModules(log);
    expect(LAZY_PACKAGES.filter((name) => packages.has(name))).toEqual([]);
    expect(sources).toContain("src/frontends/mcp-server/codex-run.ts");
  });

  it("bare app-server answering initialize", async () => {
    const log = join(h.home, "modules.log");
    const stdin = jsonLines({
      id: 1,
      method: "initialize",
      params: { clientInfo: { name: "t", title: "T", version: "1" } },
    });
    const result = await h.cli(["app-server"], { stdin, env: { ...moduleLogEnv(log), ...NO_PRELOAD } });
    expect(result.stderr).not.toContain("Error");
    expect(responses(result.stdout).get(1)?.result).toMatchObject({ userAgent: expect.any(String) });
    const { packages, sources } = await loadedModules(log);
    const heldBack = LAZY_PACKAGES.filter((name) => name !== "zod");
    expect(heldBack.filter((name) => packages.has(name))).toEqual([]);
    // initialize is checked with its own schema: the other methods' schemas, the thread/turn/item
    // vocabulary they share and the schemas of the server's questions are not even loaded.
    expect(sources.has(`${PROTOCOL}/initialize-request.ts`)).toBe(true);
    expect([...METHOD_TABLE, SERVER_REQUESTS].filter((source) => sources.has(source))).toEqual([]);
  });

  it("app-server loads the other methods' schemas for the first other request", async () => {
    const log = join(h.home, "modules.log");
    const client = new StdioAppClient({
      home: h.home,
      cwd: h.work,
      env: { ...moduleLogEnv(log), ...NO_PRELOAD },
    });
    try {
      expect((await client.initialize()).result).toMatchObject({ userAgent: expect.any(String) });
      const unknown = await client.request("no/such/method", {});
      expect(unknown.error?.code).toBe(-32601);
      expect(unknown.error?.message).toMatch(
        /^Method not found: unknown variant `no\/such\/method`, expected one of `initialize`, `thread\/start`, /,
      );
      expect((await client.request("thread/loaded/list", {})).result).toEqual({ data: [], nextCursor: null });
    } finally {
      await client.close();
    }
    const { sources } = await loadedModules(log);
    expect(METHOD_TABLE.filter((source) => !sources.has(source))).toEqual([]);
  });

  it("finds commander when a command needs the parser", async () => {
    const log = join(h.home, "modules.log");
    const result = await h.cli(["sessions", "list"], { env: moduleLogEnv(log) });
    expect(result.code).toBe(0);
    expect((await loadedModules(log)).packages.has("commander")).toBe(true);
  });
});

describe("start-up leaves V8's time-zone data unloaded", () => {
  // Local getters and toISOString() load ICU's zone data (0.5 MB of peak RSS): src/util/local-time.ts, iso-time.ts.
  it("one-turn exec calls no Date method that loads it", async () => {
    h.server.enqueue(turn(message("hello there")));
    const log = join(h.home, "date-calls.log");
    const env = { NODE_OPTIONS: `--require=${DATE_CALLS}`, TSCODEX_DATE_LOG: log };
    const result = await h.exec(["say hello"], { env });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("hello there");
    const calls = await readFile(log, "utf8").catch(() => "");
    expect(calls).toBe("");
  });
});
