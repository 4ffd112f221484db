/**
 * One process at a time per thread: a second `exec resume` of a thread another process has open
 * is refused with a clear message before anything runs; a holder killed with -9 leaves a stale
 * lock that the next process breaks. The lease contract, on the JSONL store's lock files.
 */

import type { ChildProcess } from "node:child_process";
import { spawn } from "node:child_process";
import { mkdir, readdir, writeFile } from "node:fs/promises";
import { hostname } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { messageText } from "../../src/protocol/items.js";
import { FileThreadLeases, ThreadBusyError } from "../../src/store/thread-lock.js";
import { useExecHarness } from "../support/exec-harness.js";
import { hang, message, turn } from "../support/fake-model-server.js";

const h = useExecHarness({ execArgs: ["--skip-git-repo-check"] });

const ID = "0192a0b0-0000-7000-8000-000000000001";

describe("exec resume of a thread in use", () => {
  it("refuses the second process, and a kill -9'd holder does not block the next", async () => {
    h.server.enqueue(turn(message("first")));
    const first = await h.exec(["--json", "start"]);
    expect(first.code, first.stderr).toBe(0);
    const threadId = (JSON.parse(first.stdout.split("\n")[0] ?? "{}") as { thread_id: string }).thread_id;

    // A: resumes the thread and stays in its turn (the model never answers).
    h.server.enqueue(turn(hang()));
    let holder: ChildProcess | undefined;
    const held = h.exec(
      ["-c", "model_providers.fake.stream_idle_timeout_ms=60000", "resume", threadId, "long job"],
      {
        onSpawn: (child) => {
          holder = child;
        },
      },
    );
    await h.server.waitForRequests(2, 15_000);

    // B: refused up front, nothing sent to the model.
    const refused = await h.exec(["resume", threadId, "interloper"]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      `tscodex: thread ${threadId} is in use by another tscodex process (pid ${holder?.pid}`,
    );
    expect(h.server.requests).toHaveLength(2);

    holder?.kill("SIGKILL");
    expect((await held).signal).toBe("SIGKILL");

    // C: the dead holder's lock is stale; the thread continues with A's prompt and not B's.
    h.server.enqueue(turn(message("third")));
    const next = await h.exec(["resume", threadId, "after"]);
    expect(next.code, next.stderr).toBe(0);
    const users = (h.server.requests.at(-1)?.input ?? [])
      .filter((item) => item.type === "message" && item.role === "user")
      .map((item) => (item.type === "message" ? messageText(item) : ""))
      .filter((text) => !text.startsWith("<"));
    expect(users).toEqual(["start", "long job", "after"]);
    // Released on exit: nothing left in the lock directory.
    expect(await readdir(join(h.home, "locks", "threads"))).toEqual([]);
  });
});

describe("FileThreadLeases", () => {
  const lockPath = () => join(h.home, "locks", "threads", `${ID}.lock`);
  const writeLock = async (holder: object) => {
    await mkdir(join(h.home, "locks", "threads"), { recursive: true });
    await writeFile(lockPath(), `${JSON.stringify(holder)}\n`);
  };

  it("holds a thread for one holder at a time, in this process too", async () => {
    const leases = new FileThreadLeases(h.home);
    const lease = await leases.acquire(ID);
    const again = await new FileThreadLeases(h.home).acquire(ID).catch((error: unknown) => error);
    expect(again).toBeInstanceOf(ThreadBusyError);
    expect((again as Error).message).toBe(
      `thread ${ID} is in use by this process; wait until it is done with the thread, or end that process`,
    );
    await lease.release();
    await (await leases.acquire(ID)).release();
  });

  it("breaks the lock of an ended process, a reused pid and a leak of its own; not another host's", async () => {
    const leases = new FileThreadLeases(h.home);
    const ended = spawn(process.execPath, ["-e", ""]);
    const deadPid = ended.pid ?? 0;
    await new Promise((resolve) => ended.once("close", resolve));
    const stale = [
      { pid: deadPid, host: hostname(), start: null, since: "x" },
      { pid: process.ppid, host: hostname(), start: 1, since: "x" }, // alive, but started at another time
      { pid: process.pid, host: hostname(), start: null, since: "x" }, // ours, but no lease holds it
    ];
    for (const holder of stale) {
      await writeLock(holder);
      await (await leases.acquire(ID)).release();
    }
    await writeLock({ pid: 4242, host: "elsewhere", start: null, since: "2026-01-01" });
    await expect(leases.acquire(ID)).rejects.toThrow(
      `thread ${ID} is in use by another tscodex process (pid 4242 on elsewhere, since 2026-01-01)`,
    );
  });
});
