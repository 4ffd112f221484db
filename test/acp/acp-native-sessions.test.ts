/**
 * `tscodex acp` sessions over time (issue 42): `session/load` in a new agent process replays the
 * stored thread (the prompt, the command with its output, the answer) before answering, and the
 * next prompt continues it; `session/list` and `session/resume`; `session/close` sends nothing
 * more; an editor that offers its files gets the edit through `fs/write_text_file` against its
 * buffer (the disk untouched).
 */
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { useCodexAcpHarness } from "../support/codex-acp.js";
import { customToolCall, functionCall, message, turn } from "../support/fake-model-server.js";

const h = useCodexAcpHarness();

describe("tscodex acp sessions", () => {
  it("loads a session in a new agent process: the thread replayed as updates, then continued", async () => {
    h.script(
      turn(functionCall("shell_command", { command: "echo from-the-past" }, "call_past")),
      turn(message("it printed")),
      turn(message("still here")),
    );
    const first = await h.native();
    const sessionId = await h.newSession(first, [], "agent-full-access");
    expect((await h.prompt(first, sessionId, "run the echo")).stopReason).toBe("end_turn");
    await first.close();

    const second = await h.native();
    const listed = await second.agent.request("session/list", { cwd: h.work });
    expect(listed.sessions).toContainEqual(
      expect.objectContaining({ sessionId, cwd: h.work, title: "run the echo" }),
    );
    await second.agent.request("session/load", { sessionId, cwd: h.work, mcpServers: [] });
    const replayed = second.updates.filter((note) => note.sessionId === sessionId).map((note) => note.update);
    const kinds = replayed.map((update) => update.sessionUpdate);
    expect(kinds).toContain("user_message_chunk");
    expect(kinds).toContain("agent_message_chunk");
    const user = replayed.find((update) => update.sessionUpdate === "user_message_chunk");
    expect(JSON.stringify(user)).toContain("run the echo");
    const command = h.toolCall(second, sessionId, "call_past");
    expect(command).toMatchObject({ kind: "execute", status: "completed" });
    expect(JSON.stringify(command)).toContain("from-the-past");
    // Replayed in order: the prompt, the command, the answer.
    const order = ["user_message_chunk", "tool_call", "agent_message_chunk"].map((kind) =>
      kinds.indexOf(kind as never),
    );
    expect([...order].sort((a, b) => a - b)).toEqual(order);

    expect((await h.prompt(second, sessionId, "and now?")).stopReason).toBe("end_turn");
    const input = JSON.stringify(h.model.requests.at(-1)?.input);
    expect(input).toContain("run the echo");
    expect(input).toContain("from-the-past");
    expect(input).toContain("and now?");
  });

  it("resumes a session quietly, and sends nothing for a session after it is closed", async () => {
    h.script(turn(message("first answer")), turn(message("second answer")));
    const acp = await h.native();
    const sessionId = await h.newSession(acp);
    await h.prompt(acp, sessionId, "one");
    await acp.agent.request("session/close", { sessionId });
    const before = acp.updates.length;
    await expect(h.prompt(acp, sessionId, "after close")).rejects.toMatchObject({ code: -32002 });
    await acp.agent.request("session/resume", { sessionId, cwd: h.work, mcpServers: [] });
    // Resume replays nothing (its commands come, after the answer).
    expect(
      acp.updates.slice(before).filter((note) => note.update.sessionUpdate !== "available_commands_update"),
    ).toEqual([]);
    expect((await h.prompt(acp, sessionId, "two")).stopReason).toBe("end_turn");
    expect(JSON.stringify(h.model.requests.at(-1)?.input)).toContain("first answer");
  });

  it("edits through the editor's buffer when the client offers its files", async () => {
    const path = join(h.work, "notes.txt");
    await writeFile(path, "disk text\n");
    // The editor holds unsaved changes: its buffer differs from the disk.
    const buffers = new Map([[path, "buffer line\n"]]);
    const writes: string[] = [];
    const patch =
      "*** Begin Patch\n*** Update File: notes.txt\n@@\n-buffer line\n+edited line\n*** End Patch\n";
    h.script(turn(customToolCall("apply_patch", patch, "call_edit")), turn(message("edited")));
    const acp = await h.native({
      files: {
        read: (file) => buffers.get(file) ?? null,
        write: (file, content) => {
          writes.push(file);
          buffers.set(file, content);
        },
      },
    });
    const sessionId = await h.newSession(acp, [], "agent-full-access");
    expect((await h.prompt(acp, sessionId, "edit the notes")).stopReason).toBe("end_turn");
    expect(writes).toEqual([path]);
    expect(buffers.get(path)).toBe("edited line\n");
    expect(await readFile(path, "utf8")).toBe("disk text\n");
    expect(h.toolCall(acp, sessionId, "call_edit")).toMatchObject({ kind: "edit", status: "completed" });
  });
});
