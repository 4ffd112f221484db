/**
 * On SIGTERM, `mcp-server --http` and `app-server --listen ws://` end the work in flight with a
 * reply before they exit: the running turn is interrupted (its command killed), the open
 * `codex` tools/call gets its result, the WebSocket client gets `turn/completed` (interrupted)
 * and then a 1001 close; `stopped` is logged and the exit code is 0.
 */
import type { ChildProcess } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { WsAppServer } from "../support/app-server-client.js";
import { useExecHarness } from "../support/exec-harness.js";
import { functionCall, turn } from "../support/fake-model-server.js";
import { callTool, connectHttp, startHttpServer } from "../support/mcp-client.js";
import { gone, readPid } from "../support/processes.js";

const h = useExecHarness();

/** A command that records its pid, then sleeps (`exec`: the pid is the sleep's). */
function sleeper(pidFile: string) {
  return functionCall("shell_command", { command: `echo $$ > ${pidFile}; exec sleep 60` }, "call_1");
}

/** Resolves with the exit code once `child` has exited. */
function exitCode(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => child.once("exit", (code) => resolve(code)));
}

describe("shutdown with work in flight", () => {
  it("mcp-server --http: the running codex call gets its result, then the server stops (exit 0)", async () => {
    const server = await startHttpServer({ home: h.home, cwd: h.work });
    try {
      const pidFile = join(h.work, "sleep.pid");
      h.server.enqueue(turn(sleeper(pidFile)));
      const { client } = await connectHttp(server.url);
      const call = callTool(client, "codex", {
        prompt: "sleep",
        cwd: h.work,
        sandbox: "danger-full-access",
        "approval-policy": "never",
      });
      const pid = await readPid(pidFile);
      const exited = exitCode(server.child);
      server.child.kill("SIGTERM");
      const { result, text, threadId } = await call;
      expect(threadId).not.toBe("");
      expect(text).toBe("Turn interrupted before it finished.");
      expect(result.isError).toBe(true);
      expect(await gone(pid)).toBe(true);
      expect(await exited).toBe(0);
      expect(server.stderr()).toMatch(/shutting down\n(.*\n)*.*stopped\n/);
      await client.close().catch(() => {});
    } finally {
      await server.stop();
    }
  });

  it("app-server --listen ws://: the client gets turn/completed (interrupted), then close 1001, exit 0", async () => {
    const server = await WsAppServer.start({ home: h.home, cwd: h.work });
    try {
      const client = await server.connect();
      await client.initialize();
      const thread = await client.call("thread/start", {
        cwd: h.work,
        approvalPolicy: "never",
        sandbox: "danger-full-access",
      });
      const pidFile = join(h.work, "sleep.pid");
      h.server.enqueue(turn(sleeper(pidFile)));
      const { turn: started } = await client.call("turn/start", {
        threadId: thread.thread.id,
        input: [{ type: "text", text: "sleep" }],
      });
      const pid = await readPid(pidFile);
      const exited = exitCode(server.child);
      server.child.kill("SIGTERM");
      const completed = await client.turnCompleted(started.id);
      expect(completed.params?.turn).toMatchObject({ id: started.id, status: "interrupted" });
      expect(await client.closed).toEqual({ code: 1001, reason: "going away" });
      expect(await gone(pid)).toBe(true);
      expect(await exited).toBe(0);
      expect(server.stderr).toMatch(/shutting down\n(.*\n)*.*stopped\n/);
    } finally {
      await server.stop();
    }
  });
});
