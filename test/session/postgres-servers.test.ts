/**
 * Several tscodex processes on one PostgreSQL thread store, as behind a load balancer: each
 * "machine" has its own home (config, no shared files); only the database is shared.
 * - proxy: a client-tool follow-up answered by the other process (previous_response_id, and the
 *   full history found through the parked-call index);
 * - MCP over HTTP: codex on one server, codex-reply and listSessions on the other;
 * - kill -9 of `tscodex exec` mid-turn, then `exec resume` on the other machine: every stored
 *   item once, and the lease of the killed process is free;
 * - two concurrent turns on one thread: the second gets "thread busy" (HTTP 409, an isError
 *   MCP result, a JSON-RPC error from the app-server), never interleaved history;
 * - `tscodex sessions migrate` from JSONL, then resume there.
 */
import type { ChildProcess } from "node:child_process";
import { spawn } from "node:child_process";
import { APIError } from "openai";
import postgres from "postgres";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { runTurn, startThread } from "../app-server/flow.js";
import { StdioAppClient } from "../support/app-server-client.js";
import { CLI_PATH, runCli, writeFakeConfig } from "../support/cli.js";
import {
  type FakeModelServer,
  functionCall,
  hang,
  message,
  startFakeModelServer,
  turn,
} from "../support/fake-model-server.js";
import { callTool, connectHttp, startHttpServer } from "../support/mcp-client.js";
import { noPostgres, type PostgresCluster, startPostgres } from "../support/postgres.js";
import { waitFor } from "../support/processes.js";
import { spawnProxy } from "../support/proxy-harness.js";
import { type TempDir, tmpdir } from "../support/tmpdir.js";
import { WEATHER } from "../support/weather-tool.js";

const skip = noPostgres("the PostgreSQL thread store tests");
/** A busy thread is reported after 300 ms instead of the default 5 s. */
const BRIEF_WAIT = "[store]\nlease_wait_ms = 300";

let cluster: PostgresCluster | undefined;
let model: FakeModelServer;
const dirs: TempDir[] = [];
let url = "";
const stops: (() => Promise<void>)[] = [];

beforeAll(async () => {
  model = await startFakeModelServer();
  if (!skip) cluster = await startPostgres();
}, 60_000);
afterAll(async () => {
  await model?.close();
  await cluster?.stop();
});
beforeEach(async () => {
  model.reset();
  if (cluster) url = await cluster.createDatabase();
});
afterEach(async () => {
  await Promise.all(stops.splice(0).map((stop) => stop()));
  await Promise.all(dirs.splice(0).map((dir) => dir.cleanup()));
});

/** One "machine": its own home (config pointing at the fake model) and work dir. */
async function machine(extra = ""): Promise<{ home: string; work: string; env: Record<string, string> }> {
  const home = await tmpdir("tscodex-pg-home-");
  const work = await tmpdir("tscodex-pg-work-");
  dirs.push(home, work);
  await writeFakeConfig(home.path, { baseUrl: model.url, extra });
  return { home: home.path, work: work.path, env: { TSCODEX_STORE_URL: url, FAKE_KEY: "sk-test" } };
}

async function proxyOn(extra = "") {
  const m = await machine(extra);
  const proxy = await spawnProxy(m.home, m.work, [], m.env);
  stops.push(proxy.stop);
  return proxy;
}

async function mcpOn(extra = "") {
  const m = await machine(extra);
  const server = await startHttpServer({ home: m.home, cwd: m.work, env: m.env });
  stops.push(server.stop);
  const { client } = await connectHttp(server.url);
  stops.push(() => client.close());
  return { client, work: m.work };
}

async function appServerOn(extra = "") {
  const m = await machine(extra);
  const client = new StdioAppClient({ home: m.home, cwd: m.work, env: m.env });
  stops.push(() => client.close());
  await client.initialize();
  return { client, work: m.work };
}

/** `tscodex sessions show --json` of thread `id`, read on a machine of its own. */
async function storedHistory(id: string): Promise<{ type: string; call_id?: string; role?: string }[]> {
  const m = await machine();
  const shown = await runCli(["sessions", "show", id, "--json"], { cwd: m.work, home: m.home, env: m.env });
  expect(shown.code, shown.stderr).toBe(0);
  return JSON.parse(shown.stdout).history;
}

