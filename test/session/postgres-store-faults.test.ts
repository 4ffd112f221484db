/**
 * `tscodex proxy` on a real PostgreSQL store that goes away mid-turn (issue 30): before the model
 * request, while the model streams, while the turn parks on a client tool call. Every request is
 * answered within a bound (the turn carries on once the store is back, or fails with a clear
 * error), and SIGTERM ends the process within its drain window whatever the store's state.
 */
import { APIError } from "openai";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { writeFakeConfig } from "../support/cli.js";
import {
  delay,
  type FakeModelServer,
  functionCall,
  message,
  startFakeModelServer,
  turn,
} from "../support/fake-model-server.js";
import { noPostgres, type PostgresCluster, startPostgres } from "../support/postgres.js";
import { type ProxyProcess, spawnProxy } from "../support/proxy-harness.js";
import { type TempDir, tmpdir } from "../support/tmpdir.js";
import { WEATHER } from "../support/weather-tool.js";

const skip = noPostgres("the PostgreSQL store fault tests");

/** No request may wait longer than this for its answer while the store is down. */
const ANSWER_BOUND_MS = 20_000;

let cluster: PostgresCluster | undefined;
let model: FakeModelServer;
const dirs: TempDir[] = [];
const proxies: ProxyProcess[] = [];

beforeAll(async () => {
  model = await startFakeModelServer();
  if (!skip) cluster = await startPostgres();
}, 60_000);
afterAll(async () => {
  await model?.close();
  await cluster?.stop();
});
beforeEach(() => model.reset());
afterEach(async () => {
  await Promise.all(proxies.splice(0).map((proxy) => proxy.stop()));
  await Promise.all(dirs.splice(0).map((dir) => dir.cleanup()));
  if (storeDown) await startStore(); // a test that failed mid-outage
});

let storeDown = false;
async function stopStore(): Promise<void> {
  storeDown = true;
  await need().stopServer();
}
async function startStore(): Promise<void> {
  await need().startServer();
  storeDown = false;
}

function need(): PostgresCluster {
  if (!cluster) throw new Error("no cluster");
  return cluster;
}

async function proxyOnStore(): Promise<ProxyProcess> {
  const url = await need().createDatabase();
  const home = await tmpdir("tscodex-pgf-home-");
  const work = await tmpdir("tscodex-pgf-work-");
  dirs.push(home, work);
  await writeFakeConfig(home.path, { baseUrl: model.url });
  const proxy = await spawnProxy(home.path, work.path, [], { TSCODEX_STORE_URL: url, FAKE_KEY: "sk-test" });
  proxies.push(proxy);
  return proxy;
}

