/**
 * `tscodex acp`, the native ACP agent (issue 42), driven by the ACP SDK's client side against
 * the fake model: a prompt's streamed chunks, a command as an execute tool call with its output,
 * an edit with its diff, permissions (allow runs, reject does not, reject always answers the same
 * question again without asking), cancel mid-command (the process gone), a client MCP server's
 * tool, plan updates, mode and model changes, slash commands. Load after a restart, list, resume,
 * close and the editor's files are in acp-native-sessions.test.ts.
 */
import { existsSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { useCodexAcpHarness } from "../support/codex-acp.js";
import { customToolCall, functionCall, hang, message, turn, usage } from "../support/fake-model-server.js";
import { fixtureScript } from "../support/mcp-fixture.js";
import { gone, readPid } from "../support/processes.js";

const h = useCodexAcpHarness();
const escalated = { sandbox_permissions: "require_escalated", justification: "It writes a file." };

describe("tscodex acp", () => {
  it("initializes as an ACP v1 agent and streams a prompt's answer as message chunks", async () => {
    h.script(turn(message("Hello there, friend"), usage({ input: 100, output: 20 })));
    const acp = await h.native();
    const sessionId = await h.newSession(acp);
    const answer = await h.prompt(acp, sessionId, "say hello");
    expect(answer.stopReason).toBe("end_turn");
    const chunks = h.updatesOf(acp, sessionId, "agent_message_chunk");
    expect(chunks.length).toBeGreaterThan(1);
    expect(chunks.map((chunk) => (chunk.content.type === "text" ? chunk.content.text : "")).join("")).toBe(
      "Hello there, friend",
    );
    expect(h.model.requests[0]?.input).toContainEqual(
      expect.objectContaining({ role: "user", content: [expect.objectContaining({ text: "say hello" })] }),
    );
    expect(h.updatesOf(acp, sessionId, "usage_update").length).toBeGreaterThan(0);
    const [commands] = h.updatesOf(acp, sessionId, "available_commands_update");
    expect(commands?.availableCommands.map((command) => command.name)).toEqual([
      "review",
      "compact",
      "status",
      "skills",
    ]);
    expect(h.updatesOf(acp, sessionId, "session_info_update").at(-1)).toMatchObject({ title: "say hello" });
    expect(acp.stderr()).toBe("");
  });

  it("offers an API-key auth method when the provider has no key, and takes the editor's key", async () => {
    h.script(turn(message("keyed")));
    const acp = await h.native({ env: { FAKE_KEY: "" } });
    const reply = await acp.agent.request("initialize", { protocolVersion: 1, clientCapabilities: {} });
    expect(reply.authMethods?.map((method) => method.id)).toEqual(["api-key"]);
    await expect(acp.agent.request("session/new", { cwd: h.work, mcpServers: [] })).rejects.toMatchObject({
      code: -32000,
    });
    await acp.agent.request("authenticate", {
      methodId: "api-key",
      _meta: { "api-key": { apiKey: "sk-from-the-editor" } },
    });
    const sessionId = await h.newSession(acp);
    expect((await h.prompt(acp, sessionId, "hello")).stopReason).toBe("end_turn");
    expect(h.model.requests[0]?.headers.authorization).toBe("Bearer sk-from-the-editor");
  });

  it("shows a command as an execute tool call with its output", async () => {
    h.script(
      turn(functionCall("shell_command", { command: "echo acp-output" }, "call_cmd")),
      turn(message("ran it")),
    );
    const acp = await h.native();
    const sessionId = await h.newSession(acp, [], "agent-full-access");
    expect((await h.prompt(acp, sessionId, "run echo")).stopReason).toBe("end_turn");
    const started = h.updatesOf(acp, sessionId, "tool_call").find((call) => call.toolCallId === "call_cmd");
    expect(started).toMatchObject({ kind: "execute", status: "in_progress" });
    expect(started?.title).toContain("echo acp-output");
    expect(h.toolCall(acp, sessionId, "call_cmd")).toMatchObject({ status: "completed" });
    expect(JSON.stringify(h.toolCall(acp, sessionId, "call_cmd"))).toContain("acp-output");
    expect(h.model.requests[1]?.input).toContainEqual(
      expect.objectContaining({ type: "function_call_output", call_id: "call_cmd" }),
    );
  });

  it("shows an apply_patch edit as an edit tool call with its diff", async () => {
    await writeFile(join(h.work, "greeting.txt"), "old line\n");
    const patch = "*** Begin Patch\n*** Update File: greeting.txt\n@@\n-old line\n+new line\n*** End Patch\n";
    h.script(turn(customToolCall("apply_patch", patch, "call_edit")), turn(message("edited")));
    const acp = await h.native();
    const sessionId = await h.newSession(acp, [], "agent-full-access");
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
  });

  it("asks through session/request_permission: allow once runs the command", async () => {
    h.script(
      turn(functionCall("shell_command", { command: "touch allowed.txt", ...escalated }, "call_allow")),
      turn(message("done")),
    );
    const acp = await h.native();
    const sessionId = await h.newSession(acp, [], "read-only");
    expect((await h.prompt(acp, sessionId, "write it")).stopReason).toBe("end_turn");
    expect(acp.permissions).toHaveLength(1);
    expect(acp.permissions[0]).toMatchObject({ sessionId, toolCall: { toolCallId: "call_allow" } });
    expect(acp.permissions[0]?.options.map((option) => option.kind)).toEqual([
      "allow_once",
      "allow_always",
      "reject_once",
      "reject_always",
    ]);
    expect(existsSync(join(h.work, "allowed.txt"))).toBe(true);
    expect(h.toolCall(acp, sessionId, "call_allow")).toMatchObject({ kind: "execute", status: "completed" });
  });

  it("rejects: reject once does not run it; reject always answers the same question again without asking", async () => {
    const call = (id: string) =>
      functionCall("shell_command", { command: "touch rejected.txt", ...escalated }, id);
    h.script(
      turn(call("c1")),
      turn(message("went on")),
      turn(call("c2")),
      turn(call("c3")),
      turn(message("ok")),
    );
    const choices = ["reject_once", "reject_always"];
    const acp = await h.native({
      onPermission: () => ({ outcome: { outcome: "selected", optionId: choices.shift() ?? "allow_once" } }),
    });
    const sessionId = await h.newSession(acp, [], "read-only");
    expect((await h.prompt(acp, sessionId, "write one")).stopReason).toBe("end_turn");
    expect(h.toolCall(acp, sessionId, "c1")).toMatchObject({ status: "failed" });
    expect((await h.prompt(acp, sessionId, "write it twice")).stopReason).toBe("end_turn");
    // c2 was rejected always: c3, the same command, was not asked about and did not run.
    expect(acp.permissions.map((asked) => asked.toolCall.toolCallId)).toEqual(["c1", "c2"]);
    expect(h.toolCall(acp, sessionId, "c3")).toMatchObject({ status: "failed" });
    expect(existsSync(join(h.work, "rejected.txt"))).toBe(false);
  });

  it("ends the turn on session/cancel during a command: stop reason cancelled, the process gone", async () => {
    const pidFile = join(h.work, "pid");
    h.script(
      turn(functionCall("shell_command", { command: `echo $$ > ${pidFile}; exec sleep 60` }, "call_sleep")),
      turn(hang()),
    );
    const acp = await h.native();
    const sessionId = await h.newSession(acp, [], "agent-full-access");
    const answer = h.prompt(acp, sessionId, "sleep");
    const pid = await readPid(pidFile, 15_000);
    await acp.waitForUpdate(
      (note) => note.update.sessionUpdate === "tool_call" && note.update.toolCallId === "call_sleep",
    );
    await acp.agent.notify("session/cancel", { sessionId });
    expect((await answer).stopReason).toBe("cancelled");
    expect(await gone(pid, 5000)).toBe(true);
  });

  it("cancel withdraws an open permission request and ends the prompt cancelled", async () => {
    h.script(turn(functionCall("shell_command", { command: "touch never.txt", ...escalated }, "call_q")));
    let asked: () => void = () => {};
    const question = new Promise<void>((resolve) => {
      asked = resolve;
    });
    const acp = await h.native({
      onPermission: async () => {
        asked();
        // The editor would wait for the user; the agent withdraws the question on cancel.
        return new Promise(() => {});
      },
    });
    const sessionId = await h.newSession(acp, [], "read-only");
    const answer = h.prompt(acp, sessionId, "write it");
    await question;
    await acp.agent.notify("session/cancel", { sessionId });
    expect((await answer).stopReason).toBe("cancelled");
    expect(existsSync(join(h.work, "never.txt"))).toBe(false);
  });

  it("gives the model the tools of an MCP server the client provides, started before the first request", async () => {
    h.script(
      turn(functionCall("mcp__fixture__echo", { text: "from acp" }, "call_mcp")),
      turn(message("echoed")),
    );
    const acp = await h.native();
    const server = { name: "fixture", command: process.execPath, args: [await fixtureScript()], env: [] };
    const sessionId = await h.newSession(acp, [server], "agent-full-access");
    expect((await h.prompt(acp, sessionId, "echo it")).stopReason).toBe("end_turn");
    expect(h.model.requests[0]?.toolNames).toContain("mcp__fixture__echo");
    const call = h.toolCall(acp, sessionId, "call_mcp");
    expect(call).toMatchObject({ status: "completed" });
    expect(JSON.stringify(call)).toContain("echo: from acp");
  });

  it('gives the model the client tools of _meta["tscodex/clientTools"]; each call goes to the editor', async () => {
    h.script(
      turn(functionCall("lookup_ticket", { id: "T-42" }, "call_ticket")),
      turn(message("the ticket is open")),
    );
    const calls: unknown[] = [];
    const acp = await h.native({
      extensions: {
        "_tscodex/client_tool_call": (params) => {
          calls.push(params);
          return { contentItems: [{ type: "inputText", text: "T-42: open, owner ada" }], success: true };
        },
      },
    });
    const tools = [
      { name: "lookup_ticket", description: "Look a ticket up", inputSchema: { type: "object" } },
    ];
    const { sessionId } = await acp.agent.request("session/new", {
      cwd: h.work,
      mcpServers: [],
      _meta: { "tscodex/clientTools": tools },
    });
    expect((await h.prompt(acp, sessionId, "check T-42")).stopReason).toBe("end_turn");
    expect(h.model.requests[0]?.toolNames).toContain("lookup_ticket");
    expect(calls).toEqual([
      { sessionId, callId: "call_ticket", tool: "lookup_ticket", arguments: { id: "T-42" } },
    ]);
    expect(JSON.stringify(h.model.requests[1]?.input)).toContain("T-42: open, owner ada");
    await expect(
      acp.agent.request("session/new", {
        cwd: h.work,
        mcpServers: [],
        _meta: { "tscodex/clientTools": [{}] },
      }),
    ).rejects.toMatchObject({ code: -32602 });
  });

  it("sends the plan as plan updates", async () => {
    const plan = {
      plan: [
        { step: "Read the code", status: "completed" },
        { step: "Fix the bug", status: "in_progress" },
      ],
    };
    h.script(turn(functionCall("update_plan", plan, "call_plan")), turn(message("planned")));
    const acp = await h.native();
    const sessionId = await h.newSession(acp);
    expect((await h.prompt(acp, sessionId, "plan it")).stopReason).toBe("end_turn");
    expect(h.updatesOf(acp, sessionId, "plan").at(-1)?.entries).toEqual([
      expect.objectContaining({ content: "Read the code", status: "completed" }),
      expect.objectContaining({ content: "Fix the bug", status: "in_progress" }),
    ]);
  });

  it("changes mode, model and reasoning effort for the next turn", async () => {
    h.script(turn(message("one")), turn(message("two")));
    const acp = await h.native();
    const created = await acp.agent.request("session/new", { cwd: h.work, mcpServers: [] });
    const { sessionId } = created;
    expect(created.modes?.availableModes.map((mode) => mode.id)).toEqual([
      "read-only",
      "agent",
      "agent-full-access",
    ]);
    expect((created.configOptions ?? []).map((option) => option.id)).toEqual(
      expect.arrayContaining(["mode", "model", "reasoning_effort"]),
    );
    await h.prompt(acp, sessionId, "first");
    await acp.agent.request("session/set_mode", { sessionId, modeId: "read-only" });
    expect(h.updatesOf(acp, sessionId, "current_mode_update").at(-1)).toMatchObject({
      currentModeId: "read-only",
    });
    const changed = await acp.agent.request("session/set_config_option", {
      sessionId,
      configId: "model",
      value: "gpt-5.1-codex-max",
    });
    expect(changed.configOptions.find((option) => option.id === "model")).toMatchObject({
      currentValue: "gpt-5.1-codex-max",
    });
    await acp.agent.request("session/set_config_option", {
      sessionId,
      configId: "reasoning_effort",
      value: "high",
    });
    await h.prompt(acp, sessionId, "second");
    expect(h.model.requests[0]?.body.model).toBe("gpt-5.2-codex");
    expect(h.model.requests[1]?.body).toMatchObject({
      model: "gpt-5.1-codex-max",
      reasoning: { effort: "high" },
    });
    // The read-only mode's permissions reach the model in the second turn's context.
    expect(JSON.stringify(h.model.requests[1]?.input)).toContain("read-only");
    await expect(
      acp.agent.request("session/set_mode", { sessionId, modeId: "no-such-mode" }),
    ).rejects.toMatchObject({ code: -32602 });
  });

  it("answers /status without the model, and refuses an unknown session with -32002", async () => {
    const acp = await h.native();
    const sessionId = await h.newSession(acp);
    expect((await h.prompt(acp, sessionId, "/status")).stopReason).toBe("end_turn");
    const text = h
      .updatesOf(acp, sessionId, "agent_message_chunk")
      .map((chunk) => (chunk.content.type === "text" ? chunk.content.text : ""))
      .join("");
    expect(text).toContain("Model: gpt-5.2-codex");
    expect(h.model.requests).toEqual([]);
    await expect(h.prompt(acp, "no-such-session", "hello")).rejects.toMatchObject({ code: -32002 });
    await expect(
      acp.agent.request("session/new", { cwd: "relative/dir", mcpServers: [] }),
    ).rejects.toMatchObject({ code: -32602 });
  });
});
