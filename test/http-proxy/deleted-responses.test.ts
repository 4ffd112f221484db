/**
 * A deleted response stays deleted (issue 37), on the JSONL store through real proxy processes:
 * - a background response deleted while its turn runs: the turn is cancelled on the process
 *   running it, and its end is stored nowhere (GET 404, its Idempotency-Key replays a 404);
 *   deleted through another process, the turn runs on there, but its end stores nothing either;
 * - a thread deleted (`tscodex sessions delete`, the app-server's thread/delete): the Idempotency-Keys that answered with its
 *   responses replay a 404 `response_deleted`, and its responses are gone.
 */
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { StdioAppClient } from "../support/app-server-client.js";
import { runCli } from "../support/cli.js";
import { hold, message, turn } from "../support/fake-model-server.js";
import { type ProxyProcess, postKeyed, useProxyHarness } from "../support/proxy-harness.js";

const h = useProxyHarness();

/** A promise the test settles to let a held model turn go on. */
function gate(): { held: Promise<void>; release: () => void } {
  let release = () => {};
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  return { held, release };
}

async function deleteOn(proxy: ProxyProcess, id: string): Promise<void> {
  const response = await fetch(`${proxy.url}/responses/${id}`, { method: "DELETE" });
  expect(response.status).toBe(200);
  expect(await response.json()).toEqual({ id, object: "response", deleted: true });
}

async function getStatus(proxy: ProxyProcess, id: string): Promise<{ status: number; text: string }> {
  const response = await fetch(`${proxy.url}/responses/${id}`);
  return { status: response.status, text: await response.text() };
}

/** Every stored file under the home's proxy/ directory and sessions, concatenated. */
async function storedText(): Promise<string> {
  let text = "";
  for (const top of ["proxy", "sessions"]) {
    const dir = join(h.home, top);
    const names = await readdir(dir, { recursive: true }).catch(() => [] as string[]);
    for (const name of names) text += await readFile(join(dir, name), "utf8").catch(() => "");
  }
  return text;
}

/** `resp_<thread id>_<random>`: the thread a response id names. */
function threadOf(responseId: string): string {
  const match = /^resp_([0-9a-f-]{36})_[0-9a-f]{12}$/.exec(responseId);
  if (!match?.[1]) throw new Error(`not a response id: ${responseId}`);
  return match[1];
}

describe("a deleted background response stays deleted", () => {
  it("deleted while its turn runs: the turn is cancelled, its end is stored nowhere; GET 404, its key replays 404", async () => {
    const proxy = await h.startProxy();
    const model = gate();
    h.model.enqueue(turn(message("partial"), hold(model.held), message("LATE-SECRET-ANSWER")));
    const body = { model: "m", input: "run in the background", background: true };
    const started = await postKeyed(proxy.url, "/responses", body, "key-bg");
    expect(started.status).toBe(200);
    expect(started.body.status).toBe("in_progress");
    const id = String(started.body.id);
    await h.model.waitForRequests(1, 10_000);

    await deleteOn(proxy, id);
    model.release();
    // A graceful stop waits for every background turn still running, then its final save.
    await proxy.stop();

    const after = await h.startProxy();
    const got = await getStatus(after, id);
    expect(got.status, got.text).toBe(404);
    const retry = await postKeyed(after.url, "/responses", body, "key-bg");
    expect(retry.status, JSON.stringify(retry.body)).toBe(404);
    expect(retry.body.error?.code).toBe("response_deleted");
    // Cancelled before the model went on: its late text reached no record and no rollout.
    expect(await storedText()).not.toContain("LATE-SECRET-ANSWER");
    expect(h.model.requests).toHaveLength(1);
  });

  it("deleted through another process while its turn runs there: that turn's end stores nothing", async () => {
    const owner = await h.startProxy();
    const other = await h.startProxy();
    const model = gate();
    h.model.enqueue(turn(message("partial"), hold(model.held), message("LATE-SECRET-ANSWER")));
    const body = { model: "m", input: "run in the background elsewhere", background: true };
    const started = await postKeyed(owner.url, "/responses", body, "key-bg-other");
    const id = String(started.body.id);
    await h.model.waitForRequests(1, 10_000);

    await deleteOn(other, id);
    model.release();
    await owner.stop(); // its turn ended and its final state was (not) stored
    const got = await getStatus(other, id);
    expect(got.status, got.text).toBe(404);
    expect(got.text).not.toContain("LATE-SECRET-ANSWER");
    const retry = await postKeyed(other.url, "/responses", body, "key-bg-other");
    expect(retry.status, JSON.stringify(retry.body)).toBe(404);
    expect(retry.body.error?.code).toBe("response_deleted");
    expect(JSON.stringify(retry.body)).not.toContain("LATE-SECRET-ANSWER");
  });
});

