/**
 * The proxy as a service on a real PostgreSQL store, several processes sharing it (issue 30).
 * Idempotency-Key takeover: a keyed request whose process was SIGKILLed mid-request is taken over
 * by its retry on another process, which gets the answer; the thread holds each item once and no
 * stray thread is left. Another request (another key, or none) for calls that were answered still
 * gets 409 naming the answer. Stored responses through the openai SDK: retrieve and input items
 * from another process, delete, background polled to its end and cancelled; a background response
 * whose process was SIGKILLed mid-run ends as failed for a retrieve, a streamed GET and a cancel
 * on another process (its owner's lease went with it), instead of staying in_progress. A deleted
 * response is not replayed by its key on any process (issue 37): the retry is a 404.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { runCli, writeFakeConfig } from "../support/cli.js";
import {
  delay,
  type FakeModelServer,
  failed,
  functionCall,
  hang,
  hold,
  message,
  startFakeModelServer,
  turn,
} from "../support/fake-model-server.js";
import { noPostgres, type PostgresCluster, startPostgres } from "../support/postgres.js";
import { waitFor } from "../support/processes.js";
import {
  type KeyedAnswer as Answer,
  type ProxyProcess,
  postKeyed,
  spawnProxy,
} from "../support/proxy-harness.js";
import { type TempDir, tmpdir } from "../support/tmpdir.js";
import { WEATHER } from "../support/weather-tool.js";

const skip = noPostgres("the proxy idempotency takeover tests");

let cluster: PostgresCluster | undefined;
let model: FakeModelServer;
let url = "";
let db = "";
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
beforeEach(async () => {
  model.reset();
  if (!cluster) return;
  url = await cluster.createDatabase();
  db = url.slice(url.lastIndexOf("/") + 1);
});
afterEach(async () => {
  await Promise.all(proxies.splice(0).map((proxy) => proxy.stop()));
  await Promise.all(dirs.splice(0).map((dir) => dir.cleanup()));
});

/** A proxy "machine": its own home and work dir; only the database is shared. */
async function proxyOnStore(): Promise<ProxyProcess> {
  const home = await tmpdir("tscodex-idem-home-");
  const work = await tmpdir("tscodex-idem-work-");
  dirs.push(home, work);
  await writeFakeConfig(home.path, { baseUrl: model.url });
  const proxy = await spawnProxy(home.path, work.path, [], { TSCODEX_STORE_URL: url, FAKE_KEY: "sk-test" });
  proxies.push(proxy);
  return proxy;
}

function psql(sql: string): string {
  if (!cluster) throw new Error("no cluster");
  return cluster.psql(sql, db).trim();
}

/** Stored lines of every thread that match a condition on the line's payload. */
function countLines(where: string): number {
  return Number(psql(`SELECT count(*) FROM tscodex_thread_lines WHERE ${where}`));
}

const outputLines = (callId: string) =>
  countLines(
    `type = 'response_item' AND payload->>'type' = 'function_call_output' AND payload->>'call_id' = '${callId}'`,
  );
const userLines = (text: string) =>
  countLines(`type = 'response_item' AND payload->>'role' = 'user' AND payload::text LIKE '%${text}%'`);
const threads = () => Number(psql("SELECT count(*) FROM tscodex_threads"));

function post(proxy: ProxyProcess, body: object, key: string | null): Promise<Answer> {
  return postKeyed(proxy.url, "/responses", body, key);
}

/**
 * The retry a client makes: again while the answer is "still running" (the dead process's
 * connection, and with it its leases, may take the database a moment to drop).
 */
async function retry(proxy: ProxyProcess, body: object, key: string): Promise<Answer> {
  let answer: Answer | undefined;
  await waitFor(async () => {
    answer = await post(proxy, body, key);
    return !(answer.status === 409 && answer.body.error?.code === "idempotency_key_in_use");
  }, 15_000);
  return answer as Answer;
}

