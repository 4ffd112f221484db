/**
 * MCP servers as tool sources, end to end: the built CLI (`tscodex exec`) against the fake model
 * server, with the real stdio fixture (test/support/mcp-fixture-server.ts) and its Streamable
 * HTTP variant. Expected outputs are Codex 0.89's (reference tool-outputs/outputs.json, runs
 * mcp-tools and misc-tools), except the deliberate differences of DESIGN.md: an `isError`
 * result carries a marker, a JSON-RPC error is one clean line.
 */
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../support/cli.js";
import { useExecHarness } from "../support/exec-harness.js";
import { functionCall, message, turn } from "../support/fake-model-server.js";
import { fixtureScript, fixtureToml } from "../support/mcp-fixture.js";
import { startHttpFixture, TINY_PNG } from "../support/mcp-fixture-server.js";
import { gone } from "../support/processes.js";
import { DEFAULT_TOOLS } from "../support/tool-names.js";

const h = useExecHarness({ config: false, execArgs: ["--full-auto"] });
beforeAll(async () => {
  await fixtureScript();
});

async function configure(mcpServers: string): Promise<void> {
  await h.writeConfig({ extra: mcpServers });
}

type JsonEvent = { type: string; item?: Record<string, unknown> };
const jsonEvents = (stdout: string): JsonEvent[] =>
  stdout
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as JsonEvent);

const FIXTURE_TOOLS = [
  "mcp__fixture__dotted_name",
  "mcp__fixture__echo",
  "mcp__fixture__fail",
  "mcp__fixture__image",
  "mcp__fixture__loose",
  "mcp__fixture__slow",
  "mcp__fixture__structured",
  "mcp__fixture__throws",
];