/** Runs `request`, failing the test when it takes longer than the bound; returns what it gave. */
async function answered<T>(request: Promise<T>): Promise<{ value?: T; error?: APIError }> {
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ANSWER_BOUND_MS} ms`)), ANSWER_BOUND_MS);
  });
  try {
    return { value: await Promise.race([request, bound]) };
  } catch (error) {
    if (error instanceof APIError) return { error };
    throw error;
  } finally {
    clearTimeout(timer);
  }
}

/** SIGTERM, and how long the process took to exit. */
async function stopTimed(proxy: ProxyProcess): Promise<number> {
  const started = performance.now();
  await proxy.stop();
  return performance.now() - started;
}

describe.skipIf(skip)("the proxy when its PostgreSQL store goes away mid-turn", () => {
  it("store down before the model request: a clear error, then service again once it is back", async () => {
    const proxy = await proxyOnStore();
    model.enqueue(turn(message("first")), turn(message("after the outage")));
    const client = proxy.client();
    expect((await client.responses.create({ model: "m", input: "hi" })).output_text).toBe("first");
    await stopStore();
    const down = await answered(client.responses.create({ model: "m", input: "hello?" }));
    expect(down.error?.status).toBe(503);
    expect(down.error?.message).toMatch(/thread store unavailable/);
    expect(down.error?.headers?.get("retry-after")).toBe("1");
    await startStore();
    const back = await answered(client.responses.create({ model: "m", input: "again" }));
    expect(back.value?.output_text).toBe("after the outage");
  }, 60_000);

  it("store restarted while the model streams: the turn reconnects and completes, its items stored once", async () => {
    const proxy = await proxyOnStore();
    const restarted: Promise<void>[] = [];
    model.enqueue(turn(message("warm")), () => {
      // The store drops and comes back while this stream is still being written.
      restarted.push(stopStore().then(() => startStore()));
      return turn(delay(1500), message("streamed through it"));
    });
    const client = proxy.client();
    const first = await client.responses.create({ model: "m", input: "hi" });
    const during = await answered(
      client.responses.create({ model: "m", input: "stream [during]", previous_response_id: first.id }),
    );
    await Promise.all(restarted);
    // The thread's lease was taken again on a new connection: the turn carried on.
    expect(during.error).toBeUndefined();
    expect(during.value?.status).toBe("completed");
    expect(during.value?.output_text).toBe("streamed through it");
    model.enqueue(turn(message("followed")));
    const next = await answered(
      client.responses.create({ model: "m", input: "next", previous_response_id: during.value?.id ?? null }),
    );
    expect(next.value?.output_text).toBe("followed");
    // The follow-up continued the same thread, which holds each item of the restarted turn once.
    expect(JSON.stringify(model.requests.at(-1)?.input).match(/stream \[during\]/g)).toHaveLength(1);
    expect(JSON.stringify(model.requests.at(-1)?.input).match(/streamed through it/g)).toHaveLength(1);
  }, 60_000);

  it("store down while parking: no function_call reply unless the parked turn is stored", async () => {
    const proxy = await proxyOnStore();
    const stopping: Promise<void>[] = [];
    model.enqueue(
      turn(message("warm")),
      () => {
        stopping.push(stopStore());
        return turn(delay(500), functionCall("get_weather", { city: "Rome" }, "call_p1"));
      },
      turn(message("Rome is warm.")),
    );
    const client = proxy.client();
    await client.responses.create({ model: "m", input: "hi" });
    const parked = await answered(client.responses.create({ model: "m", input: "Rome?", tools: [WEATHER] }));
    await Promise.all(stopping);
    await startStore();
    if (parked.error) {
      expect(parked.error.status).toBe(503);
      expect(parked.error.message).toMatch(/thread store/);
      return;
    }
    // A 200 handing the call to the client means the parked turn is in the store: the follow-up works.
    expect(parked.value?.output.at(-1)).toMatchObject({ type: "function_call", call_id: "call_p1" });
    const follow = await answered(
      client.responses.create({
        model: "m",
        previous_response_id: parked.value?.id ?? null,
        input: [{ type: "function_call_output", call_id: "call_p1", output: "28C" }],
      }),
    );
    expect(follow.value?.output_text).toBe("Rome is warm.");
  }, 60_000);

  it("store restarted while the turn parks: the call is handed over once stored, and its output continues it", async () => {
    const proxy = await proxyOnStore();
    const restarted: Promise<void>[] = [];
    model.enqueue(
      turn(message("warm")),
      () => {
        restarted.push(stopStore().then(() => startStore()));
        return turn(delay(1000), functionCall("get_weather", { city: "Oslo" }, "call_r1"));
      },
      turn(message("Oslo is cold.")),
    );
    const client = proxy.client();
    await client.responses.create({ model: "m", input: "hi" });
    const parked = await answered(client.responses.create({ model: "m", input: "Oslo?", tools: [WEATHER] }));
    await Promise.all(restarted);
    expect(parked.error).toBeUndefined();
    expect(parked.value?.output.at(-1)).toMatchObject({ type: "function_call", call_id: "call_r1" });
    const follow = await answered(
      client.responses.create({
        model: "m",
        previous_response_id: parked.value?.id ?? null,
        input: [{ type: "function_call_output", call_id: "call_r1", output: "-3C" }],
      }),
    );
    expect(follow.value?.output_text).toBe("Oslo is cold.");
    const input = JSON.stringify(model.requests.at(-1)?.input);
    expect(input.match(/"call_id":"call_r1"/g)).toHaveLength(2); // the call and its output, once each
  }, 60_000);

  it("SIGTERM with the store down ends the process within its drain window", async () => {
    const proxy = await proxyOnStore();
    model.enqueue(turn(message("warm")));
    await proxy.client().responses.create({ model: "m", input: "hi" });
    await stopStore();
    const tookMs = await stopTimed(proxy);
    expect(proxy.child.exitCode ?? proxy.child.signalCode).toBe(0);
    expect(tookMs).toBeLessThan(10_000);
  }, 60_000);

  it("SIGTERM while a turn streams and the store is down: answered, and the process exits", async () => {
    const proxy = await proxyOnStore();
    const stopping: Promise<void>[] = [];
    model.enqueue(turn(message("warm")), () => {
      stopping.push(stopStore());
      return turn(delay(300), message("never stored"));
    });
    const client = proxy.client();
    const first = await client.responses.create({ model: "m", input: "hi" });
    const pending = answered(
      client.responses.create({ model: "m", input: "x", previous_response_id: first.id }),
    );
    await model.waitForRequests(2);
    await Promise.all(stopping);
    const tookMs = await stopTimed(proxy);
    const result = await pending;
    expect(result.value?.status ?? result.error?.status).toBeDefined();
    expect(proxy.child.exitCode).toBe(0);
    expect(tookMs).toBeLessThan(30_000); // the proxy's drain window
  }, 90_000);
});