/** The state a SIGKILL between storing the response and storing the key's answer leaves. */
function forgetAnswer(key: string): void {
  psql(
    `UPDATE tscodex_idempotency_keys SET record = jsonb_set(record::jsonb, '{result}', 'null')::json WHERE key = '${key}'`,
  );
}

async function kill(proxy: ProxyProcess): Promise<void> {
  const exited = new Promise((resolve) => proxy.child.once("exit", resolve));
  proxy.child.kill("SIGKILL");
  await exited;
}

function text(answer: Answer): string {
  return JSON.stringify(answer.body.output ?? []);
}

describe.skipIf(skip)("Idempotency-Key takeover across proxy processes", () => {
  it("a keyed tool output whose process was killed mid-turn (outputs stored, model streaming): the retry elsewhere answers it, each item once", async () => {
    const [doomed, other] = await Promise.all([proxyOnStore(), proxyOnStore()]);
    model.enqueue(
      turn(functionCall("get_weather", { city: "Rome" }, "call_r1")),
      turn(hang()),
      turn(message("Rome is 28C.")),
    );
    const question = await post(doomed, { model: "m", input: "Weather in Rome?", tools: [WEATHER] }, "q-1");
    expect(question.status).toBe(200);
    const answerBody = {
      model: "m",
      previous_response_id: question.body.id,
      input: [{ type: "function_call_output", call_id: "call_r1", output: "28C" }],
      tools: [WEATHER],
    };
    const lost = post(doomed, answerBody, "a-1").catch((error: unknown) => error);
    // Killed once its turn has stored the output and the model is answering: stored, not replied.
    await model.waitForRequests(2, 10_000);
    await waitFor(() => outputLines("call_r1") === 1, 10_000);
    await kill(doomed);
    expect(await lost).toBeInstanceOf(Error);

    const answer = await retry(other, answerBody, "a-1");
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(text(answer)).toContain("Rome is 28C.");
    // The model saw the output once: the dead attempt's partial turn was undone, not repeated.
    const input = (model.requests[2]?.input ?? []) as { type?: string }[];
    expect(input.filter((item) => item.type === "function_call_output")).toHaveLength(1);
    expect(outputLines("call_r1")).toBe(1);
    expect(userLines("Weather in Rome?")).toBe(1);
    expect(threads()).toBe(1);

    const replay = await post(other, answerBody, "a-1");
    expect(replay.replayed).toBe("true");
    expect(replay.body).toEqual(answer.body);
    // Another request for the answered call (another key, or none) is told who answered it.
    for (const key of ["a-other", null]) {
      const conflict = await post(other, answerBody, key);
      expect(conflict.status).toBe(409);
      expect(conflict.body.error?.code).toBe("function_call_already_answered");
      expect(conflict.body.error?.message).toContain(String(answer.body.id));
    }
    expect(model.requests).toHaveLength(3);
  });

  it("a keyed tool output whose process died after storing its response, before its key got the answer: the retry elsewhere returns that response", async () => {
    const [doomed, other] = await Promise.all([proxyOnStore(), proxyOnStore()]);
    model.enqueue(
      turn(functionCall("get_weather", { city: "Oslo" }, "call_o1")),
      turn(message("Oslo is -5C.")),
    );
    const question = await post(doomed, { model: "m", input: "Weather in Oslo?", tools: [WEATHER] }, "q-2");
    const answerBody = {
      model: "m",
      previous_response_id: question.body.id,
      input: [{ type: "function_call_output", call_id: "call_o1", output: "-5C" }],
      tools: [WEATHER],
    };
    const first = await post(doomed, answerBody, "a-2");
    expect(first.status).toBe(200);
    await kill(doomed);
    forgetAnswer("a-2");

    const answer = await retry(other, answerBody, "a-2");
    expect(answer.status).toBe(200);
    expect(answer.replayed).toBe("true");
    expect(answer.body).toEqual(first.body);
    expect(model.requests).toHaveLength(2);
    expect(outputLines("call_o1")).toBe(1);
    const stored = psql(
      "SELECT record::jsonb->'result'->'body'->>'id' FROM tscodex_idempotency_keys WHERE key = 'a-2'",
    );
    expect(stored).toBe(first.body.id);
  });

  it("a keyed first request whose process was killed mid-turn: the retry elsewhere answers on one thread, no stray one", async () => {
    const [doomed, other] = await Promise.all([proxyOnStore(), proxyOnStore()]);
    model.enqueue(turn(hang()), turn(message("Lima is 19C.")));
    const body = { model: "m", input: "Weather in Lima?" };
    const lost = post(doomed, body, "q-3").catch((error: unknown) => error);
    await model.waitForRequests(1, 10_000);
    await waitFor(() => userLines("Weather in Lima?") === 1, 10_000);
    await kill(doomed);
    expect(await lost).toBeInstanceOf(Error);

    const answer = await retry(other, body, "q-3");
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(text(answer)).toContain("Lima is 19C.");
    expect(threads()).toBe(1);
    expect(userLines("Weather in Lima?")).toBe(1);
    const threadOfAnswer = String(answer.body.id).split("_")[1];
    expect(psql("SELECT id FROM tscodex_threads")).toBe(threadOfAnswer);
  });
});

