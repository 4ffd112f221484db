/**
 * Tool hooks on MCP tool calls, end to end: `tscodex exec` against the fake model with the stdio
 * fixture server. Codex 0.169 names an MCP tool `mcp__<server>__<tool>` in PreToolUse and
 * PostToolUse payloads, gives the raw arguments as `tool_input` and the call result as
 * `tool_response` (`{content, structuredContent}`), and answers a denied call with
 * `Tool call blocked by PreToolUse hook: R. Tool: NAME`.
 */
import { mkdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import { useExecHarness } from "../support/exec-harness.js";
import { functionCall, message, turn } from "../support/fake-model-server.js";
import { fixtureScript, fixtureToml } from "../support/mcp-fixture.js";
import { recorded, recorder, writeHooksJson } from "./hook-fixtures.js";

const h = useExecHarness({ execArgs: ["--dangerously-bypass-hook-trust", "--skip-git-repo-check"] });
let log: string;
beforeAll(async () => {
  await fixtureScript();
});
beforeEach(async () => {
  log = join(h.home, "hook-log");
  await mkdir(log);
});

const callLog = () => join(h.home, "mcp-calls");

/** The fixture server `fixture` (`set`: its tools), allowed to run under approval policy never. */
async function configureFixture(set: "default" | "approvals" = "default"): Promise<void> {
  await h.writeConfig({
    extra: await fixtureToml({
      name: "fixture",
      env: { FIXTURE_SET: set, FIXTURE_CALLLOG: callLog() },
      extra: ['default_tools_approval_mode = "approve"', "startup_timeout_sec = 60"],
    }),
  });
}

describe("tool hooks on MCP tool calls", () => {
  it("PreToolUse and PostToolUse see mcp__<server>__<tool>, the arguments and the result", async () => {
    await configureFixture();
    await writeHooksJson(h.home, {
      PreToolUse: [{ matcher: "^mcp__fixture__echo$", command: recorder(log, "PreToolUse") }],
      PostToolUse: [{ matcher: "^mcp__fixture__", command: recorder(log, "PostToolUse") }],
    });
    h.server.enqueue(
      turn(
        functionCall("mcp__fixture__echo", { text: "hello", n: 2 }, "call_mcp"),
        functionCall("mcp__fixture__structured", {}, "call_structured"),
      ),
      turn(message("done")),
    );
    const result = await h.exec(["echo it"]);
    expect(result.code, result.stderr).toBe(0);
    const pres = await recorded(log, "PreToolUse");
    const posts = await recorded(log, "PostToolUse");
    expect(pres).toHaveLength(1);
    expect(posts).toHaveLength(2);
    const pre = pres[0];
    const post = posts.find((payload) => payload.tool_use_id === "call_mcp");
    expect(pre).toMatchObject({
      hook_event_name: "PreToolUse",
      tool_name: "mcp__fixture__echo",
      tool_input: { text: "hello", n: 2 },
      tool_use_id: "call_mcp",
    });
    expect(post).toMatchObject({
      hook_event_name: "PostToolUse",
      tool_name: "mcp__fixture__echo",
      tool_input: { text: "hello", n: 2 },
      tool_use_id: "call_mcp",
    });
    // The result as the server sent it, not the text the model got.
    expect(post?.tool_response).toEqual({ content: [{ type: "text", text: "echo: hello" }] });
    expect(posts.find((payload) => payload.tool_use_id === "call_structured")).toMatchObject({
      tool_name: "mcp__fixture__structured",
      tool_input: {},
      tool_response: { content: [{ type: "text", text: '{"ok":true}' }], structuredContent: { ok: true } },
    });
  });

  it("a PreToolUse deny keeps the call from the server and tells the model Codex's words", async () => {
    await configureFixture("approvals");
    await writeHooksJson(h.home, {
      PreToolUse: [{ matcher: "^mcp__fixture__plain$", command: "echo 'not today' >&2; exit 2" }],
    });
    h.server.enqueue(
      turn(
        functionCall("mcp__fixture__plain", {}, "call_mcp"),
        functionCall("mcp__fixture__ro", {}, "call_ro"),
      ),
      turn(message("ok")),
    );
    const result = await h.exec(["echo it"]);
    expect(result.code, result.stderr).toBe(0);
    expect(h.outputOf(1, "call_mcp")).toBe(
      "Tool call blocked by PreToolUse hook: not today. Tool: mcp__fixture__plain",
    );
    // The other call ran: the server logs the calls it got.
    expect((await readFile(callLog(), "utf8")).trim().split("\n")).toEqual(["ro"]);
  });
});
