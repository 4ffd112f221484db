/**
 * codex-acp 2.6.0 (how ACP editors such as Zed drive Codex) runs on tscodex end to end: the ACP
 * SDK's client drives codex-acp, which spawns `$CODEX_PATH app-server` = tscodex, against the
 * fake model. A prompt streams message chunks and ends with `end_turn`; the editor's API key
 * logs in (`authenticate` → account/login/start); `/goal` sets, pauses and clears the thread's
 * goal; a command is an `execute` tool call with its output; an approval goes through
 * `session/request_permission` (allow once runs it, reject does not); `session/cancel` during a
 * command ends the turn `cancelled` and the process; a client-provided MCP server's tool is used
 * by the model; an apply_patch edit is an `edit` tool call with its diff. codex-acp's own log of
 * its app-server traffic is checked after each test: no request was answered with an error
 * (-32601, method not found, least of all). `session/load` after a restart is in
 * codex-acp-load.test.ts.
 */
import { existsSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { appServerLog, useCodexAcpHarness } from "../support/codex-acp.js";
import { customToolCall, functionCall, hang, message, turn } from "../support/fake-model-server.js";
import { fixtureScript } from "../support/mcp-fixture.js";
import { gone, readPid } from "../support/processes.js";
import { requireSandbox } from "../support/skips.js";

const h = useCodexAcpHarness();

describe("codex-acp on tscodex", () => {
  it("streams a prompt's answer as message chunks and ends the turn with end_turn", async () => {
    h.script(turn(message("Hello there, friend")));
    const acp = await h.client();
    const sessionId = await h.newSession(acp);
    const answer = await h.prompt(acp, sessionId, "say hello");
    expect(answer.stopReason).toBe("end_turn");
    const chunks = h.updatesOf(acp, sessionId, "agent_message_chunk");
    expect(chunks.length).toBeGreaterThan(1);
    expect(chunks.map((chunk) => (chunk.content.type === "text" ? chunk.content.text : "")).join("")).toBe(
      "Hello there, friend",
    );
    expect(new Set(chunks.map((chunk) => chunk.messageId)).size).toBe(1);
    expect(h.model.requests[0]?.input).toContainEqual(
      expect.objectContaining({ role: "user", content: [expect.objectContaining({ text: "say hello" })] }),
    );
    // The title side turn: codex-acp reads `{"title": …}` from its turn/completed items, then
    // names the thread (thread/name/set) and tells the client.
    await acp.waitForUpdate(
      (note) => note.update.sessionUpdate === "session_info_update" && note.update.title === "A test session",
    );
    const called = await h.expectEveryCallServed(acp);
    expect(called.slice(0, 8)).toEqual([
      "initialize",
      "config/read",
      "account/read",
      "permissionProfile/list",
      "config/read",
      "thread/start",
      "model/list",
      "skills/list",
    ]);
    expect(called).toContain("turn/start");
    expect(called).toContain("thread/name/set");
  });

  it("authenticates with the editor's API key (account/login/start), which the turns then use", async () => {
    h.script(turn(message("keyed")));
    const acp = await h.client({ env: { FAKE_KEY: "" } });
    await acp.agent.request("authenticate", {
      methodId: "api-key",
      _meta: { "api-key": { apiKey: "sk-from-the-editor" } },
    } as never);
    const sessionId = await h.newSession(acp);
    expect((await h.prompt(acp, sessionId, "hello")).stopReason).toBe("end_turn");
    expect(h.model.requests[0]?.headers.authorization).toBe("Bearer sk-from-the-editor");
    await acp.agent.request("logout", {});
    const called = await h.expectEveryCallServed(acp);
    expect(called).toContain("account/login/start");
    expect(called).toContain("account/logout");
  });

  it("logs out when the key comes from the environment (no login to forget)", async () => {
    const acp = await h.client();
    await acp.agent.request("logout", {});
    expect(await h.expectEveryCallServed(acp)).toContain("account/logout");
  });

  it("sets, pauses and clears the thread's goal through its /goal command", async () => {
    const acp = await h.client();
    const sessionId = await h.newSession(acp);
    const answers = [];
    for (const command of ["/goal Ship the parser", "/goal pause", "/goal clear"])
      answers.push((await h.prompt(acp, sessionId, command)).stopReason);
    expect(answers).toEqual(["end_turn", "end_turn", "end_turn"]);
    const log = await appServerLog(h.logs);
    const goals = log.filter((m) => m.direction === "out" && m.method?.startsWith("thread/goal/"));
    expect(goals.map((m) => [m.method, (m.params as { goal?: { status: string } }).goal?.status])).toEqual([
      ["thread/goal/updated", "active"],
      ["thread/goal/updated", "paused"],
      ["thread/goal/cleared", undefined],
    ]);
    expect(h.model.requests).toEqual([]);
    const called = await h.expectEveryCallServed(acp);
    expect(called.filter((method) => method.startsWith("thread/goal/"))).toEqual([
      "thread/goal/set",
      "thread/goal/set",
      "thread/goal/clear",
    ]);
  });

  it("shows a command as an execute tool call with its output", async () => {
    await requireSandbox(); // its command runs sandboxed
    h.script(
      turn(functionCall("shell_command", { command: "echo acp-output" }, "call_cmd")),
      turn(message("ran it")),
    );
    const acp = await h.client();
    const sessionId = await h.newSession(acp);
    expect((await h.prompt(acp, sessionId, "run echo")).stopReason).toBe("end_turn");
    const started = h.updatesOf(acp, sessionId, "tool_call").find((call) => call.toolCallId === "call_cmd");
    expect(started).toMatchObject({ kind: "execute", status: "in_progress" });
    expect(started?.title).toContain("echo acp-output");
    const call = h.toolCall(acp, sessionId, "call_cmd");
    expect(call).toMatchObject({ status: "completed", _meta: { terminal_exit: { exit_code: 0 } } });
    expect(h.commandOutput(acp, sessionId, "call_cmd")).toBe("acp-output\n");
    expect(h.model.requests[1]?.input).toContainEqual(
      expect.objectContaining({ type: "function_call_output", call_id: "call_cmd" }),
    );
    await h.expectEveryCallServed(acp);
  });

  it("asks through session/request_permission: allow once runs the command", async () => {
    const escalated = { sandbox_permissions: "require_escalated", justification: "It writes a file." };
    h.script(
      turn(functionCall("shell_command", { command: "touch allowed.txt", ...escalated }, "call_allow")),
      turn(message("done")),
    );
    const acp = await h.client();
    const sessionId = await h.newSession(acp, [], "read-only");
    expect((await h.prompt(acp, sessionId, "write it")).stopReason).toBe("end_turn");
    expect(acp.permissions).toHaveLength(1);
    expect(acp.permissions[0]).toMatchObject({ sessionId, toolCall: { toolCallId: "call_allow" } });
    expect(acp.permissions[0]?.options.map((option) => option.kind)).toContain("allow_once");
    expect(existsSync(join(h.work, "allowed.txt"))).toBe(true);
    expect(h.toolCall(acp, sessionId, "call_allow")).toMatchObject({ kind: "execute", status: "completed" });
    await h.expectEveryCallServed(acp);
  });

  it("asks through session/request_permission: neither reject option runs the command", async () => {
    const escalated = { sandbox_permissions: "require_escalated", justification: "It writes a file." };
    h.script(
      turn(functionCall("shell_command", { command: "touch declined.txt", ...escalated }, "call_decline")),
      turn(message("went on without it")),
      turn(functionCall("shell_command", { command: "touch cancelled.txt", ...escalated }, "call_cancel")),
    );
    // "decline" (No, continue without running it), then "cancel" (No, and tell Codex what to do differently).
    const choices = ["decline", "cancel"];
    const acp = await h.client({
      onPermission: (request) => {
        const optionId = choices.shift() ?? "";
        expect(request.options).toContainEqual(expect.objectContaining({ optionId, kind: "reject_once" }));
        return { outcome: { outcome: "selected", optionId } };
      },
    });
    const sessionId = await h.newSession(acp, [], "read-only");
    expect((await h.prompt(acp, sessionId, "write one")).stopReason).toBe("end_turn");
    expect(h.toolCall(acp, sessionId, "call_decline")).toMatchObject({ kind: "execute", status: "failed" });
    expect(h.model.requests[1]?.input).toContainEqual(
      expect.objectContaining({ type: "function_call_output", call_id: "call_decline" }),
    );
    expect((await h.prompt(acp, sessionId, "write another")).stopReason).toBe("cancelled");
    expect(h.toolCall(acp, sessionId, "call_cancel")).toMatchObject({ kind: "execute", status: "failed" });
    expect(acp.permissions.map((asked) => asked.toolCall.toolCallId)).toEqual([
      "call_decline",
      "call_cancel",
    ]);
    expect(existsSync(join(h.work, "declined.txt"))).toBe(false);
    expect(existsSync(join(h.work, "cancelled.txt"))).toBe(false);
    await h.expectEveryCallServed(acp);
  });

  it("ends the turn on session/cancel during a command: stop reason cancelled, the process gone", async () => {
    const pidFile = join(h.work, "pid");
    h.script(
      turn(functionCall("shell_command", { command: `echo $$ > ${pidFile}; exec sleep 60` }, "call_sleep")),
      turn(hang()),
    );
    const acp = await h.client();
    const sessionId = await h.newSession(acp, [], "agent-full-access");
    const answer = h.prompt(acp, sessionId, "sleep");
    const pid = await readPid(pidFile, 15_000);
    await acp.waitForUpdate(
      (note) => note.update.sessionUpdate === "tool_call" && note.update.toolCallId === "call_sleep",
    );
    await acp.agent.notify("session/cancel", { sessionId });
    expect((await answer).stopReason).toBe("cancelled");
    expect(await gone(pid, 5000)).toBe(true);
    const called = await h.expectEveryCallServed(acp);
    expect(called).toContain("turn/interrupt");
  });

  it("gives the model the tools of an MCP server the client provides", async () => {
    h.script(
      turn(functionCall("mcp__fixture__echo", { text: "from acp" }, "call_mcp")),
      turn(message("echoed")),
    );
    const acp = await h.client();
    const server = { name: "fixture", command: process.execPath, args: [await fixtureScript()], env: [] };
    const sessionId = await h.newSession(acp, [server]);
    expect((await h.prompt(acp, sessionId, "echo it")).stopReason).toBe("end_turn");
    expect(h.model.requests[0]?.toolNames).toContain("mcp__fixture__echo");
    const call = h.toolCall(acp, sessionId, "call_mcp");
    expect(call).toMatchObject({ status: "completed" });
    expect(JSON.stringify(call.rawOutput)).toContain("echo: from acp");
    expect(h.model.requests[1]?.input).toContainEqual(
      expect.objectContaining({ type: "function_call_output", call_id: "call_mcp" }),
    );
    expect(JSON.stringify(h.model.requests[1]?.input)).toContain("echo: from acp");
    await h.expectEveryCallServed(acp);
  });

  it("shows an apply_patch edit as an edit tool call with its diff", async () => {
    await writeFile(join(h.work, "greeting.txt"), "old line\n");
    const patch = "*** Begin Patch\n*** Update File: greeting.txt\n@@\n-old line\n+new line\n*** End Patch\n";
    h.script(turn(customToolCall("apply_patch", patch, "call_edit")), turn(message("edited")));
    const acp = await h.client();
    const sessionId = await h.newSession(acp);
    expect((await h.prompt(acp, sessionId, "edit it")).stopReason).toBe("end_turn");
    expect(await readFile(join(h.work, "greeting.txt"), "utf8")).toBe("new line\n");
    const started = h.updatesOf(acp, sessionId, "tool_call").find((call) => call.toolCallId === "call_edit");
    expect(started).toMatchObject({ kind: "edit" });
    expect(started?.content).toContainEqual(
      expect.objectContaining({
        type: "diff",
        path: join(h.work, "greeting.txt"),
        oldText: expect.stringContaining("old line"),
        newText: expect.stringContaining("new line"),
      }),
    );
    expect(h.toolCall(acp, sessionId, "call_edit")).toMatchObject({ status: "completed" });
    await h.expectEveryCallServed(acp);
  });
});
