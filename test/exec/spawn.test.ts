import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runCommand } from "../../src/exec/spawn.js";
import { alive, gone } from "../support/processes.js";
import { type TempDir, tmpdir } from "../support/tmpdir.js";

const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", LANG: "C.UTF-8" };

let dir: TempDir;
beforeEach(async () => {
  dir = await tmpdir();
});
afterEach(async () => {
  await dir.cleanup();
});

const sh = (script: string, timeoutMs = 5000, extra: { signal?: AbortSignal } = {}) =>
  runCommand({ argv: ["/bin/sh", "-c", script], cwd: dir.path, env, timeoutMs, ...extra });

/** Polls for a file a command writes (no fixed sleeps). */
async function waitForFile(path: string): Promise<string> {
  for (;;) {
    const text = await readFile(path, "utf8").catch(() => "");
    if (text.endsWith("\n")) return text.trim();
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe("runCommand", () => {
  it("reports exit codes and interleaves stdout and stderr", async () => {
    const result = await sh("echo out; echo err >&2; exit 3");
    expect(result.exitCode).toBe(3);
    expect(result.aggregated.head).toBe("out\nerr\n");
    expect(result.stdout.head).toBe("out\n");
    expect(result.stderr.head).toBe("err\n");
    expect(result.totalLines).toBe(2);
    expect(result).toMatchObject({ timedOut: false, aborted: false, killedBySignal: null });
  });

  it("runs in cwd with the given environment and stdin on /dev/null", async () => {
    const result = await runCommand({
      argv: ["/bin/sh", "-c", 'pwd; echo "$ONLY_HERE"; cat; echo done'],
      cwd: dir.path,
      env: { ...env, ONLY_HERE: "yes" },
      timeoutMs: 5000,
    });
    expect(result.aggregated.head).toBe(`${dir.path}\nyes\ndone\n`);
  });

  it("streams chunks as they come", async () => {
    const seen: string[] = [];
    await runCommand({
      argv: ["/bin/sh", "-c", "printf a; printf b >&2"],
      cwd: dir.path,
      env,
      timeoutMs: 5000,
      onOutput: (stream, chunk) => seen.push(`${stream}:${Buffer.from(chunk).toString()}`),
    });
    expect(seen.sort()).toEqual(["stderr:b", "stdout:a"]);
  });

  it("kills the whole process group on timeout", async () => {
    const pidfile = join(dir.path, "pid");
    const result = await sh(`sleep 30 & echo $! > ${pidfile}; echo before; wait`, 300);
    const grandchild = Number(await waitForFile(pidfile));
    expect(result.timedOut).toBe(true);
    expect(result.exitCode).toBe(124);
    expect(result.aggregated.head).toBe("before\n");
    expect(result.durationMs).toBeGreaterThanOrEqual(300);
    expect(result.durationMs).toBeLessThan(1500);
    expect(await gone(grandchild)).toBe(true);
  });

  it("kills the whole process group on abort", async () => {
    const pidfile = join(dir.path, "pid");
    const controller = new AbortController();
    const running = sh(`sleep 30 & echo $! > ${pidfile}; wait`, 10_000, { signal: controller.signal });
    const grandchild = Number(await waitForFile(pidfile));
    expect(await alive(grandchild)).toBe(true);
    controller.abort();
    const result = await running;
    expect(result.aborted).toBe(true);
    expect(result.timedOut).toBe(false);
    // SIGKILL was sent to the group; under load the kernel may still be tearing it down.
    expect(await gone(grandchild)).toBe(true);
  });

  it("on abort also kills a descendant that left the group (setsid, as bwrap's own init does)", async () => {
    const pidfile = join(dir.path, "pid");
    const controller = new AbortController();
    // `setsid` in a background job (not a group leader) makes the sleep a session of its own.
    const running = sh(`setsid sh -c 'echo $$ > ${pidfile}; exec sleep 30' & wait`, 10_000, {
      signal: controller.signal,
    });
    const stray = Number(await waitForFile(pidfile));
    expect(await alive(stray)).toBe(true);
    controller.abort();
    expect((await running).aborted).toBe(true);
    expect(await gone(stray)).toBe(true);
  });

  it("escalates to SIGKILL for a group that ignores SIGTERM", async () => {
    const started = performance.now();
    const result = await runCommand({
      argv: ["/bin/sh", "-c", "trap '' TERM; echo ready; while :; do sleep 0.05; done"],
      cwd: dir.path,
      env,
      timeoutMs: 100,
      killGraceMs: 200,
    });
    expect(result.timedOut).toBe(true);
    expect(result.aggregated.head).toBe("ready\n");
    expect(performance.now() - started).toBeLessThan(1500);
  });

  it("does not wait forever for a background grandchild holding the pipes", async () => {
    const pidfile = join(dir.path, "pid");
    const result = await runCommand({
      argv: ["/bin/sh", "-c", `sleep 30 & echo $! > ${pidfile}; echo left`],
      cwd: dir.path,
      env,
      timeoutMs: 5000,
      drainTimeoutMs: 100,
    });
    expect(result.exitCode).toBe(0);
    expect(result.aggregated.head).toBe("left\n");
    expect(result.durationMs).toBeLessThan(1000);
    const grandchild = Number(await waitForFile(pidfile));
    process.kill(grandchild, "SIGKILL");
  });

  it("reports a signal it did not send", async () => {
    const result = await sh("kill -9 $$");
    expect(result.killedBySignal).toBe("SIGKILL");
    expect(result.exitCode).toBe(137);
    expect(result.timedOut).toBe(false);
    expect(result.aborted).toBe(false);
  });

  it("reports a missing binary or cwd as a spawn error", async () => {
    const missingBinary = await runCommand({
      argv: ["no-such-binary-xyz"],
      cwd: dir.path,
      env,
      timeoutMs: 1000,
    });
    expect(missingBinary.spawnError?.code).toBe("ENOENT");
    const missingCwd = await runCommand({
      argv: ["/bin/sh", "-c", "exit 0"],
      cwd: join(dir.path, "nope"),
      env,
      timeoutMs: 1000,
    });
    expect(missingCwd.spawnError?.code).toBe("ENOENT");
    expect(missingCwd.exitCode).toBe(-1);
  });

  it("keeps 50 MB of output bounded, with its real end", async () => {
    const before = process.memoryUsage().rss;
    const result = await sh("head -c 50000000 /dev/zero | tr '\\0' a; echo; echo THE-END", 20_000);
    const grown = process.memoryUsage().rss - before;
    expect(result.exitCode).toBe(0);
    expect(result.aggregated.totalBytes).toBe(50_000_009);
    expect(result.totalLines).toBe(2);
    expect(result.aggregated.head.length).toBe(512 * 1024);
    expect(result.aggregated.tail?.endsWith("aaaa\nTHE-END\n")).toBe(true);
    expect(grown).toBeLessThan(80 * 1024 * 1024);
  });
});
