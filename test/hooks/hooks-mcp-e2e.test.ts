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
import { outputOf as outputFromInput, useExecHarness } from "../support/exec-harness.js";
import { functionCall, message, type RecordedRequest, turn } from "../support/fake-model-server.js";
import { fixtureScript, fixtureToml } from "../support/mcp-fixture.js";
import { codexPayloadKeys, recorded, recorder, writeHooksJson } from "./hook-fixtures.js";

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

/**
 * The fixture server `fixture` (`set`: its tools), allowed to run under approval policy never
 * unless `asking` (then its tools keep the default mode: un-annotated ones need approval).
 */
async function configureFixture(set: "default" | "approvals" = "default", asking = false): Promise<void> {
  const mode = asking ? [] : ['default_tools_approval_mode = "approve"'];
  await h.writeConfig({
    extra: await fixtureToml({
      name: "fixture",
      env: { FIXTURE_SET: set, FIXTURE_CALLLOG: callLog() },
      extra: [...mode, "startup_timeout_sec = 60"],
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

describe("PermissionRequest hooks on MCP calls that need approval", () => {
  /** Allows `mcp__fixture__destroy`, denies `mcp__fixture__plain`, leaves the rest undecided. */
  const decide = (decision: string) =>
    `printf '%s' '{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":${decision}}}'`;
  const hook = () =>
    [
      `${recorder(log, "PermissionRequest")}`,
      `case "$(cat "$f")" in`,
      `*'"mcp__fixture__destroy"'*) ${decide('{"behavior":"allow"}')};;`,
      `*'"mcp__fixture__plain"'*) ${decide('{"behavior":"deny","message":"no plain today"}')};;`,
      "esac",
    ].join("\n");

  it("allow runs the tool unasked, deny keeps it from the server, undecided goes to the reviewer", async () => {
    await configureFixture("approvals", true);
    await writeHooksJson(h.home, { PermissionRequest: [{ matcher: "^mcp__", command: hook() }] });
    const agent = [
      turn(
        functionCall("mcp__fixture__destroy", { target: "x" }, "call_allow"),
        functionCall("mcp__fixture__plain", {}, "call_deny"),
        functionCall("mcp__fixture__ask_name", {}, "call_undecided"),
        functionCall("mcp__fixture__ro", {}, "call_ro"),
      ),
      turn(message("ok")),
    ];
    const reviewer = [turn(message('{"outcome":"deny","risk_level":"medium","rationale":"not asked for"}'))];
    h.server.enqueue(
      ...Array.from(
        { length: 3 },
        () => (request: RecordedRequest) =>
          (request.headers["x-openai-subagent"] === "guardian" ? reviewer.shift() : agent.shift()) ??
          turn(message("(unscripted)")),
      ),
    );
    const result = await h.exec(["--approve-for-me", "-s", "workspace-write", "go"]);
    expect(result.code, result.stderr).toBe(0);
    const outputs = h.server.requests.filter(
      (request) => request.headers["x-openai-subagent"] !== "guardian",
    );
    const outputOf = (callId: string) => outputFromInput(outputs.at(-1)?.input ?? [], callId);
    expect(outputOf("call_allow")).toBe('[{"text":"destroy ran","type":"text"}]');
    expect(outputOf("call_deny")).toBe("MCP tool call rejected by PermissionRequest hook: no plain today");
    // No hook decided: the reviewer model (automatic approval review) answered, and denied.
    expect(outputOf("call_undecided")).toContain("Reason: not asked for");
    expect(result.stderr).toContain("auto-review: denied (risk medium): not asked for");
    // A read-only tool needs no approval: no PermissionRequest for it.
    expect(outputOf("call_ro")).toBe('[{"text":"ro ran","type":"text"}]');
    expect((await readFile(callLog(), "utf8")).trim().split("\n").sort()).toEqual(["destroy", "ro"]);

    const payloads = await recorded(log, "PermissionRequest");
    expect(payloads.map((payload) => payload.tool_name).sort()).toEqual([
      "mcp__fixture__ask_name",
      "mcp__fixture__destroy",
      "mcp__fixture__plain",
    ]);
    const allowed = payloads.find((payload) => payload.tool_name === "mcp__fixture__destroy");
    expect(Object.keys(allowed ?? {}).sort()).toEqual(codexPayloadKeys().get("PermissionRequest"));
    expect(allowed).toMatchObject({
      hook_event_name: "PermissionRequest",
      permission_mode: "default",
      tool_input: { target: "x" },
    });
  });

  it("under approval policy never the call is refused before any hook, as Codex", async () => {
    await configureFixture("approvals", true);
    await writeHooksJson(h.home, { PermissionRequest: [{ command: hook() }] });
    h.server.enqueue(turn(functionCall("mcp__fixture__destroy", {}, "call_1")), turn(message("ok")));
    const result = await h.exec(["-s", "workspace-write", "go"]);
    expect(result.code, result.stderr).toBe(0);
    expect(h.outputOf(1, "call_1")).toBe("MCP tool call requires approval, but approval policy is never");
    expect(await recorded(log, "PermissionRequest")).toEqual([]);
  });
});
