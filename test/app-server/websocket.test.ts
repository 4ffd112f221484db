/**
 * The WebSocket transport (`--listen ws://127.0.0.1:0`): the same protocol as stdio, one session
 * per connection sharing the threads; the upgrade refused for a foreign Host or Origin (403,
 * `Origin: null` too), a body not declared JSON (415) and
 * without the bearer key when one is set (401); a connection that drops mid-turn interrupts it.
 */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { prepareSandboxedCommand } from "../../src/policy/sandbox/index.js";
import { useAppServerHarness } from "../support/app-server-harness.js";
import { referenceSchemaFailures } from "../support/app-server-schemas.js";
import { customToolCall, functionCall, message, turn } from "../support/fake-model-server.js";
import { gone, readPid } from "../support/processes.js";
import { runProbe } from "../support/sandbox-probe.js";
import { noSandbox } from "../support/skips.js";
import { flow, runTurn, startThread } from "./flow.js";

const h = useAppServerHarness();

/** `node -e` running `request` (a fetch), printing the response status; argv to run. */
function nodeArgv(request: string): string[] {
  return [
    process.execPath,
    "-e",
    `${request}.then((r) => console.log(r.status), (e) => console.log(String(e)))`,
  ];
}

const output = (argv: string[]) => runProbe(argv, h.work);

function runNode(request: string): Promise<string> {
  return output(nodeArgv(request));
}

/** The same, inside a read-only sandbox with network access (so it reaches 127.0.0.1). */
async function sandboxed(request: string): Promise<string> {
  const policy = { mode: "workspace-write" as const, writableRoots: [], networkAccess: true };
  return output((await prepareSandboxedCommand(nodeArgv(request), h.work, policy)).argv);
}
const unsandboxed = await noSandbox("the WebSocket full turn (its command runs in workspace-write)");