describe.skipIf(skip)(
  "Idempotency-Key takeover of failed requests and of a request killed as it named its thread",
  () => {
    /** Freeing a failed request's key fails at its first step, undoing its stored response. */
    function refuseDeletingResponses(): void {
      psql(
        "CREATE FUNCTION refuse() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'store down'; END $$",
      );
      psql(
        // Deleting a response updates its row to a tombstone; its thread's delete cascades.
        "CREATE TRIGGER refuse_delete BEFORE DELETE OR UPDATE ON tscodex_responses FOR EACH ROW EXECUTE FUNCTION refuse()",
      );
    }

    it("a keyed chat completion that failed and whose key kept naming its stored failure: the retry elsewhere gets the same 500, then the key is free", async () => {
      const [first, other] = await Promise.all([proxyOnStore(), proxyOnStore()]);
      model.enqueue(turn(failed("model exploded", "invalid_prompt")), turn(message("Paris is 12C.")));
      const body = { model: "m", messages: [{ role: "user", content: "Weather in Paris?" }] };
      // The state a store outage (or a SIGKILL) while the failed request frees its key leaves.
      refuseDeletingResponses();
      const failedOnce = await postKeyed(first.url, "/chat/completions", body, "c-1");
      expect(failedOnce.status).toBe(500);
      expect(failedOnce.body.error?.message).toContain("model exploded");
      psql("DROP TRIGGER refuse_delete ON tscodex_responses");
      expect(
        psql("SELECT record::jsonb->'work'->>'answerId' FROM tscodex_idempotency_keys WHERE key = 'c-1'"),
      ).not.toBe("");

      const taken = await postKeyed(other.url, "/chat/completions", body, "c-1");
      expect(taken.status, JSON.stringify(taken.body)).toBe(500);
      expect(taken.replayed).toBe("true");
      expect(taken.body).toEqual(failedOnce.body);
      expect(model.requests).toHaveLength(1);
      // Freed as the failed request would have freed it: its thread undone, the next retry runs.
      expect(threads()).toBe(0);
      const again = await postKeyed(other.url, "/chat/completions", body, "c-1");
      expect(again.status).toBe(200);
      expect(again.replayed).toBeNull();
      expect(JSON.stringify(again.body)).toContain("Paris is 12C.");
      expect(threads()).toBe(1);
    });

    it("a keyed response that failed is answered 200 as failed, by its retry elsewhere too", async () => {
      const [first, other] = await Promise.all([proxyOnStore(), proxyOnStore()]);
      model.enqueue(turn(failed("model exploded", "invalid_prompt")));
      const body = { model: "m", input: "Weather in Bern?" };
      const failedOnce = await post(first, body, "r-1");
      expect(failedOnce.status).toBe(200);
      expect(failedOnce.body.status).toBe("failed");
      forgetAnswer("r-1");
      const taken = await post(other, body, "r-1");
      expect(taken.status).toBe(200);
      expect(taken.replayed).toBe("true");
      expect(taken.body).toEqual(failedOnce.body);
      expect(model.requests).toHaveLength(1);
    });

    it("a keyed first request whose process was killed as its key was naming the new thread: the retry elsewhere leaves no stray thread", async () => {
      const [doomed, other] = await Promise.all([proxyOnStore(), proxyOnStore()]);
      model.enqueue(turn(message("Kyiv is 3C.")));
      // The key's write naming where the turn writes waits in the database until the test ends it.
      psql(
        "CREATE FUNCTION park() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN PERFORM pg_sleep(600); RETURN NEW; END $$",
      );
      psql(
        "CREATE TRIGGER park_key BEFORE UPDATE ON tscodex_idempotency_keys FOR EACH ROW EXECUTE FUNCTION park()",
      );
      const parked = "FROM pg_stat_activity WHERE datname = current_database() AND wait_event = 'PgSleep'";
      const body = { model: "m", input: "Weather in Kyiv?" };
      const lost = post(doomed, body, "q-4").catch((error: unknown) => error);
      await waitFor(() => psql(`SELECT count(*) ${parked}`) === "1", 10_000);
      await kill(doomed);
      psql(`SELECT pg_terminate_backend(pid) ${parked}`);
      psql("DROP TRIGGER park_key ON tscodex_idempotency_keys");
      expect(await lost).toBeInstanceOf(Error);

      const answer = await retry(other, body, "q-4");
      expect(answer.status, JSON.stringify(answer.body)).toBe(200);
      expect(text(answer)).toContain("Kyiv is 3C.");
      expect(model.requests).toHaveLength(1);
      expect(psql("SELECT id FROM tscodex_threads")).toBe(String(answer.body.id).split("_")[1]);
    });
  },
);

