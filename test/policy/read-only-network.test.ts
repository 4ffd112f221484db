/**
 * Read-only has no network (issue 37, cause 1), through the real CLI and the real app-server,
 * on both sandbox backends: `exec -s read-only` with `sandbox_workspace_write.network_access =
 * true` in config, and an app-server turn with `sandboxPolicy {type: readOnly}` after a
 * `workspaceWrite` + network turn, both fail to connect to a listener on 127.0.0.1; a turn that
 * then names workspaceWrite without network gets none either (a turn's sandbox replaces the
 * thread's whole). Each workspace-write + network case connects, so the listener is reachable.
 */
import { createServer, type Server } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runTurn, startThread } from "../app-server/flow.js";
import { useAppServerHarness } from "../support/app-server-harness.js";
import { runCli } from "../support/cli.js";
import { functionCall, message, turn } from "../support/fake-model-server.js";
import { sandboxBackends } from "../support/sandbox-probe.js";
import { missing, requireProgram } from "../support/skips.js";

const h = useAppServerHarness();
const backends = await sandboxBackends();

/** A loopback listener that counts the connections it accepts. */
let listener: Server;
let port = 0;
let accepted = 0;

beforeAll(async () => {
  listener = createServer((socket) => {
    accepted += 1;
    socket.on("error", () => {}); // the command may close first
    socket.end("hello\n");
  });
  await new Promise<void>((resolve) => listener.listen(0, "127.0.0.1", resolve));
  port = (listener.address() as { port: number }).port;
});
afterAll(async () => {
  await new Promise((resolve) => listener.close(resolve));
});

/** Resolves once the listener has accepted more than `count` connections. */
async function acceptedMoreThan(count: number): Promise<void> {
  while (accepted <= count) await new Promise((resolve) => listener.once("connection", resolve));
}

/** A command that connects to the listener and says whether it did. */
const connect = () =>
  `python3 -c "import socket; socket.create_connection(('127.0.0.1', ${port}), 5); print('CONNECTED')" 2>&1 || echo REFUSED`;

/** `tscodex exec` in the harness's home and work dir. */
const exec = (args: string[]) =>
  runCli(["exec", "--skip-git-repo-check", ...args], {
    cwd: h.work,
    home: h.home,
    env: { FAKE_KEY: "sk-test" },
  });

/** Runs `connect()` as the model's command of the next turn. */
function enqueueConnect(callId: string): void {
  h.model.enqueue(turn(functionCall("shell_command", { command: connect() }, callId)), turn(message("ok")));
}

describe.each(backends)("read-only has no network under $name", ({ name, status }) => {
  const skip = missing(status, `the read-only network checks under ${name}`);

  it.skipIf(skip)("exec -s read-only ignores sandbox_workspace_write.network_access = true", async () => {
    requireProgram("python3");
    const config = ["-c", `sandbox_backend="${name}"`, "-c", "sandbox_workspace_write.network_access=true"];
    enqueueConnect("ro");
    const before = accepted;
    const ro = await exec(["-s", "read-only", ...config, "connect"]);
    expect(ro.code, ro.stderr).toBe(0);
    expect(accepted - before).toBe(0);
    expect(JSON.stringify(h.model.requests.at(-1)?.input)).toContain("REFUSED");

    enqueueConnect("ww");
    const ww = await exec(["-s", "workspace-write", ...config, "connect"]);
    expect(ww.code, ww.stderr).toBe(0);
    expect(accepted - before).toBe(1);
  });

  it.skipIf(skip)(
    "an app-server readOnly turn after a workspaceWrite + network turn has none, nor does a later workspaceWrite without it",
    async () => {
      requireProgram("python3");
      const client = await h.stdio({ args: ["-c", `sandbox_backend="${name}"`] });
      const threadId = await startThread(client, {
        cwd: h.work,
        approvalPolicy: "never",
        sandbox: "workspace-write",
      });
      const connects = async (extra: Record<string, unknown>): Promise<boolean> => {
        const before = accepted;
        enqueueConnect("c");
        const { completed } = await runTurn(client, threadId, "connect", extra);
        expect(completed.params.turn.status).toBe("completed");
        // What the command itself saw: the listener's accept may be handled after the turn ends.
        const input = (h.model.requests.at(-1)?.input ?? []) as { type?: string; output?: unknown }[];
        const output = input.filter((item) => item.type === "function_call_output").at(-1)?.output;
        const connected = /^CONNECTED$/m.test(String(output));
        // Settle the count before the next turn: the accept of a connection the command made.
        if (connected) await acceptedMoreThan(before);
        else expect(accepted).toBe(before);
        return connected;
      };
      expect(await connects({ sandboxPolicy: { type: "workspaceWrite", networkAccess: true } })).toBe(true);
      expect(await connects({ sandboxPolicy: { type: "readOnly" } })).toBe(false);
      // The thread's policy as a client reads it: no network left over from the first turn.
      const read = await client.call("thread/resume", { threadId });
      expect(read.sandbox).toEqual({ type: "readOnly" });
      expect(await connects({ sandboxPolicy: { type: "workspaceWrite" } })).toBe(false);
      expect(await connects({})).toBe(false);
    },
  );
});