describe.skipIf(skip)("several processes on one PostgreSQL store", () => {
  it("proxy: a client-tool follow-up is answered by the other process", async () => {
    const [one, two] = await Promise.all([proxyOn(), proxyOn()]);
    model.enqueue(
      turn(functionCall("get_weather", { city: "Rome" }, "call_r1")),
      turn(message("Rome is warm.")),
      turn(functionCall("get_weather", { city: "Oslo" }, "call_o1")),
      turn(message("Oslo is cold.")),
    );
    const first = await one.client().responses.create({ model: "m", input: "Rome?", tools: [WEATHER] });
    expect(first.output.at(-1)).toMatchObject({ type: "function_call", call_id: "call_r1" });
    const second = await two.client().responses.create({
      model: "m",
      previous_response_id: first.id,
      input: [{ type: "function_call_output", call_id: "call_r1", output: "28C" }],
    });
    expect(second.output_text).toBe("Rome is warm.");
    expect(model.requests[1]?.input).toContainEqual(
      expect.objectContaining({ type: "function_call_output", call_id: "call_r1", output: "28C" }),
    );

    // Without previous_response_id: the parked call is found through the database's index.
    const third = await two.client().responses.create({ model: "m", input: "Oslo?", tools: [WEATHER] });
    const call = third.output.find((item) => item.type === "function_call");
    if (call?.type !== "function_call") throw new Error("no function call");
    const fourth = await one.client().responses.create({
      model: "m",
      tools: [WEATHER],
      input: [
        { role: "user", content: "Oslo?" },
        { type: "function_call", call_id: call.call_id, name: call.name, arguments: call.arguments },
        { type: "function_call_output", call_id: call.call_id, output: "-5C" },
      ],
    });
    expect(fourth.output_text).toBe("Oslo is cold.");
    // Continued, not rebuilt: the call is in the model's input once.
    const input = model.requests[3]?.input as { type?: string }[];
    expect(input.filter((item) => item.type === "function_call")).toHaveLength(1);
  });

  it("MCP over HTTP: codex on one server, codex-reply and listSessions on the other", async () => {
    const [a, b] = await Promise.all([mcpOn(), mcpOn()]);
    model.enqueue(turn(message("first answer")), turn(message("second answer")));
    const started = await callTool(a.client, "codex", { prompt: "remember 42", cwd: a.work });
    expect(started.text).toBe("first answer");
    const reply = await callTool(b.client, "codex-reply", {
      threadId: started.threadId,
      prompt: "what number?",
    });
    expect(reply.result.isError ?? false).toBe(false);
    expect(reply.text).toBe("second answer");
    // B's request carried A's turn.
    expect(JSON.stringify(model.requests[1]?.input)).toContain("remember 42");
    const listed = await callTool(b.client, "listSessions", {});
    const sessions = listed.result.structuredContent?.sessions as { id: string; turns: number }[];
    expect(sessions).toEqual([expect.objectContaining({ id: started.threadId, turns: 2 })]);
  });

  it("kill -9 of exec mid-turn: the other machine resumes with every stored item once", async () => {
    const a = await machine();
    model.enqueue(
      turn(functionCall("shell_command", { command: "echo stored-output" }, "call_1")),
      turn(hang()),
      turn(message("resumed fine")),
    );
    let child: ChildProcess | undefined;
    let threadId = "";
    const exec = new Promise<void>((resolve) => {
      child = spawn(process.execPath, [CLI_PATH, "exec", "--json", "--skip-git-repo-check", "go"], {
        cwd: a.work,
        env: { PATH: process.env.PATH ?? "", HOME: a.home, TSCODEX_HOME: a.home, ...a.env },
        stdio: ["ignore", "pipe", "pipe"],
      });
      let out = "";
      child.stdout?.setEncoding("utf8").on("data", (chunk: string) => {
        out += chunk;
        threadId ||= /"thread_id":"([0-9a-f-]{36})"/.exec(out)?.[1] ?? "";
      });
      child.once("exit", () => resolve());
    });
    stops.push(async () => {
      child?.kill("SIGKILL");
      await exec;
    });
    // The second model request means the call and its output were recorded.
    await model.waitForRequests(2, 15_000);
    await waitFor(() => threadId !== "");
    child?.kill("SIGKILL");
    await exec;

    const b = await machine();
    const resumed = await runCli(["exec", "--skip-git-repo-check", "resume", threadId, "go on"], {
      cwd: b.work,
      home: b.home,
      env: b.env,
    });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stdout.trim()).toBe("resumed fine");
    const history = await storedHistory(threadId);
    expect(history.filter((item) => item.type === "function_call" && item.call_id === "call_1")).toHaveLength(
      1,
    );
    expect(
      history.filter((item) => item.type === "function_call_output" && item.call_id === "call_1"),
    ).toHaveLength(1);
    // The model got the stored call and its output once each.
    const input = model.requests.at(-1)?.input as { type?: string; call_id?: string }[];
    expect(input.filter((item) => item.call_id === "call_1").map((item) => item.type)).toEqual([
      "function_call",
      "function_call_output",
    ]);
  });

  it("two concurrent turns on one thread through the proxy: the second is a 409", async () => {
    const [one, two] = await Promise.all([proxyOn(BRIEF_WAIT), proxyOn(BRIEF_WAIT)]);
    model.enqueue(turn(message("hello")), turn(hang()));
    const first = await one.client().responses.create({ model: "m", input: "hi" });
    const running = one
      .client()
      .responses.create({ model: "m", previous_response_id: first.id, input: "long task" })
      .catch((error: unknown) => error);
    await model.waitForRequests(2);
    const refused = await two
      .client()
      .responses.create({ model: "m", previous_response_id: first.id, input: "me too" })
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(APIError);
    expect((refused as APIError).status).toBe(409);
    expect((refused as APIError).message).toMatch(/in use by another tscodex process/);
    // The refused turn never reached the model (a hung stream may be retried: count prompts).
    const prompts = () => JSON.stringify(model.requests.map((request) => request.input));
    expect(prompts()).not.toContain("me too");
    one.child.kill("SIGKILL");
    await running;
  });

  it("two concurrent turns on one thread over MCP: the second is an isError result", async () => {
    const [a, b] = await Promise.all([mcpOn(BRIEF_WAIT), mcpOn(BRIEF_WAIT)]);
    model.enqueue(turn(message("ready")), turn(hang()));
    const started = await callTool(a.client, "codex", { prompt: "start", cwd: a.work });
    const busy = callTool(a.client, "codex-reply", { threadId: started.threadId, prompt: "slow" }).catch(
      (error: unknown) => error,
    );
    await model.waitForRequests(4);
    const second = await callTool(b.client, "codex-reply", { threadId: started.threadId, prompt: "fast" });
    expect(second.result.isError).toBe(true);
    expect(second.text).toMatch(/in use by another tscodex process/);
    expect(JSON.stringify(model.requests.map((request) => request.input))).not.toContain("fast");
    void busy;
  });

  it("app-server: thread/list sees the other server's thread; resuming it mid-turn is a JSON-RPC error", async () => {
    const [x, y] = await Promise.all([appServerOn(BRIEF_WAIT), appServerOn(BRIEF_WAIT)]);
    model.enqueue(turn(message("app ready")), turn(hang()));
    const appThread = await startThread(x.client, { cwd: x.work });
    await runTurn(x.client, appThread, "app start");
    const listed = await y.client.call("thread/list", {});
    expect(listed.data.map((thread: { id: string }) => thread.id)).toContain(appThread);
    const requestsBefore = model.requests.length;
    void x.client.request("turn/start", { threadId: appThread, input: [{ type: "text", text: "app slow" }] });
    await model.waitForRequests(requestsBefore + 1);
    const resumed = await y.client.request("thread/resume", { threadId: appThread });
    expect(resumed.error?.message).toMatch(/in use by another tscodex process/);
  });

  it("a lease lost mid-turn (its connection dropped, another process took the thread) ends the turn with a clear error", async () => {
    const a = await machine();
    model.enqueue(turn(hang()));
    const run = runCli(["exec", "--skip-git-repo-check", "wait for it"], {
      cwd: a.work,
      home: a.home,
      env: a.env,
    });
    await model.waitForRequests(1, 15_000);
    const database = new URL(url).pathname.slice(1);
    const threadId = cluster?.psql("SELECT thread_id FROM tscodex_leases", database).trim() ?? "";
    // Another process queues for the thread's lock: the server hands it over the moment the
    // exec's lease connection ends, so the exec cannot take it again.
    const rival = postgres(url, { max: 1, onnotice: () => {} });
    let result: Awaited<typeof run>;
    try {
      const waiting = rival`SELECT pg_advisory_lock(hashtextextended(${threadId}, 0))`.execute();
      await waitFor(
        () =>
          cluster
            ?.psql("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted")
            .trim() !== "0",
      );
      // The lease connection of the exec process: its advisory locks go with it.
      cluster?.psql(
        `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '${database}' AND application_name = 'tscodex leases'`,
      );
      await waiting;
      // Held until the exec is over: its tries to take the lease again all find it taken.
      result = await run;
    } finally {
      await rival.end();
    }
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/lease in the store was lost/);
  });

  it("sessions migrate copies local threads into the database, and they resume there", async () => {
    const local = await machine();
    const localEnv = { FAKE_KEY: "sk-test" };
    model.enqueue(turn(message("local answer")), turn(message("answer from the database")));
    const first = await runCli(["exec", "--json", "--skip-git-repo-check", "local prompt"], {
      cwd: local.work,
      home: local.home,
      env: localEnv,
    });
    expect(first.code, first.stderr).toBe(0);
    const threadId = /"thread_id":"([0-9a-f-]{36})"/.exec(first.stdout)?.[1] ?? "";
    const migrate = (to: string) =>
      runCli(["sessions", "migrate", "--to", to], { cwd: local.work, home: local.home, env: localEnv });
    const copied = await migrate(url);
    expect(copied.code, copied.stderr).toBe(0);
    expect(copied.stdout).toMatch(/1 copied, 0 completed, 0 already there, 0 failed/);
    expect(copied.stdout).not.toContain("password");
    const again = await migrate(url);
    expect(again.stdout).toMatch(/0 copied, 0 completed, 1 already there, 0 failed/);

    const remote = await machine();
    const listed = await runCli(["sessions", "list", "--json"], {
      cwd: remote.work,
      home: remote.home,
      env: remote.env,
    });
    expect(JSON.parse(listed.stdout)).toEqual([
      expect.objectContaining({ id: threadId, turns: 1, path: null }),
    ]);
    const resumed = await runCli(["exec", "--skip-git-repo-check", "resume", threadId, "and now?"], {
      cwd: remote.work,
      home: remote.home,
      env: remote.env,
    });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stdout.trim()).toBe("answer from the database");
    expect(JSON.stringify(model.requests[1]?.input)).toContain("local prompt");

    const bad = await migrate("mysql://nowhere/db");
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/postgres:\/\//);
  });
});