describe("a deleted thread's Idempotency-Keys", () => {
  it("`tscodex sessions delete` of the thread: its keys replay 404 response_deleted, its responses are gone", async () => {
    const proxy = await h.startProxy();
    h.model.enqueue(turn(message("FIRST-SECRET")), turn(message("SECOND-SECRET")));
    const body = { model: "m", input: "answer once" };
    const first = await postKeyed(proxy.url, "/responses", body, "key-thread-1");
    expect(first.status).toBe(200);
    const firstId = String(first.body.id);
    const next = { model: "m", previous_response_id: firstId, input: "and again" };
    const second = await postKeyed(proxy.url, "/responses", next, "key-thread-2");
    expect(second.status).toBe(200);
    const secondId = String(second.body.id);
    const thread = threadOf(firstId);
    expect(threadOf(secondId)).toBe(thread);
    // The keys replay before the delete.
    expect((await postKeyed(proxy.url, "/responses", body, "key-thread-1")).replayed).toBe("true");

    const deleted = await runCli(["sessions", "delete", thread], { cwd: h.work, home: h.home });
    expect(deleted.code, deleted.stderr).toBe(0);

    for (const [request, key] of [
      [body, "key-thread-1"],
      [next, "key-thread-2"],
    ] as const) {
      const retry = await postKeyed(proxy.url, "/responses", request, key);
      expect(retry.status, JSON.stringify(retry.body)).toBe(404);
      expect(retry.body.error?.code).toBe("response_deleted");
      expect(JSON.stringify(retry.body)).not.toMatch(/FIRST-SECRET|SECOND-SECRET/);
    }
    for (const id of [firstId, secondId]) expect((await getStatus(proxy, id)).status).toBe(404);
    expect(await storedText()).not.toMatch(/FIRST-SECRET|SECOND-SECRET/);
    expect(h.model.requests).toHaveLength(2);
  });

  it("the app-server's thread/delete of the thread: its key replays 404 response_deleted", async () => {
    const proxy = await h.startProxy();
    h.model.enqueue(turn(message("APP-SERVER-SECRET")));
    const body = { model: "m", input: "answer for the app-server" };
    const first = await postKeyed(proxy.url, "/responses", body, "key-app");
    expect(first.status).toBe(200);
    const thread = threadOf(String(first.body.id));

    const client = new StdioAppClient({ home: h.home, cwd: h.work });
    try {
      const reply = await client.initialize();
      expect(reply.error, client.stderr).toBeUndefined();
      expect(await client.call("thread/delete", { threadId: thread })).toEqual({});
    } finally {
      await client.close();
    }
    const retry = await postKeyed(proxy.url, "/responses", body, "key-app");
    expect(retry.status, JSON.stringify(retry.body)).toBe(404);
    expect(retry.body.error?.code).toBe("response_deleted");
    expect(JSON.stringify(retry.body)).not.toContain("APP-SERVER-SECRET");
    expect((await getStatus(proxy, String(first.body.id))).status).toBe(404);
  });
});
