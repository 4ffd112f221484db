/**
 * A sandboxed command aborted while its sandbox is still setting up leaves nothing running
 * (issue 37 cause 14). bwrap's init ignores SIGTERM (it is a PID namespace's init), leaves
 * bwrap's process group, and asks to die with bwrap only late in its setup: a bwrap killed
 * before that left its init and the command in it running. Each round aborts the command at a
 * different instant of its first milliseconds, under each backend.
 */
import { describe, expect, it } from "vitest";
import { runCommand } from "../../src/exec/spawn.js";
import { prepareSandboxedCommand } from "../../src/policy/sandbox/index.js";
import { waitFor, withMarker } from "../support/processes.js";
import { sandboxBackends } from "../support/sandbox-probe.js";
import { missing } from "../support/skips.js";
import { tmpdir } from "../support/tmpdir.js";

const backends = await sandboxBackends();
const ROUNDS = 20;
const env = { PATH: process.env.PATH ?? "/usr/bin:/bin" };

describe.each(backends)("aborting a command as it starts, under $name", ({ name, status }) => {
  it.skipIf(missing(status, `kill-while-starting under ${name}`))(
    "leaves no process of the command running, whatever the instant",
    async () => {
      const work = await tmpdir("tscodex-kill-start-");
      const survivors: string[] = [];
      try {
        for (let round = 0; round < ROUNDS; round++) {
          const marker = `killstart${process.pid}x${round}x${Math.random().toString().slice(2, 8)}`;
          const { argv } = await prepareSandboxedCommand(
            ["/bin/bash", "-c", `exec -a ${marker} sleep 30`],
            work.path,
            { mode: "workspace-write", writableRoots: [work.path], networkAccess: false },
            { backend: name },
          );
          const abort = new AbortController();
          const run = runCommand({ argv, cwd: work.path, env, timeoutMs: 60_000, signal: abort.signal });
          // The instant varies, not the outcome: 0–9 ms into the start, by round.
          setTimeout(() => abort.abort(), round % 10);
          expect((await run).aborted).toBe(true);
          await waitFor(async () => (await withMarker(marker)).length === 0, 1000).catch(() => {});
          const left = await withMarker(marker);
          if (left.length > 0) survivors.push(`round ${round}: ${left.length} left`);
          for (const pid of left) {
            try {
              process.kill(pid, "SIGKILL");
            } catch {
              // Gone meanwhile.
            }
          }
        }
      } finally {
        await work.cleanup();
      }
      expect(survivors).toEqual([]);
    },
    120_000,
  );
});