describe("app-server over WebSocket", () => {
  it.skipIf(unsandboxed)(
    "runs a full turn with a command, a patch, a plan and a message, and an approval",
    async () => {
      const server = await h.wsServer();
      const client = await server.connect();
      h.defer(client);
      await client.initialize();
      client.onRequest = () => ({ result: { decision: "accept" } });
      const threadId = await startThread(client, {
        cwd: h.work,
        approvalPolicy: "untrusted",
        sandbox: "workspace-write",
      });
      h.model.enqueue(
        turn(functionCall("shell_command", { command: "touch ws.txt && echo ok" }, "call_1")),
        turn(
          customToolCall(
            "apply_patch",
            "*** Begin Patch\n*** Add File: ws-patch.txt\n+hi\n*** End Patch\n",
            "call_2",
          ),
        ),
        turn(functionCall("update_plan", { plan: [{ step: "done", status: "completed" }] }, "call_3")),
        turn(message("over websocket")),
      );
      const { turnId, completed } = await runTurn(client, threadId, "do it");
      expect(completed.params.turn.status).toBe("completed");
      expect(flow(client, turnId)).toEqual([
        "turn/started",
        "item/started userMessage",
        "item/completed userMessage",
        "item/started commandExecution inProgress",
        "item/commandExecution/outputDelta",
        "item/completed commandExecution completed",
        "item/fileChange/patchUpdated",
        "item/started fileChange inProgress",
        "item/fileChange/outputDelta",
        "item/completed fileChange completed",
        "turn/diff/updated",
        "turn/plan/updated",
        "item/started agentMessage",
        "item/agentMessage/delta",
        "item/agentMessage/delta",
        "item/agentMessage/delta",
        "item/completed agentMessage",
        "turn/completed completed",
      ]);
      expect(
        client.received.filter((m) => m.method === "item/commandExecution/requestApproval"),
      ).toHaveLength(1);
      expect(referenceSchemaFailures(client)).toEqual([]);
    },
  );

  it("serves several connections, each with its own handshake, sharing the threads", async () => {
    const server = await h.wsServer();
    const first = await server.connect();
    const second = await server.connect();
    h.defer(first);
    h.defer(second);
    await first.initialize();
    expect((await second.request("thread/loaded/list", {})).error?.message).toBe("Not initialized");
    await second.initialize();
    const threadId = await startThread(first, { cwd: h.work });
    expect((await second.call("thread/loaded/list", {})).data).toEqual([threadId]);
    // The second client follows the thread by resuming it, then sees the first client's turn.
    await second.call("thread/resume", { threadId });
    h.model.enqueue(turn(message("for both")));
    const { turnId } = await runTurn(first, threadId, "hello");
    const seen = await second.waitFor((m) => m.method === "turn/completed" && m.params.turn.id === turnId);
    expect(seen.params.turn.status).toBe("completed");
  });

  it("refuses a foreign Host or Origin (403) and a missing or wrong bearer key (401)", async () => {
    const open = await h.wsServer();
    await expect(open.connect({ Origin: "http://evil.example" })).rejects.toThrow("403");
    await expect(open.connect({ Host: "evil.example" })).rejects.toThrow("403");
    await expect(open.connect({ Origin: "null" })).rejects.toThrow("403");
    const allowed = await open.connect({ Origin: "http://localhost:3000" });
    h.defer(allowed);
    // A body that is not JSON is refused before anything else looks at the request.
    const plain = await fetch(open.url.replace(/^ws:/, "http:"), {
      method: "POST",
      headers: { "content-type": "text/plain" },
      body: '{"method":"initialize"}',
    });
    expect(plain.status).toBe(415);

    const unset = await h.wsServer(["--api-key-env", "APP_KEY"]).catch((error: Error) => error);
    // The variable must be set: the server refuses to start without it.
    expect(String(unset)).toContain("APP_KEY is not set");

    const keyed = await h.wsServer(["--api-key-env", "APP_KEY"], { APP_KEY: "s3cret" });
    await expect(keyed.connect()).rejects.toThrow("401");
    await expect(keyed.connect({ Authorization: "Bearer wrong" })).rejects.toThrow("401");
    const authorized = await keyed.connect({ Authorization: "Bearer s3cret" });
    h.defer(authorized);
    expect((await authorized.initialize()).result.userAgent).toContain("tscodex-test");
  });

  it("refuses to listen beyond loopback without a key", async () => {
    const refused = await h.wsServer(["--listen", "ws://0.0.0.0:0"]).catch((error: Error) => error);
    expect(String(refused)).toMatch(/refusing to listen on 0\.0\.0\.0 without a key/);
    const keyed = await h.wsServer(["--listen", "ws://0.0.0.0:0", "--api-key-env", "APP_KEY"], {
      APP_KEY: "k",
    });
    expect(keyed.url).toMatch(/^ws:\/\/0\.0\.0\.0:\d+$/);
  });

  it.skipIf(unsandboxed)(
    "a key-less server refuses a command inside the sandbox (network on); with the key it is served",
    async () => {
      const open = await h.wsServer();
      const probe = (url: string, headers: Record<string, string> = {}) =>
        sandboxed(
          `fetch(${JSON.stringify(url.replace(/^ws:/, "http:"))}, { headers: ${JSON.stringify(headers)} })`,
        );
      // 426: past every check, a plain HTTP request is told to upgrade; 403: refused.
      expect(await runNode(`fetch(${JSON.stringify(open.url.replace(/^ws:/, "http:"))})`)).toBe("426");
      expect(await probe(open.url)).toBe("403");
      const keyed = await h.wsServer(["--api-key-env", "APP_KEY"], { APP_KEY: "k-1" });
      expect(await probe(keyed.url, { Authorization: "Bearer k-1" })).toBe("426");
    },
  );

  it("a connection that drops mid-turn interrupts it and stops its command", async () => {
    const server = await h.wsServer();
    const client = await server.connect();
    await client.initialize();
    const threadId = await startThread(client, {
      cwd: h.work,
      approvalPolicy: "never",
      sandbox: "danger-full-access",
    });
    const pidFile = join(h.work, "ws.pid");
    h.model.enqueue(
      turn(functionCall("shell_command", { command: `echo $$ > ${pidFile}; exec sleep 30` }, "call_1")),
    );
    await client.call("turn/start", { threadId, input: [{ type: "text", text: "sleep" }] });
    const pid = await readPid(pidFile);
    await client.close();
    expect(await gone(pid)).toBe(true);
    const other = await server.connect();
    h.defer(other);
    await other.initialize();
    const { thread } = await other.call("thread/read", { threadId, includeTurns: true });
    expect(thread.turns.map((t: { status: string }) => t.status)).toEqual(["interrupted"]);
  });
});
