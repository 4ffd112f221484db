/**
 * The proxy prunes its parked-call index (issue 30): an entry older than both the parked-call
 * and the retry windows goes at startup (then hourly), a newer one stays; so do expired
 * idempotency keys.
 */

import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, utimes, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { waitFor } from "../support/processes.js";
import { useProxyHarness } from "../support/proxy-harness.js";

const h = useProxyHarness();

describe("proxy pruning", () => {
  it("drops parked-call entries past the windows at startup and keeps newer ones", async () => {
    const dir = join(h.home, "proxy", "parked-calls");
    await mkdir(dir, { recursive: true });
    // The JSONL store's layout: one file per call id, named by its hash.
    const entry = (callId: string) =>
      join(dir, createHash("sha256").update(callId).digest("hex").slice(0, 40));
    const old = entry("call_old");
    const fresh = entry("call_fresh");
    await writeFile(old, "thread-a");
    await writeFile(fresh, "thread-b");
    const hourAgo = new Date(Date.now() - 3_600_000);
    await utimes(old, hourAgo, hourAgo);
    await h.startProxy(["--parked-ttl", "600", "--idempotency-ttl", "900"]);
    await waitFor(() => !existsSync(old));
    expect(existsSync(fresh)).toBe(true);
  });

  it("drops expired idempotency keys at startup and keeps live ones", async () => {
    const dir = join(h.home, "proxy", "idempotency-keys");
    await mkdir(dir, { recursive: true });
    const now = Date.now();
    const key = async (name: string, expires: number) => {
      const path = join(dir, `${name}.json`);
      await writeFile(
        path,
        JSON.stringify({ key: name, fingerprint: "f", result: null, created: now, expires }),
      );
      return path;
    };
    const expired = await key("expired", now - 1);
    const live = await key("live", now + 3_600_000);
    await h.startProxy();
    await waitFor(() => !existsSync(expired));
    expect(existsSync(live)).toBe(true);
  });
});
