/**
 * The session manager on real processes and PTYs: ids, bounded buffers, serialized calls,
 * the live-session cap, and ending whole process trees.
 */
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ExecSessionSpec } from "../../src/exec/session.js";
import { ExecSessionManager, SessionLimitError } from "../../src/exec/sessions.js";
import { type TempDir, tmpdir } from "../support/tmpdir.js";
import { alive, gone, readPid, waitFor } from "./sessions-helpers.js";

let dir: TempDir;
let manager: ExecSessionManager;
beforeEach(async () => {
  dir = await tmpdir();
  manager = new ExecSessionManager({ killGraceMs: 200 });
});
afterEach(async () => {
  await manager.dispose();
  await dir.cleanup();
});

const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: "/nonexistent", LANG: "C.UTF-8" };
const spec = (script: string, tty = false): ExecSessionSpec => ({
  argv: ["/bin/bash", "-c", script],
  cwd: dir.path,
  env,
  tty,
});
const soon = (ms: number) => performance.now() + ms;

describe("ExecSessionManager", () => {
  it("gives random ids of four or five digits, distinct while live", async () => {
    const started = await Promise.all(Array.from({ length: 5 }, () => manager.start(spec("sleep 30"))));
    const ids = started.map(({ session }) => session.id);
    expect(new Set(ids).size).toBe(5);
    for (const id of ids) expect(id >= 1000 && id <= 99_999).toBe(true);
    expect(manager.size).toBe(5);
  });

  it("keeps the first and last 512 KiB of what came between polls, counting everything", async () => {
    const { session } = await manager.start(spec("head -c 5000000 /dev/zero | tr '\\0' a; echo; echo end"));
    const result = await manager.interact(session, "", soon(10_000));
    expect(result.exit).toEqual({ exitCode: 0, signal: null });
    expect(result.output.totalBytes).toBe(5_000_005);
    expect(result.output.totalLines).toBe(2);
    expect(result.output.head.length).toBe(512 * 1024);
    expect(result.output.tail?.endsWith("a\nend\n")).toBe(true);
    // Reported: the id is gone.
    expect(manager.get(session.id)).toBeUndefined();
  });

  it("returns at the deadline with what arrived, and later polls get only the rest", async () => {
    const { session } = await manager.start(spec("echo first; sleep 0.3; echo second"));
    const arrived = new Promise((resolve) => session.onOutput(resolve));
    await arrived;
    const first = await manager.interact(session, "", soon(0));
    expect(first).toMatchObject({ exit: null, aborted: false });
    expect(first.output.head).toBe("first\n");
    const second = await manager.interact(session, "", soon(5000));
    expect(second.output.head).toBe("second\n");
    expect(second.exit?.exitCode).toBe(0);
  });

  it("runs calls on one session one after another", async () => {
    const { session } = await manager.start(spec("cat", true));
    const [a, b] = await Promise.all([
      manager.interact(session, "a\n", soon(200)),
      // Queued behind the first call: its deadline must leave time after that one.
      manager.interact(session, "b\n", soon(400)),
    ]);
    expect(a?.output.head).toBe("a\r\na\r\n");
    expect(b?.output.head).toBe("b\r\nb\r\n");
  });

  it("stops waiting when the signal aborts, and keeps the output for the next call", async () => {
    const { session } = await manager.start(spec("echo kept; sleep 30"));
    const abort = new AbortController();
    setTimeout(() => abort.abort(), 100);
    const aborted = await manager.interact(session, "", soon(10_000), abort.signal);
    expect(aborted).toMatchObject({ aborted: true, exit: null });
    const next = await manager.interact(session, "", soon(50));
    expect(next.output.head).toBe("kept\n");
  });

  it("ends the least recently used idle session to make room, and refuses when all are busy", async () => {
    const small = new ExecSessionManager({ maxSessions: 2, killGraceMs: 200 });
    try {
      const first = await small.start(spec("sleep 30"));
      const second = await small.start(spec("sleep 30"));
      await small.interact(first.session, "", soon(0));
      const third = await small.start(spec("sleep 30"));
      expect(third.pruned).toBe(second.session);
      expect(small.get(second.session.id)).toBeUndefined();
      await waitFor(async () => !(await alive(second.session.pid)));
      expect(second.session.killReason).toBe("prune");

      const busy = [first, third].map(({ session }) => small.interact(session, "", soon(400)));
      await expect(small.start(spec("sleep 30"))).rejects.toBeInstanceOf(SessionLimitError);
      await Promise.all(busy);
    } finally {
      await small.dispose();
    }
  });

  it("ends every process tree on dispose, including what exited leaders left behind", async () => {
    const orphanFile = join(dir.path, "orphan.pid");
    const jobFile = join(dir.path, "job.pid");
    const { session: running } = await manager.start(spec("sleep 30 & wait"));
    // The leader exits at once; its background child keeps running in the session.
    const { session: parent } = await manager.start(
      spec(`sleep 30 > /dev/null 2>&1 & echo $! > ${orphanFile}`),
    );
    // An interactive shell puts the job in its own process group: only the session sweep finds it.
    const { session: shell } = await manager.start({
      ...spec("", true),
      argv: ["/bin/bash", "--norc", "-i"],
    });
    await manager.interact(shell, `sleep 30 & echo $! > ${jobFile}\n`, soon(0));
    const orphan = await readPid(orphanFile);
    const job = await readPid(jobFile);
    await manager.interact(parent, "", soon(5000));
    expect(parent.exit?.exitCode).toBe(0);
    expect(await alive(orphan)).toBe(true);
    expect(await alive(job)).toBe(true);

    await manager.dispose();
    for (const pid of [running.pid, orphan, shell.pid, job]) expect(await gone(pid), `pid ${pid}`).toBe(true);
    expect(running.killReason).toBe("shutdown");
    await expect(manager.start(spec("true"))).rejects.toThrow("shut down");
  });

  it("rejects a missing working directory or program", async () => {
    await expect(manager.start({ ...spec("true"), cwd: join(dir.path, "nope") })).rejects.toMatchObject({
      code: "ENOENT",
    });
    await expect(
      manager.start({ ...spec("true"), argv: ["/no/such/shell", "-c", "true"] }),
    ).rejects.toMatchObject({
      code: "ENOENT",
    });
  });
});
