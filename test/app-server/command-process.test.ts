/**
 * CommandProcess flow control: streamed output is not read while the client is behind, so a
 * command printing without end blocks on its pipe instead of filling the server's memory.
 */
import { describe, expect, it } from "vitest";
import { CommandProcess } from "../../src/frontends/app-server/command-process.js";

describe("CommandProcess", () => {
  it("stops reading streamed output while the client's backlog is high, and resumes when it drains", async () => {
    let backlog = 64 * 1024 * 1024;
    let polls = 0;
    let streamed = 0;
    let deltas = 0;
    const total = 8 * 1024 * 1024;
    const command = await CommandProcess.start({
      argv: ["head", "-c", String(total), "/dev/zero"],
      cwd: process.cwd(),
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
      tty: false,
      capBytes: Number.POSITIVE_INFINITY,
      timeoutMs: 30_000,
      onDelta: (_stream, bytes) => {
        streamed += bytes.length;
        deltas++;
      },
      backlog: () => {
        polls++;
        return backlog;
      },
    });
    let finished = false;
    void command.done.then(() => {
      finished = true;
    });
    // The first chunk pauses the reading; every poll since found the client still behind.
    await waitUntil(() => polls >= 30);
    expect(deltas).toBe(1);
    expect(streamed).toBeLessThan(total);
    expect(finished).toBe(false);
    backlog = 0;
    expect((await command.done).exitCode).toBe(0);
    expect(streamed).toBe(total);
  });
});

async function waitUntil(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((resolve) => setTimeout(resolve, 5));
}
