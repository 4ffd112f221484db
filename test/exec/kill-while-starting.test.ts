/**
 * A sandboxed command aborted while its sandbox is still setting up leaves nothing running
 * (issue 37 cause 14). bwrap's init ignores SIGTERM (it is a PID namespace's init), leaves
 * bwrap's process group, and asks to die with bwrap only late in its setup: a bwrap killed
 * before that left its init and the command in it running. Each round ends the command (a
 * one-shot command, or an exec session) at a different instant of its first milliseconds,
 * under each backend.
 */
import { describe, expect, it } from "vitest";
import { ExecSessionManager } from "../../src/exec/sessions.js";
import { runCommand } from "../../src/exec/spawn.js";
import { prepareSandboxedCommand } from "../../src/policy/sandbox/index.js";
import { waitFor, withMarker } from "../support/processes.js";
import { sandboxBackends } from "../support/sandbox-probe.js";
import { missing } from "../support/skips.js";
import { tmpdir } from "../support/tmpdir.js";

const backends = await sandboxBackends();
const ROUNDS = 20;
const env = { PATH: process.env.PATH ?? "/usr/bin:/bin" };

/** The sandboxed argv of a command that carries `marker` in its command line. */
async function sandboxed(backend: "bwrap" | "landlock", marker: string, cwd: string): Promise<string[]> {
  const policy = { mode: "workspace-write" as const, writableRoots: [cwd], networkAccess: false };
  const prepared = await prepareSandboxedCommand(
    ["/bin/bash", "-c", `exec -a ${marker} sleep 30`],
    cwd,
    policy,
    { backend },
  );
  return prepared.argv;
}

/** Rounds of `end` (which starts a command carrying the marker and ends it); what was left. */
async function rounds(end: (marker: string, round: number) => Promise<void>): Promise<string[]> {
  const survivors: string[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const marker = `killstart${process.pid}x${round}x${Math.random().toString().slice(2, 8)}`;
    await end(marker, round);
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
  return survivors;
}

/** Resolves after 0–9 ms, by round: the instant varies, not the outcome. */
function instant(round: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, round % 10));
}

describe.each(backends)("ending a command as it starts, under $name", ({ name, status }) => {
  const skip = missing(status, `kill-while-starting under ${name}`);

  it.skipIf(skip)(
    "an aborted one-shot command leaves no process running, whatever the instant",
    async () => {
      const work = await tmpdir("tscodex-kill-start-");
      try {
        const survivors = await rounds(async (marker, round) => {
          const argv = await sandboxed(name, marker, work.path);
          const abort = new AbortController();
          const run = runCommand({ argv, cwd: work.path, env, timeoutMs: 60_000, signal: abort.signal });
          void instant(round).then(() => abort.abort());
          expect((await run).aborted).toBe(true);
        });
        expect(survivors).toEqual([]);
      } finally {
        await work.cleanup();
      }
    },
    120_000,
  );

  it.skipIf(skip)(
    "an interrupted exec session leaves no process running, whatever the instant",
    async () => {
      const work = await tmpdir("tscodex-kill-start-");
      const sessions = new ExecSessionManager({ killGraceMs: 500 });
      try {
        const survivors = await rounds(async (marker, round) => {
          const argv = await sandboxed(name, marker, work.path);
          const { session } = await sessions.start({ argv, cwd: work.path, env, tty: false });
          await instant(round);
          await sessions.end(session, "interrupt");
        });
        expect(survivors).toEqual([]);
      } finally {
        await sessions.dispose();
        await work.cleanup();
      }
    },
    120_000,
  );
});
