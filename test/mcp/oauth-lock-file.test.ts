/**
 * The cross-process lock of `.credentials.json` (mcp/oauth/lock-file.ts): exclusive while held,
 * taken over at once when its holder's pid is gone or when it is older than its stale bound,
 * a bounded wait for a live holder ending in an error that names the file, and the credentials
 * saves of several servers at once all kept.
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { readFile, stat, writeFile } from "node:fs/promises";
import { hostname } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { readCredentials, saveCredentials } from "../../src/mcp/oauth/credentials.js";
import { withLockFile } from "../../src/mcp/oauth/lock-file.js";
import { type TempDir, tmpdir } from "../support/tmpdir.js";

let dir: TempDir;
beforeEach(async () => {
  dir = await tmpdir();
});
afterEach(async () => {
  await dir.cleanup();
});

const times = { waitMs: 2_000, staleMs: 60_000, what: "the test file" };

async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ["-e", ""], { stdio: "ignore" });
  await once(child, "exit");
  return child.pid ?? 0;
}

describe("withLockFile", () => {
  it("runs holders one at a time and removes the lock after", async () => {
    const path = join(dir.path, "x.lock");
    const log: string[] = [];
    const holder = (name: string) =>
      withLockFile(path, times, async () => {
        log.push(`${name} in`);
        await new Promise<void>((resolve) => setImmediate(resolve));
        log.push(`${name} out`);
      });
    await Promise.all([holder("a"), holder("b"), holder("c")]);
    for (let i = 0; i < log.length; i += 2) expect(log[i + 1]).toBe(log[i]?.replace("in", "out"));
    expect(log).toHaveLength(6);
    await expect(stat(path)).rejects.toMatchObject({ code: "ENOENT" });
  });

  it("takes over a lock whose holder is gone", async () => {
    const path = join(dir.path, "x.lock");
    const pid = await deadPid();
    await writeFile(path, JSON.stringify({ pid, host: hostname(), since: Date.now(), nonce: "n" }));
    expect(await withLockFile(path, times, async () => "ran")).toBe("ran");
  });

  it("takes over a lock older than its stale bound", async () => {
    const path = join(dir.path, "x.lock");
    const since = Date.now() - 120_000;
    await writeFile(path, JSON.stringify({ pid: process.pid, host: hostname(), since, nonce: "n" }));
    expect(await withLockFile(path, times, async () => "ran")).toBe("ran");
  });

  it("waits a bounded time for a live holder, then names the lock", async () => {
    const path = join(dir.path, "x.lock");
    const live = { pid: process.pid, host: hostname(), since: Date.now(), nonce: "n" };
    await writeFile(path, JSON.stringify(live));
    await expect(withLockFile(path, { ...times, waitMs: 200 }, async () => "ran")).rejects.toThrow(
      `waiting for the lock of the test file (${path}, held by pid ${process.pid}`,
    );
    // Still the holder's.
    expect(JSON.parse(await readFile(path, "utf8"))).toEqual(live);
  });
});

describe("saveCredentials", () => {
  it("keeps every server's entry when many are saved at once (0600)", async () => {
    const names = Array.from({ length: 8 }, (_, i) => `s${i}`);
    await Promise.all(
      names.map((name) =>
        saveCredentials(dir.path, {
          server_name: name,
          server_url: `http://127.0.0.1/${name}`,
          issuer: "http://127.0.0.1",
          client_id: "c",
          access_token: `at-${name}`,
          expires_at: null,
          refresh_token: `rt-${name}`,
          scopes: [],
        }),
      ),
    );
    for (const name of names) {
      expect(await readCredentials(dir.path, name, `http://127.0.0.1/${name}`)).toMatchObject({
        refresh_token: `rt-${name}`,
      });
    }
    expect((await stat(join(dir.path, ".credentials.json"))).mode & 0o777).toBe(0o600);
  });
});