describe("tscodex exec with a stdio MCP server", () => {
  it("offers its tools after the built-in ones and answers calls as Codex does", async () => {
    await configure(await fixtureToml({ name: "fixture" }));
    h.server.enqueue(
      turn(
        functionCall("mcp__fixture__echo", { text: "hello", n: 2 }, "call_1"),
        functionCall("mcp__fixture__fail", {}, "call_2"),
        functionCall("mcp__fixture__image", {}, "call_3"),
        functionCall("mcp__fixture__structured", {}, "call_4"),
        functionCall("mcp__fixture__throws", {}, "call_5"),
        functionCall("mcp__fixture__echo", "{bad", "call_6"),
        functionCall("mcp__fixture__nosuch", {}, "call_10"),
        functionCall("mcp__fixture__dotted_name", {}, "call_11"),
      ),
      turn(message("done")),
    );
    const result = await h.exec(["use the tools"]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe("done\n");
    expect(h.server.requests[0]?.toolNames).toEqual([...DEFAULT_TOOLS, ...FIXTURE_TOOLS]);
    expect(h.outputs()).toEqual({
      call_1: '[{"text":"echo: hello","type":"text"}]',
      // Deliberate difference: Codex shows an error result exactly like a success.
      call_2: 'MCP tool reported an error:\n[{"text":"it failed","type":"text"}]',
      call_3: [
        { type: "input_text", text: "an image:" },
        { type: "input_image", image_url: `data:image/png;base64,${TINY_PNG}` },
      ],
      call_4: '{"ok":true}',
      // Deliberate difference: Codex adds "Caused by" and a stack backtrace.
      call_5: "tool call failed for `fixture/throws`: Mcp error: -32000: boom",
      call_6: "err: key must be a string at line 1 column 2",
      call_10: "unsupported call: mcp__fixture__nosuch",
      call_11: '[{"text":"dotted","type":"text"}]',
    });
    // The human output shows the calls.
    expect(result.stderr).toContain("fixture.echo");
  });

  it("sends a schema without `type` fields sanitized, and no outputSchema", async () => {
    await configure(await fixtureToml({ name: "fixture" }));
    h.server.enqueue(turn(message("ok")));
    expect((await h.exec(["hi"])).code).toBe(0);
    const tools = h.server.requests[0]?.body.tools as Record<string, unknown>[];
    const loose = tools.find((tool) => tool.name === "mcp__fixture__loose");
    expect(loose).toEqual({
      type: "function",
      name: "mcp__fixture__loose",
      description: "A schema without types.",
      strict: false,
      parameters: {
        type: "object",
        properties: {
          query: { type: "string", description: "what to look for" },
          limit: { type: "number", minimum: 1 },
          tags: { type: "array", items: { type: "string", enum: ["a", "b"] } },
          options: { type: "object", properties: { deep: { type: "boolean" } } },
          mode: { type: "number", enum: [1, 2] },
        },
        required: ["query"],
      },
    });
    const structured = tools.find((tool) => tool.name === "mcp__fixture__structured");
    expect(structured?.parameters).toEqual({ type: "object", properties: {} });
    expect(JSON.stringify(tools)).not.toContain("outputSchema");
  });

  it("answers the resource tools as Codex does", async () => {
    await configure(await fixtureToml({ name: "fixture" }));
    h.server.enqueue(
      turn(
        functionCall("list_mcp_resources", {}, "call_7"),
        functionCall("list_mcp_resources", { server: "fixture" }, "call_8"),
        functionCall("read_mcp_resource", { server: "fixture", uri: "fixture://readme" }, "call_9"),
        functionCall("list_mcp_resource_templates", {}, "call_14"),
        functionCall("read_mcp_resource", { server: "nope", uri: "x://y" }, "call_15"),
        functionCall("list_mcp_resources", { server: "nope" }, "call_16"),
        functionCall("read_mcp_resource", { server: "fixture", uri: "fixture://missing" }, "call_17"),
      ),
      turn(message("done")),
    );
    const result = await h.exec(["browse"]);
    expect(result.code, result.stderr).toBe(0);
    const resource = { server: "fixture", mimeType: "text/plain", name: "readme", uri: "fixture://readme" };
    expect(h.outputs()).toEqual({
      call_7: JSON.stringify({ resources: [resource] }),
      call_8: JSON.stringify({ server: "fixture", resources: [resource] }),
      call_9: JSON.stringify({
        server: "fixture",
        uri: "fixture://readme",
        contents: [{ mimeType: "text/plain", text: "fixture readme body", uri: "fixture://readme" }],
      }),
      call_14: JSON.stringify({
        resourceTemplates: [
          { server: "fixture", mimeType: "text/plain", name: "note", uriTemplate: "fixture://notes/{id}" },
        ],
      }),
      call_15: "resources/read failed: unknown MCP server 'nope'",
      call_16: "resources/list failed: unknown MCP server 'nope'",
      call_17: "resources/read failed: Mcp error: -32002: no resource fixture://missing",
    });
  });

  it("--json: mcp_tool_call items, started then completed, as the reference stream", async () => {
    await configure(await fixtureToml({ name: "fixture" }));
    h.server.enqueue(
      turn(functionCall("mcp__fixture__echo", { text: "hi" }, "call_6")),
      turn(functionCall("mcp__fixture__throws", {}, "call_7")),
      turn(message("done")),
    );
    const result = await h.exec(["--json", "echo"]);
    expect(result.code, result.stderr).toBe(0);
    const items = jsonEvents(result.stdout).filter((event) => event.item?.type === "mcp_tool_call");
    expect(items).toEqual([
      {
        type: "item.started",
        item: {
          id: "item_0",
          type: "mcp_tool_call",
          server: "fixture",
          tool: "echo",
          arguments: { text: "hi" },
          result: null,
          error: null,
          status: "in_progress",
        },
      },
      {
        type: "item.completed",
        item: {
          id: "item_0",
          type: "mcp_tool_call",
          server: "fixture",
          tool: "echo",
          arguments: { text: "hi" },
          result: { content: [{ text: "echo: hi", type: "text" }], structured_content: null },
          error: null,
          status: "completed",
        },
      },
      expect.objectContaining({ type: "item.started" }),
      {
        type: "item.completed",
        item: {
          id: "item_1",
          type: "mcp_tool_call",
          server: "fixture",
          tool: "throws",
          arguments: {},
          result: null,
          error: { message: "tool call failed for `fixture/throws`: Mcp error: -32000: boom" },
          status: "failed",
        },
      },
    ]);
  });

  it("honours enabled_tools / disabled_tools and enabled = false", async () => {
    await configure(
      [
        await fixtureToml({ name: "fixture", extra: ['enabled_tools = ["echo", "fail", "image"]'] }),
        await fixtureToml({ name: "other", extra: ['disabled_tools = ["slow", "throws", "loose"]'] }),
        await fixtureToml({ name: "off", extra: ["enabled = false"] }),
      ].join("\n"),
    );
    h.server.enqueue(turn(message("ok")));
    expect((await h.exec(["hi"])).code).toBe(0);
    expect(h.server.requests[0]?.toolNames.filter((name) => name.startsWith("mcp__"))).toEqual([
      "mcp__fixture__echo",
      "mcp__fixture__fail",
      "mcp__fixture__image",
      "mcp__other__dotted_name",
      "mcp__other__echo",
      "mcp__other__fail",
      "mcp__other__image",
      "mcp__other__structured",
    ]);
  });
});

describe("tscodex exec with misbehaving MCP servers", () => {
  it("reports a server that crashes or hangs at startup and goes on without it; none outlives the run", async () => {
    const pidfile = join(h.work, "..", `${h.work.split("/").at(-1)}-pids`);
    const env = { FIXTURE_PIDFILE: pidfile };
    await configure(
      [
        await fixtureToml({ name: "crash", mode: "crash", env }),
        await fixtureToml({ name: "fixture", env, extra: ["startup_timeout_sec = 20"] }),
        await fixtureToml({ name: "hang", mode: "hang", env, extra: ["startup_timeout_sec = 1"] }),
      ].join("\n"),
    );
    h.server.enqueue(
      turn(functionCall("mcp__fixture__echo", { text: "still here" }, "call_1")),
      turn(message("ok")),
    );
    const started = Date.now();
    const result = await h.exec(["--json", "hi"]);
    expect(result.code, result.stderr).toBe(0);
    expect(Date.now() - started).toBeLessThan(8000);
    expect(result.stderr).toContain(
      "tscodex: MCP server 'crash' failed to start: Mcp error: -32000: Connection closed (stderr: fixture: crashing at startup)",
    );
    expect(result.stderr).toContain(
      "tscodex: MCP server 'hang' failed to start: did not start within 1 s; raise startup_timeout_sec under [mcp_servers.hang] if it needs longer",
    );
    expect(h.server.requests[0]?.toolNames.filter((name) => name.startsWith("mcp__"))).toEqual(FIXTURE_TOOLS);
    expect(h.outputs().call_1).toBe('[{"text":"echo: still here","type":"text"}]');
    const pids = (await readFile(pidfile, "utf8")).trim().split("\n").map(Number);
    expect(pids).toHaveLength(3);
    for (const pid of pids) expect(await gone(pid), `pid ${pid} still running`).toBe(true);
  });

  it("a tool that outlives tool_timeout_sec gets a clean error and the run goes on", async () => {
    await configure(await fixtureToml({ name: "fixture", extra: ["tool_timeout_sec = 0.5"] }));
    h.server.enqueue(
      turn(functionCall("mcp__fixture__slow", { ms: 30_000 }, "call_1")),
      turn(functionCall("mcp__fixture__echo", { text: "after" }, "call_2")),
      turn(message("ok")),
    );
    const started = Date.now();
    const result = await h.exec(["wait"]);
    expect(result.code, result.stderr).toBe(0);
    expect(Date.now() - started).toBeLessThan(8000);
    const first = h.server.requests[1]?.input.find(
      (item) => item.type === "function_call_output" && item.call_id === "call_1",
    );
    expect(first).toMatchObject({
      output: "tool call failed for `fixture/slow`: timed out after 0.5 seconds (tool_timeout_sec)",
    });
    expect(h.outputs().call_2).toBe('[{"text":"echo: after","type":"text"}]');
  });
});

describe("tscodex exec with a Streamable HTTP MCP server", () => {
  it("connects with the bearer token and calls its tools", async () => {
    const http = await startHttpFixture();
    try {
      await configure(
        [
          "[mcp_servers.web]",
          `url = "${http.url}"`,
          'bearer_token_env_var = "WEB_TOKEN"',
          'http_headers = { "X-Extra" = "1" }',
          "",
        ].join("\n"),
      );
      h.server.enqueue(
        turn(
          functionCall("mcp__web__echo", { text: "over http" }, "call_1"),
          functionCall("read_mcp_resource", { server: "web", uri: "fixture://readme" }, "call_2"),
        ),
        turn(message("ok")),
      );
      const result = await h.exec(["hi"], { env: { WEB_TOKEN: "secret-token" } });
      expect(result.code, result.stderr).toBe(0);
      expect(h.server.requests[0]?.toolNames).toContain("mcp__web__echo");
      expect(h.outputs()).toEqual({
        call_1: '[{"text":"echo: over http","type":"text"}]',
        call_2: JSON.stringify({
          server: "web",
          uri: "fixture://readme",
          contents: [{ mimeType: "text/plain", text: "fixture readme body", uri: "fixture://readme" }],
        }),
      });
      expect(http.requests.length).toBeGreaterThan(0);
      for (const request of http.requests) expect(request.authorization).toBe("Bearer secret-token");
    } finally {
      await http.close();
    }
  });

  it("a missing bearer token is a startup failure, not a crash", async () => {
    await configure(
      '[mcp_servers.web]\nurl = "http://127.0.0.1:9/mcp"\nbearer_token_env_var = "NO_SUCH_TOKEN"\n',
    );
    h.server.enqueue(turn(message("ok")));
    const result = await h.exec(["hi"]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain(
      "MCP server 'web' failed to start: environment variable NO_SUCH_TOKEN (bearer_token_env_var of MCP server 'web') is not set",
    );
  });
});

describe("tscodex mcp list|get|add|remove", () => {
  const mcp = (args: string[]) => runCli(["mcp", ...args], { cwd: h.work, home: h.home });

  it("edits config.toml, keeping its comments, and the servers it adds are used", async () => {
    await configure("# keep this comment\n");
    const script = await fixtureScript();
    let result = await mcp([
      "add",
      "fixture",
      "--env",
      "A=s3cret",
      "--tool-timeout-sec",
      "5",
      "--",
      process.execPath,
      script,
    ]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain("Added MCP server 'fixture'");
    expect(await readFile(join(h.home, "config.toml"), "utf8")).toContain("# keep this comment");

    result = await mcp(["add", "web", "--url", "http://127.0.0.1:9/mcp", "--bearer-token-env-var", "TOKEN"]);
    expect(result.code, result.stderr).toBe(0);
    result = await mcp(["list"]);
    // The Auth column (issue 28): a bearer token for `web`, nothing to log in to for stdio.
    expect(result.stdout.split("\n")[0]).toMatch(/^Name\s+Transport\s+Command \/ URL\s+Status\s+Auth$/);
    expect(result.stdout).toMatch(/^web\s+http\s+http:\/\/127\.0\.0\.1:9\/mcp\s+enabled\s+Bearer token$/m);
    expect(result.stdout).toMatch(/^fixture\s+stdio\s+.*\s+enabled\s+Unsupported$/m);

    result = await mcp(["get", "fixture", "--json"]);
    expect(JSON.parse(result.stdout)).toMatchObject({
      name: "fixture",
      enabled: true,
      // Values may be secrets: masked as in the human view.
      transport: { type: "stdio", command: process.execPath, args: [script], env: { A: "*****" } },
      startup_timeout_sec: 10,
      tool_timeout_sec: 5,
    });
    expect(result.stdout).not.toContain("s3cret");
    expect((await mcp(["list", "--json"])).stdout).not.toContain("s3cret");
    result = await mcp(["get", "fixture"]);
    expect(result.stdout).toContain("env: A=*****");

    expect((await mcp(["remove", "web"])).code).toBe(0);
    expect((await mcp(["list", "--json"])).stdout).not.toContain('"web"');
    h.server.enqueue(
      turn(functionCall("mcp__fixture__echo", { text: "added" }, "call_1")),
      turn(message("ok")),
    );
    expect((await h.exec(["hi"])).code).toBe(0);
    expect(h.outputs().call_1).toBe('[{"text":"echo: added","type":"text"}]');
  });

  it("says what is wrong", async () => {
    await writeFile(join(h.home, "config.toml"), "");
    let result = await mcp(["remove", "nope"]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("no MCP server named 'nope'");
    result = await mcp(["add", "bad.name", "--", "x"]);
    expect(result.stderr).toContain("invalid server name 'bad.name'");
    result = await mcp(["add", "both", "--url", "http://h/mcp", "--", "x"]);
    expect(result.stderr).toContain("either a command (after --) or --url");
    result = await mcp(["list"]);
    expect(result.stdout).toContain("No MCP servers configured.");
  });
});
