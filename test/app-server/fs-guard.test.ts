/**
 * The guards of the app-server's fs/* methods against a hostile workspace (issue 37), through the
 * real stdio server: reads refuse what is not a regular file and stop at a bound.
 */
import { execFileSync } from "node:child_process";
import { readFile, truncate, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { StdioAppClient, WireMessage } from "../support/app-server-client.js";
import { useAppServerHarness } from "../support/app-server-harness.js";

const h = useAppServerHarness();
/** The writable roots are the server's cwd, /tmp and $TMPDIR: the home (under /tmp) is inside them. */
const workspaceWrite = ["-c", 'sandbox_mode="workspace-write"'];

describe("app-server fs/readFile: what is not a regular file, and size", () => {
  /** Rejects as soon as the server's resident memory passes `limitMb`. */
  function rssWatch(client: StdioAppClient, limitMb: number): { done: Promise<never>; stop(): void } {
    let timer: NodeJS.Timeout | undefined;
    const done = new Promise<never>((_, reject) => {
      timer = setInterval(async () => {
        const status = await readFile(`/proc/${client.child.pid}/status`, "utf8").catch(() => "");
        const kb = Number(/^VmRSS:\s+(\d+)/m.exec(status)?.[1] ?? 0);
        if (kb > limitMb * 1024) {
          client.child.kill("SIGKILL");
          reject(new Error(`the server's RSS reached ${Math.round(kb / 1024)} MB`));
        }
      }, 20);
    });
    return { done, stop: () => clearInterval(timer) };
  }

  it("refuses /dev/zero promptly, the server's memory staying small", async () => {
    const client = await h.stdio({ args: workspaceWrite });
    const watch = rssWatch(client, 300);
    let reply: WireMessage;
    try {
      reply = await Promise.race([client.request("fs/readFile", { path: "/dev/zero" }), watch.done]);
    } finally {
      watch.stop();
    }
    expect(reply.error).toEqual({
      code: -32600,
      message: "fs/readFile refused: /dev/zero is a character device; only regular files are read",
    });
  });

  it("refuses a FIFO promptly", async () => {
    const client = await h.stdio({ args: workspaceWrite });
    const fifo = join(h.work, "pipe");
    execFileSync("mkfifo", [fifo]);
    const read = await client.request("fs/readFile", { path: fifo });
    expect(read.error).toEqual({
      code: -32600,
      message: `fs/readFile refused: ${fifo} is a FIFO; only regular files are read`,
    });
  });

  it("refuses a regular file over the limit with a clear error", async () => {
    const client = await h.stdio();
    const big = join(h.work, "big.bin");
    await writeFile(big, "");
    await truncate(big, 64 * 1024 * 1024 + 1);
    const reply = await client.request("fs/readFile", { path: big });
    expect(reply.error).toEqual({
      code: -32600,
      message: `fs/readFile: ${big} is ${64 * 1024 * 1024 + 1} bytes; files over ${64 * 1024 * 1024} bytes are not read whole`,
    });
  });
});
