/**
 * codex-acp's `session/load` after a restart, on tscodex: a session that ran a command is closed
 * (codex-acp and its app-server exit), and a fresh codex-acp loads it by id. Before answering,
 * codex-acp replays the history from the app-server's `thread/read` / `thread/turns/list`: the
 * user's prompt, the command as a completed `execute` tool call with its output, and the answer.
 * The next prompt continues the thread (the model sees the earlier turn).
 */
import { describe, expect, it } from "vitest";
import { useCodexAcpHarness } from "../support/codex-acp.js";
import { functionCall, message, turn } from "../support/fake-model-server.js";
import { noSandbox } from "../support/skips.js";

// Its command runs sandboxed: a machine without bubblewrap or the Landlock helper skips it.
const unsandboxed = await noSandbox("the ACP replay check");
const h = useCodexAcpHarness();

describe.skipIf(unsandboxed)("codex-acp on tscodex: session/load", () => {
  it("replays a session after a restart, its command as a tool call, and continues it", async () => {
    h.script(
      turn(functionCall("shell_command", { command: "echo before-restart" }, "call_before")),
      turn(message("The command printed before-restart.")),
    );
    const first = await h.client();
    const sessionId = await h.newSession(first);
    expect((await h.prompt(first, sessionId, "run the echo")).stopReason).toBe("end_turn");
    await h.expectEveryCallServed(first);

    h.script(turn(message("Still here.")));
    const second = await h.client();
    await second.agent.request("session/load", { sessionId, cwd: h.work, mcpServers: [] });
    const texts = (kind: "user_message_chunk" | "agent_message_chunk") =>
      h
        .updatesOf(second, sessionId, kind)
        .map((update) => (update.content.type === "text" ? update.content.text : ""))
        .join("");
    expect(texts("user_message_chunk")).toContain("run the echo");
    expect(texts("agent_message_chunk")).toContain("The command printed before-restart.");
    expect(h.toolCall(second, sessionId, "call_before")).toMatchObject({
      kind: "execute",
      status: "completed",
    });
    expect(h.commandOutput(second, sessionId, "call_before")).toContain("before-restart");

    const before = h.model.requests.length;
    expect((await h.prompt(second, sessionId, "are you there?")).stopReason).toBe("end_turn");
    const next = h.model.requests.slice(before).find((request) => request.rawBody.includes("are you there?"));
    expect(JSON.stringify(next?.input)).toContain("run the echo");
    expect(next?.input).toContainEqual(
      expect.objectContaining({ type: "function_call", call_id: "call_before" }),
    );
    const called = await h.expectEveryCallServed(second);
    expect(called).toContain("thread/resume");
  });
});
