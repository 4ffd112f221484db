/**
 * SIGTERM of `mcp-server --http` while its commands are starting leaves none of them running
 * (issue 37 cause 14), under each sandbox backend. The signal lands at a different instant in
 * each round: in even rounds once the model was asked for the round's last command (the
 * commands are being prepared, or not decided yet), in odd rounds once the first process of a
 * command shows in /proc (bwrap or the Landlock helper is setting up); each plus a
 * round-dependent offset of 0–6 ms (some calls may still be opening their thread then). Every round: each open `codex` call is answered, the
 * server exits 0, and no process whose command line holds the round's marker (bwrap and its
 * init, the helper, the shell, the `sleep`) outlives it.
 */
import type { ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { functionCall, turn } from "../support/fake-model-server.js";
import { callTool, connectHttp, startHttpServer } from "../support/mcp-client.js";
import { useMcpHarness } from "../support/mcp-harness.js";
import { waitFor, withMarker } from "../support/processes.js";
import { sandboxBackends } from "../support/sandbox-probe.js";
import { missing } from "../support/skips.js";

const mcp = useMcpHarness();
const backends = await sandboxBackends();

const ROUNDS = 16;
/** Concurrent `codex` calls per round, each running one command. */
const CALLS = 3;

/** Resolves with the exit code once `child` has exited. */
function exitCode(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => child.once("exit", (code) => resolve(code)));
}

/** `send` at once, after a turn of the event loop, or 1–6 ms later, by round. */
function after(round: number, send: () => void): void {
  const step = Math.floor(round / 2);
  if (step === 0) send();
  else if (step === 1) setImmediate(send);
  else setTimeout(send, step - 1);
}

/**
 * Whether `server` has a child process (bwrap, the Landlock helper) of one of the round's
 * commands: read from the children list /proc keeps for its main thread, a cheap check that
 * sees a command within about a millisecond of its spawn.
 */
function startedCommand(server: number, marker: string): boolean {
  let children: string[];
  try {
    children = readFileSync(`/proc/${server}/task/${server}/children`, "utf8").split(" ");
  } catch {
    return false;
  }
  return children.some((pid) => {
    try {
      return pid !== "" && readFileSync(`/proc/${pid}/cmdline`, "utf8").includes(marker);
    } catch {
      return false;
    }
  });
}

/** Resolves once `startedCommand` holds, polling every millisecond (throws after 15 s). */
async function commandStarted(server: number, marker: string): Promise<void> {
  const end = performance.now() + 15_000;
  while (!startedCommand(server, marker)) {
    if (performance.now() > end) throw new Error("no command started");
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
}

/** One round under `backend`; what went wrong, if anything. */
async function round(backend: string, index: number): Promise<string[]> {
  const marker = `drainrace${process.pid}x${index}x${Math.random().toString().slice(2, 8)}`;
  mcp.model.reset();
  const server = await startHttpServer(mcp.serverEnv(), ["-c", `sandbox_backend="${backend}"`]);
  const problems: string[] = [];
  let signalled = false;
  const terminate = (): void => {
    if (signalled) return;
    signalled = true;
    after(index, () => server.child.kill("SIGTERM"));
  };
  try {
    const exited = exitCode(server.child);
    let asked = 0;
    for (let call = 0; call < CALLS; call++) {
      mcp.model.enqueue(() => {
        asked += 1;
        if (asked === CALLS && index % 2 === 0) terminate();
        const command = `exec -a ${marker}c${call} sleep 30`;
        return turn(functionCall("shell_command", { command }, `call_${call}`));
      });
    }
    const { client } = await connectHttp(server.url);
    const calls = Array.from({ length: CALLS }, () =>
      callTool(client, "codex", {
        prompt: "sleep",
        cwd: mcp.work,
        sandbox: "workspace-write",
        "approval-policy": "never",
      }),
    );
    if (index % 2 === 1) {
      await commandStarted(server.child.pid ?? 0, marker);
      terminate();
    }
    const answers = await Promise.allSettled(calls);
    const code = await exited;
    if (code !== 0) problems.push(`exit code ${code}`);
    for (const answer of answers)
      if (answer.status === "rejected") problems.push(`a call got no answer: ${String(answer.reason)}`);
    // What was killed as the server went may take a moment to be reaped; a survivor stays.
    await waitFor(async () => (await withMarker(marker)).length === 0, 2000).catch(() => {});
    const left = await withMarker(marker);
    if (left.length > 0) problems.push(`${left.length} process(es) outlived the server`);
    for (const pid of left) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // Gone meanwhile.
      }
    }
    await client.close().catch(() => {});
  } finally {
    await server.stop();
  }
  return problems.map((problem) => `round ${index}: ${problem}`);
}

describe.each(backends)("SIGTERM while commands start, under $name", ({ name, status }) => {
  it.skipIf(missing(status, `the drain race under ${name}`))(
    "no command outlives the server, and every call is answered",
    async () => {
      const problems: string[] = [];
      for (let index = 0; index < ROUNDS; index++) problems.push(...(await round(name, index)));
      expect(problems).toEqual([]);
    },
    240_000,
  );
});