describe.skipIf(skip)("stored responses through the openai SDK on PostgreSQL", () => {
  it("retrieve and input items from another process, delete; background polled to its end elsewhere, and cancelled", async () => {
    const [one, two] = await Promise.all([proxyOnStore(), proxyOnStore()]);
    model.enqueue(turn(message("stored answer")));
    const created = await one.client().responses.create({ model: "m", input: "keep this" });
    expect(await two.client().responses.retrieve(created.id)).toEqual(created);
    const items = await two.client().responses.inputItems.list(created.id);
    expect(JSON.stringify(items.data)).toContain("keep this");
    await two.client().responses.delete(created.id);
    const gone = await one
      .client()
      .responses.retrieve(created.id)
      .catch((error: unknown) => error);
    expect(gone).toMatchObject({ status: 404 });

    model.enqueue(turn(delay(300), message("done in the background")));
    const started = await one.client().responses.create({ model: "m", input: "later", background: true });
    expect(started.status).toBe("in_progress");
    let polled = await two.client().responses.retrieve(started.id);
    await waitFor(async () => {
      polled = await two.client().responses.retrieve(started.id);
      return polled.status !== "in_progress";
    }, 10_000);
    expect(polled.status).toBe("completed");
    expect(polled.output_text).toBe("done in the background");

    model.enqueue(turn(hang()));
    const long = await one.client().responses.create({ model: "m", input: "forever", background: true });
    await model.waitForRequests(3, 10_000);
    // Another process cannot end it (the turn runs here); the one running it can.
    const elsewhere = await two
      .client()
      .responses.cancel(long.id)
      .catch((error: unknown) => error);
    expect(elsewhere).toMatchObject({ status: 409, code: "response_running_elsewhere" });
    expect((await one.client().responses.cancel(long.id)).status).toBe("cancelled");
    expect((await two.client().responses.retrieve(long.id)).status).toBe("cancelled");
  });

  it("a background response whose process was killed mid-run: retrieve, a streamed GET and cancel on another process end it as failed", async () => {
    const [doomed, other] = await Promise.all([proxyOnStore(), proxyOnStore()]);
    model.enqueue(turn(hang()), turn(hang()), turn(hang()));
    const started = await Promise.all(
      ["polled", "streamed", "cancelled"].map((input) =>
        doomed.client().responses.create({ model: "m", input, background: true }),
      ),
    );
    await model.waitForRequests(3, 10_000);
    await kill(doomed);
    const [polledId, streamedId, cancelledId] = started.map((response) => response.id) as [
      string,
      string,
      string,
    ];
    const failedWithReason = {
      status: "failed",
      error: {
        code: "server_error",
        message: expect.stringContaining("process running this background response stopped"),
      },
    };

    // Polled: in_progress only until the database has dropped the dead process's connection.
    let polled = await other.client().responses.retrieve(polledId);
    await waitFor(async () => {
      polled = await other.client().responses.retrieve(polledId);
      return polled.status !== "in_progress";
    }, 10_000);
    expect(polled).toMatchObject(failedWithReason);
    // Continuing from it continues its thread (where the cut-off turn left it), not a fork.
    model.enqueue(turn(message("picked up")));
    const next = await other
      .client()
      .responses.create({ model: "m", input: "again", previous_response_id: polledId });
    expect(next.output_text).toBe("picked up");
    expect(next.id.split("_")[1]).toBe(polledId.split("_")[1]);

    // Streamed: its final event, then the stream ends.
    const events: { type: string; response?: unknown }[] = [];
    await waitFor(async () => {
      const stream = await other
        .client()
        .responses.retrieve(streamedId, { stream: true, starting_after: 0 })
        .catch((error: unknown) => error);
      if (stream instanceof Error) return false;
      for await (const event of stream as AsyncIterable<{ type: string; response?: unknown }>)
        events.push(event);
      return true;
    }, 10_000);
    expect(events.map((event) => event.type)).toEqual(["response.failed"]);
    expect(events[0]?.response).toMatchObject(failedWithReason);

    // Cancelled: it had already ended when its process stopped, so it stays failed (no 409).
    expect(await other.client().responses.cancel(cancelledId)).toMatchObject(failedWithReason);
    expect(await other.client().responses.retrieve(cancelledId)).toMatchObject(failedWithReason);
  });
});

