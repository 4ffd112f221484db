/**
 * A non-streaming /v1/responses client that disconnects ends its turn at once, whenever it goes
 * (issue 22, the disconnect race): while the proxy still waits for the thread (before the turn
 * starts), while the model is answering, and while the sandboxed command runs. Each case awaits
 * the outcome (the turn recorded as aborted, the command's process gone), in both sandbox
 * backends; none sleeps.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { watch } from "node:fs";
import { readdir, readFile } from "node:fs/promises";
import { request } from "node:http";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { delay, functionCall, message, turn } from "../support/fake-model-server.js";
import { waitFor, withMarker } from "../support/processes.js";
import { useProxyHarness } from "../support/proxy-harness.js";
import { sandboxBackends } from "../support/sandbox-probe.js";

const h = useProxyHarness({
  extraConfig: 'sandbox_mode = "workspace-write"\napproval_policy = "never"\n[store]\nlease_wait_ms = 60000',
});
const backends = await sandboxBackends();

const holders: ChildProcess[] = [];
afterEach(() => {
  for (const holder of holders.splice(0)) holder.kill("SIGKILL");
});

/** A marker no other process has: the sleep's own argument. */
function uniqueMarker(): string {
  return `4${process.pid % 10}.${Date.now() % 100_000}${Math.floor(Math.random() * 9)}7`;
}

async function rolloutText(): Promise<string> {
  const dir = join(h.home, "sessions");
  const files = (await readdir(dir, { recursive: true })).filter((name) => name.endsWith(".jsonl"));
  return (await Promise.all(files.map((name) => readFile(join(dir, name), "utf8")))).join("");
}

function countOf(text: string, needle: string): number {
  return text.split(needle).length - 1;
}

/** POST a non-streaming request; resolves once every byte is sent, with a function that hangs up. */
function postThenHangUp(url: string, body: object): Promise<() => void> {
  const target = new URL(`${url}/responses`);
  const text = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request({
      host: target.hostname,
      port: target.port,
      path: target.pathname,
      method: "POST",
      headers: { "content-type": "application/json", "content-length": Buffer.byteLength(text) },
    });
    req.on("error", () => {});
    req.on("response", (res) => reject(new Error(`answered before the hang-up: ${res.statusCode}`)));
    req.end(text, () => resolve(() => req.destroy()));
  });
}

/** Holds thread `id`'s lease in another process until killed. */
async function holdLease(id: string): Promise<ChildProcess> {
  const child = spawn(
    process.execPath,
    ["scripts/run-ts.mjs", "test/support/lease-holder.ts", "jsonl", h.home, id],
    {
      stdio: ["ignore", "pipe", "inherit"],
    },
  );
  holders.push(child);
  await new Promise<void>((resolve, reject) => {
    let out = "";
    child.stdout?.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes("held\n")) resolve();
    });
    child.once("exit", (code) => reject(new Error(`lease holder exited ${code}`)));
  });
  return child;
}

describe.each(backends)("a non-streaming client that disconnects ($name sandbox)", ({ name, status }) => {
  const run = it.skipIf(!status.available);

  const startProxy = () => h.startProxy(["-c", `sandbox_backend="${name}"`]);

  run(
    "before its turn starts (the thread is held elsewhere): the turn ends as it begins, no command runs",
    async () => {
      const proxy = await startProxy();
      const marker = uniqueMarker();
      h.model.enqueue(turn(message("first")));
      const first = await proxy.client().responses.create({ model: "m", input: "first" });
      const threadId = /^resp_(.{36})_/.exec(first.id)?.[1] ?? "";
      h.model.enqueue(
        turn(functionCall("shell_command", { command: `sleep ${marker}` }, "call_sh")),
        turn(message("never sent")),
      );
      const holder = await holdLease(threadId);
      // The proxy is inside the request once it tries the lease: each try writes a draft lock file.
      const locks = join(h.home, "locks", "threads");
      const watcher = watch(locks);
      const waiting = new Promise<void>((resolve) =>
        watcher.on("change", (_type, file) => {
          if (String(file).startsWith(threadId) && String(file).endsWith(".tmp")) resolve();
        }),
      );
      const hangUp = await postThenHangUp(proxy.url, {
        model: "m",
        input: "run it",
        previous_response_id: first.id,
      });
      await waiting;
      watcher.close();
      hangUp();
      holder.kill("SIGKILL");
      await waitFor(async () => countOf(await rolloutText(), '"turn_aborted"') === 1, 20_000);
      expect(await withMarker(marker)).toEqual([]);
      expect(h.model.requests).toHaveLength(1);
    },
  );

  run("while the model answers: the command it asks for never starts", async () => {
    const proxy = await startProxy();
    const marker = uniqueMarker();
    h.model.enqueue(
      turn(delay(60_000), functionCall("shell_command", { command: `sleep ${marker}` }, "call_sh")),
      turn(message("never sent")),
    );
    const hangUp = await postThenHangUp(proxy.url, { model: "m", input: "run it" });
    await h.model.waitForRequests(1, 10_000);
    hangUp();
    await waitFor(async () => countOf(await rolloutText(), '"turn_aborted"') === 1, 20_000);
    expect(await withMarker(marker)).toEqual([]);
  });

  run("while its sandboxed command runs: the process is killed", async () => {
    const proxy = await startProxy();
    const marker = uniqueMarker();
    h.model.enqueue(
      turn(functionCall("shell_command", { command: `sleep ${marker}` }, "call_sh")),
      turn(message("never sent")),
    );
    const hangUp = await postThenHangUp(proxy.url, { model: "m", input: "run it" });
    await waitFor(async () => (await withMarker(marker)).length > 0, 20_000);
    hangUp();
    await waitFor(async () => (await withMarker(marker)).length === 0, 10_000);
    await waitFor(async () => countOf(await rolloutText(), '"turn_aborted"') === 1, 10_000);
  });
});
