/**
 * Permission profiles on the app-server (issue 39; reference permissions-network.md §8):
 * permissionProfile/list (built-ins first, named by name, paged), `permissions` on thread/start
 * and turn/start (activePermissionProfile; never with `sandbox`; Codex's -32600 errors), a
 * turn's commands behind the managed proxy (the block is on the item and in the model's input),
 * and a blocked host as Codex's network approval question (networkApprovalContext) that, once
 * accepted, lets the request through.
 */
import { writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AppClient, StdioAppClient, type WireMessage } from "../support/app-server-client.js";
import { useAppServerHarness } from "../support/app-server-harness.js";
import { functionCall, message, turn } from "../support/fake-model-server.js";
import { noSandbox, requireProgram } from "../support/skips.js";
import { completedItems, runTurn, startThread } from "./flow.js";

const PROFILES = `
[permissions.web]
description = "the workspace and one test host"
extends = ":workspace"
[permissions.web.network]
enabled = true
allow_local_binding = true
[permissions.web.network.domains]
"allowed.bar.test" = "allow"

[permissions.child]
extends = "web"
`;

const h = useAppServerHarness({ extraConfig: PROFILES });
const unsandboxed = await noSandbox("commands behind the managed proxy");

let target: Server;
let port = 0;
const seen: string[] = [];
beforeAll(async () => {
  target = createServer((request, response) => {
    seen.push(String(request.headers.host));
    response.end(`hello from ${request.headers.host}\n`);
  });
  await new Promise<void>((resolve) => target.listen(0, "127.0.0.1", resolve));
  port = (target.address() as { port: number }).port;
});
afterAll(async () => {
  await new Promise((resolve) => target.close(resolve));
});

/** An app-server whose proxy resolves the test's host names to the target. */
async function server(): Promise<AppClient> {
  const hosts = join(h.home, "hosts");
  await writeFile(hosts, "127.0.0.1 allowed.bar.test\n127.0.0.1 other.bar.test\n");
  const client = new StdioAppClient({ home: h.home, cwd: h.work, env: { TSCODEX_PROXY_HOSTS_FILE: hosts } });
  h.defer(client);
  const reply = await client.initialize();
  if (reply.error) throw new Error(`initialize failed: ${reply.error.message}`);
  return client;
}

const curl = (host: string) =>
  `curl -s -m 10 -w ' %{http_code}' http://${host}:${port}/; echo " [$(env | grep -c _PROXY=)]"`;

describe("app-server: permission profiles", () => {
  it("permissionProfile/list: built-ins first, then named ones by name; paged", async () => {
    const client = await server();
    const all = await client.call("permissionProfile/list", {});
    expect(all).toEqual({
      data: [
        { id: ":read-only", description: null, allowed: true },
        { id: ":workspace", description: null, allowed: true },
        { id: ":danger-full-access", description: null, allowed: true },
        { id: "child", description: null, allowed: true },
        { id: "web", description: "the workspace and one test host", allowed: true },
      ],
      nextCursor: null,
    });
    const first = await client.call("permissionProfile/list", { limit: 2 });
    expect(first.nextCursor).toBe("2");
    const rest = await client.call("permissionProfile/list", { cursor: "2" });
    expect([...first.data, ...rest.data]).toEqual(all.data);
  });

  it("thread/start takes a profile and says which runs; never with sandbox; unknown ones refused", async () => {
    const client = await server();
    const started = await client.call("thread/start", { cwd: h.work, permissions: "child" });
    expect(started.activePermissionProfile).toEqual({ id: "child", extends: "web" });
    expect(started.sandbox).toMatchObject({ type: "workspaceWrite", networkAccess: true });

    const both = await client.request("thread/start", {
      cwd: h.work,
      permissions: "web",
      sandbox: "read-only",
    });
    expect(both.error).toMatchObject({
      code: -32600,
      message: "`permissions` cannot be combined with `sandbox`",
    });
    const unknown = await client.request("thread/start", { cwd: h.work, permissions: "nosuch" });
    expect(unknown.error).toMatchObject({
      code: -32600,
      message: "failed to load configuration: default_permissions refers to undefined profile `nosuch`",
    });
    const plain = await client.call("thread/start", { cwd: h.work, sandbox: "read-only" });
    expect(plain.activePermissionProfile).toBeNull();
  });

  it("a thread resumed by another server process keeps its profile", async () => {
    const first = await server();
    const started = await first.call("thread/start", { cwd: h.work, permissions: "web" });
    h.model.enqueue(turn(message("hi")));
    await runTurn(first, started.thread.id, "hello");
    await first.close();
    const second = await server();
    const resumed = await second.call("thread/resume", { threadId: started.thread.id });
    expect(resumed.activePermissionProfile).toEqual({ id: "web", extends: ":workspace" });
  });

  it.skipIf(unsandboxed)(
    "a turn under a profile: the allowed host is reached, another is blocked, and the item and the model say which",
    async () => {
      requireProgram("curl");
      const client = await server();
      const threadId = await startThread(client, {
        cwd: h.work,
        sandbox: "read-only",
        approvalPolicy: "never",
      });
      h.model.enqueue(
        turn(
          functionCall(
            "shell_command",
            { command: `${curl("allowed.bar.test")}; ${curl("other.bar.test")}` },
            "c1",
          ),
        ),
        turn(message("done")),
      );
      seen.length = 0;
      const { turnId, completed } = await runTurn(client, threadId, "fetch", { permissions: "web" });
      expect(completed.params.turn.status).toBe("completed");
      const [item] = completedItems(client, turnId, "commandExecution");
      const output = String(item?.aggregatedOutput);
      expect(output).toContain(`hello from allowed.bar.test:${port}`);
      expect(output).toMatch(/"reason":"not_allowed".* 403 \[\d+\]/);
      expect(output).toContain(
        'Network access to "other.bar.test" was blocked: domain is not on the allowlist for the current sandbox mode.',
      );
      expect(JSON.stringify(h.model.requests.at(-1)?.input)).toContain(
        'Network access to \\"other.bar.test\\"',
      );
      expect(seen).toEqual([`allowed.bar.test:${port}`]);
    },
  );

  it.skipIf(unsandboxed)(
    "on-request: a blocked host becomes Codex's network approval; accepted, the request goes through",
    async () => {
      requireProgram("curl");
      const client = await server();
      const asked: WireMessage[] = [];
      client.onRequest = (request) => {
        asked.push(request);
        return { result: { decision: "accept" } };
      };
      const threadId = await startThread(client, {
        cwd: h.work,
        permissions: "web",
        approvalPolicy: "on-request",
      });
      h.model.enqueue(
        turn(functionCall("shell_command", { command: curl("other.bar.test") }, "c2")),
        turn(message("ok")),
      );
      seen.length = 0;
      const { turnId } = await runTurn(client, threadId, "fetch other");
      expect(asked).toHaveLength(1);
      expect(asked[0]).toMatchObject({
        method: "item/commandExecution/requestApproval",
        params: {
          threadId,
          turnId,
          itemId: "c2",
          networkApprovalContext: { host: "other.bar.test", protocol: "http" },
          proposedNetworkPolicyAmendments: [{ host: "other.bar.test", action: "allow" }],
        },
      });
      const [item] = completedItems(client, turnId, "commandExecution");
      expect(String(item?.aggregatedOutput)).toContain(`hello from other.bar.test:${port}\n 200`);
      expect(seen).toEqual([`other.bar.test:${port}`]);
    },
  );
});