describe.skipIf(skip)("a deleted response and its Idempotency-Key on PostgreSQL", () => {
  async function deleteOn(proxy: ProxyProcess, id: string): Promise<void> {
    const response = await fetch(`${proxy.url}/responses/${id}`, { method: "DELETE" });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ id, object: "response", deleted: true });
  }

  async function expectDeletedOn(proxies: ProxyProcess[], body: object, key: string, id: string) {
    for (const proxy of proxies) {
      const again = await post(proxy, body, key);
      expect(again.status, JSON.stringify(again.body)).toBe(404);
      expect(again.body.error?.code).toBe("response_deleted");
      expect(again.body.error?.message).toContain(id);
      expect((await fetch(`${proxy.url}/responses/${id}`)).status).toBe(404);
    }
  }

  it("deleted on one process: the same key and body on either is a 404 that runs nothing; the key row keeps no copy", async () => {
    const [one, two] = await Promise.all([proxyOnStore(), proxyOnStore()]);
    model.enqueue(turn(message("SECRET-ANSWER-2 here")));
    const body = { model: "m", input: "answer once" };
    const first = await post(one, body, "del-1");
    expect(first.status).toBe(200);
    const id = String(first.body.id);
    await deleteOn(two, id);
    await expectDeletedOn([one, two], body, "del-1", id);
    expect(model.requests).toHaveLength(1);
    expect((await post(two, { ...body, input: "another" }, "del-1")).status).toBe(422);
    expect(
      psql("SELECT count(*) FROM tscodex_idempotency_keys WHERE record::text LIKE '%SECRET-ANSWER-2%'"),
    ).toBe("0");
  });

  it("a key whose answer a retry took over from a dead process: deleting that answer tombstones the key too", async () => {
    const [doomed, other] = await Promise.all([proxyOnStore(), proxyOnStore()]);
    model.enqueue(turn(message("SECRET-ANSWER-3 here")));
    const body = { model: "m", input: "answer once more" };
    const first = await post(doomed, body, "del-2");
    expect(first.status).toBe(200);
    await kill(doomed);
    forgetAnswer("del-2");
    const taken = await retry(other, body, "del-2");
    expect(taken.replayed).toBe("true");
    expect(taken.body).toEqual(first.body);
    const id = String(first.body.id);
    await deleteOn(other, id);
    await expectDeletedOn([other], body, "del-2", id);
    expect(model.requests).toHaveLength(1);
  });
});

