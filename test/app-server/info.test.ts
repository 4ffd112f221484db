/**
 * model/list, mcpServerStatus/list (with the MCP fixture server configured), command/exec under
 * the sandbox, and `app-server generate-json-schema`, whose files describe the messages a real
 * session exchanges.
 */
import { readdirSync, readFileSync } from "node:fs";
import { access, appendFile } from "node:fs/promises";
import { join, relative } from "node:path";
import { Ajv } from "ajv";
import { describe, expect, it } from "vitest";
import { useAppServerHarness } from "../support/app-server-harness.js";
import { referenceSchemaFailures } from "../support/app-server-schemas.js";
import { runCli } from "../support/cli.js";
import { message, turn } from "../support/fake-model-server.js";
import { fixtureToml } from "../support/mcp-fixture.js";
import { noSandbox } from "../support/skips.js";
import { tmpdir } from "../support/tmpdir.js";
import { runTurn, startThread } from "./flow.js";

const h = useAppServerHarness();
const unsandboxed = await noSandbox("command/exec under read-only and workspace-write");

const exists = (path: string) =>
  access(path).then(
    () => true,
    () => false,
  );

describe("app-server: models and MCP servers", () => {
  it("lists the configured model first as the default, then the known ones, in pages", async () => {
    const client = await h.stdio();
    const all = await client.call("model/list", {});
    expect(all.data[0]).toMatchObject({ id: "gpt-5.2-codex", model: "gpt-5.2-codex", isDefault: true });
    expect(all.data.filter((model: { isDefault: boolean }) => model.isDefault)).toHaveLength(1);
    const mini = all.data.find((model: { id: string }) => model.id === "gpt-5.1-codex-mini");
    expect(mini.supportedReasoningEfforts.map((e: { reasoningEffort: string }) => e.reasoningEffort)).toEqual(
      ["medium", "high"],
    );
    expect(mini.defaultReasoningEffort).toBe("medium");
    const page = await client.call("model/list", { limit: 2 });
    expect(page.data).toHaveLength(2);
    const rest = await client.call("model/list", { cursor: page.nextCursor });
    expect([...page.data, ...rest.data].map((m: { id: string }) => m.id)).toEqual(
      all.data.map((m: { id: string }) => m.id),
    );
    expect(rest.nextCursor).toBeNull();
    expect(referenceSchemaFailures(client)).toEqual([]);
  });

  it("reports what each configured MCP server offers", async () => {
    await appendFile(join(h.home, "config.toml"), `\n${await fixtureToml({ name: "fixture" })}`);
    const client = await h.stdio();
    const { data } = await client.call("mcpServerStatus/list", {});
    expect(data).toHaveLength(1);
    expect(data[0]).toMatchObject({
      name: "fixture",
      authStatus: "unsupported",
      resources: [{ uri: "fixture://readme", name: "readme" }],
      resourceTemplates: [{ uriTemplate: "fixture://notes/{id}", name: "note" }],
    });
    expect(data[0].tools.echo).toMatchObject({ name: "echo", inputSchema: { type: "object" } });
    expect(referenceSchemaFailures(client)).toEqual([]);
  });
});

describe("app-server: command/exec", () => {
  it("runs a command and returns its exit code and output", async () => {
    const client = await h.stdio();
    const result = await client.call("command/exec", {
      command: ["echo", "one-off"],
      cwd: h.work,
      sandboxPolicy: { type: "dangerFullAccess" },
    });
    expect(result).toEqual({ exitCode: 0, stdout: "one-off\n", stderr: "" });
    expect(referenceSchemaFailures(client)).toEqual([]);
  });

  it.skipIf(unsandboxed)(
    "applies the sandbox policy: read-only cannot write, workspace-write can",
    async () => {
      const client = await h.stdio();
      const denied = await client.call("command/exec", {
        command: ["touch", "ro.txt"],
        cwd: h.work,
        sandboxPolicy: { type: "readOnly" },
      });
      expect(denied.exitCode).not.toBe(0);
      expect(await exists(join(h.work, "ro.txt"))).toBe(false);
      const allowed = await client.call("command/exec", {
        command: ["touch", "rw.txt"],
        cwd: h.work,
        sandboxPolicy: { type: "workspaceWrite" },
      });
      expect(allowed.exitCode).toBe(0);
      expect(await exists(join(h.work, "rw.txt"))).toBe(true);
    },
  );

  it("bounds the command by timeoutMs and reports a program that cannot start", async () => {
    const client = await h.stdio();
    const started = Date.now();
    const slow = await client.call("command/exec", {
      command: ["sleep", "20"],
      cwd: h.work,
      timeoutMs: 300,
      sandboxPolicy: { type: "dangerFullAccess" },
    });
    expect(slow.exitCode).toBe(124);
    expect(Date.now() - started).toBeLessThan(5_000);
    const missing = await client.request("command/exec", {
      command: ["no-such-program-here"],
      cwd: h.work,
      sandboxPolicy: { type: "dangerFullAccess" },
    });
    expect(missing.error?.code).toBe(-32603);
    expect(missing.error?.message).toMatch(/^exec failed: /);
  });
});

describe("app-server generate-json-schema", () => {
  it("writes schemas, in Codex's layout, that the messages of a real session satisfy", async () => {
    const out = await tmpdir("tscodex-app-schema-");
    h.defer({ close: () => out.cleanup() });
    const run = await runCli(["app-server", "generate-json-schema", "--out", out.path], {
      cwd: h.work,
      home: h.home,
    });
    expect(run.code).toBe(0);
    const files = listFiles(out.path);
    expect(files).toEqual(
      expect.arrayContaining([
        "ClientRequest.json",
        "ServerNotification.json",
        "ServerRequest.json",
        "CommandExecutionRequestApprovalParams.json",
        "DynamicToolCallParams.json",
        "DynamicToolCallResponse.json",
        "v1/InitializeParams.json",
        "v2/ThreadStartParams.json",
        "v2/ThreadStartResponse.json",
        "v2/TurnStartParams.json",
        "v2/ItemStartedNotification.json",
      ]),
    );
    // Same names as Codex's for what both have.
    const reference = listFiles(join(__dirname, "../fixtures/reference/app-server/schema-089"));
    for (const name of reference.filter((file) => file.startsWith("v2/"))) expect(files).toContain(name);

    const ajv = new Ajv({ strict: false, validateFormats: false });
    const load = (name: string) => ajv.compile(JSON.parse(readFileSync(join(out.path, name), "utf8")));
    const notification = load("ServerNotification.json");
    const request = load("ClientRequest.json");
    const serverRequest = load("ServerRequest.json");

    const client = await h.stdio();
    client.onRequest = () => ({
      result: { contentItems: [{ type: "inputText", text: "ok" }], success: true },
    });
    const threadId = await startThread(client, {
      cwd: h.work,
      dynamicTools: [
        { type: "function", name: "ping_app", description: "Ping.", inputSchema: { type: "object" } },
      ],
    });
    h.model.enqueue(turn(message("done")));
    await runTurn(client, threadId, "go", { dynamicTools: [] });
    for (const sent of client.sent.filter((m) => m.id !== undefined && m.method !== undefined))
      expect(request(sent), JSON.stringify(request.errors)).toBe(true);
    for (const received of client.received) {
      if (received.method === undefined) continue;
      const check = received.id === undefined ? notification : serverRequest;
      expect(check(received), `${received.method}: ${JSON.stringify(check.errors)}`).toBe(true);
    }
  });
});

function listFiles(root: string): string[] {
  return readdirSync(root, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(root, join(entry.parentPath, entry.name)))
    .sort();
}