describe.skipIf(skip)(
  "a deleted response stays deleted on PostgreSQL (background turn, deleted thread)",
  () => {
    async function deleteOn(proxy: ProxyProcess, id: string): Promise<void> {
      const response = await fetch(`${proxy.url}/responses/${id}`, { method: "DELETE" });
      expect(response.status).toBe(200);
    }

    async function expectKeyDeleted(proxy: ProxyProcess, body: object, key: string, secret: RegExp) {
      const again = await post(proxy, body, key);
      expect(again.status, JSON.stringify(again.body)).toBe(404);
      expect(again.body.error?.code).toBe("response_deleted");
      expect(JSON.stringify(again.body)).not.toMatch(secret);
    }

    it("a background response deleted on another process while its turn runs: the turn's end stores nothing", async () => {
      const [owner, other] = await Promise.all([proxyOnStore(), proxyOnStore()]);
      let release = () => {};
      const held = new Promise<void>((resolve) => {
        release = resolve;
      });
      model.enqueue(turn(message("partial"), hold(held), message("LATE-SECRET-PG")));
      const body = { model: "m", input: "background, deleted elsewhere", background: true };
      const started = await post(owner, body, "bg-del");
      expect(started.body.status).toBe("in_progress");
      const id = String(started.body.id);
      await model.waitForRequests(1, 10_000);

      await deleteOn(other, id);
      release();
      await owner.stop(); // a graceful stop waits for the background turn and its final save
      const got = await fetch(`${other.url}/responses/${id}`);
      expect(got.status, await got.clone().text()).toBe(404);
      await expectKeyDeleted(other, body, "bg-del", /LATE-SECRET-PG/);
      expect(psql("SELECT count(*) FROM tscodex_responses WHERE record::text LIKE '%LATE-SECRET-PG%'")).toBe(
        "0",
      );
    });

    it("`tscodex sessions delete` of a thread: the keys that answered with its responses replay 404 response_deleted", async () => {
      const proxy = await proxyOnStore();
      model.enqueue(turn(message("THREAD-SECRET-PG")));
      const body = { model: "m", input: "answer on a thread" };
      const first = await post(proxy, body, "thread-del");
      expect(first.status).toBe(200);
      const thread = /^resp_([0-9a-f-]{36})_/.exec(String(first.body.id))?.[1] ?? "";
      expect((await post(proxy, body, "thread-del")).replayed).toBe("true");

      const home = await tmpdir("tscodex-idem-cli-");
      dirs.push(home);
      await writeFakeConfig(home.path, { baseUrl: model.url });
      const deleted = await runCli(["sessions", "delete", thread], {
        cwd: home.path,
        home: home.path,
        env: { TSCODEX_STORE_URL: url },
      });
      expect(deleted.code, deleted.stderr).toBe(0);
      expect(threads()).toBe(0);

      await expectKeyDeleted(proxy, body, "thread-del", /THREAD-SECRET-PG/);
      expect((await fetch(`${proxy.url}/responses/${String(first.body.id)}`)).status).toBe(404);
      expect(
        psql("SELECT count(*) FROM tscodex_idempotency_keys WHERE record::text LIKE '%THREAD-SECRET-PG%'"),
      ).toBe("0");
      expect(model.requests).toHaveLength(1);
    });
  },
);
