/**
 * replayUpdates: a thread written by a real `tscodex exec` run (fake model, a command, an
 * answer), read back through the store, gives what an ACP `session/load` replays: the user's
 * prompt as a user chunk, the command as one `tool_call` already completed with its output and
 * exit code (Zed's terminal extension after it), the edit as a completed `tool_call` with its
 * diff, then the answer as an agent chunk.
 */
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import type { SessionUpdate } from "@agentclientprotocol/sdk";
import { describe, expect, it } from "vitest";
import { replayUpdates } from "../../src/frontends/acp/replay.js";
import { readRollout } from "../../src/store/index.js";
import { useExecHarness } from "../support/exec-harness.js";
import { functionCall, message, turn } from "../support/fake-model-server.js";

// Full access: the command needs no sandbox, so the test runs on any machine.
const h = useExecHarness({ execArgs: ["-s", "danger-full-access"] });

const PATCH = "*** Begin Patch\n*** Add File: notes.txt\n+first line\n*** End Patch\n";

async function rolloutPath(home: string): Promise<string> {
  const entries = await readdir(join(home, "sessions"), { recursive: true, withFileTypes: true });
  const files = entries.filter((entry) => entry.isFile() && entry.name.endsWith(".jsonl"));
  expect(files).toHaveLength(1);
  const [file] = files;
  if (!file) throw new Error("no rollout");
  return join(file.parentPath, file.name);
}

describe("replayUpdates", () => {
  it("replays a stored exec run: user chunk, completed tool calls with output and diff, agent chunk", async () => {
    h.server.enqueue(
      turn(functionCall("shell_command", { command: "echo replayed-output", login: false }, "call_replay")),
      turn(functionCall("apply_patch", { input: PATCH }, "call_edit")),
      turn(message("It printed replayed-output.")),
    );
    expect((await h.exec(["run the echo"])).code).toBe(0);
    const stored = await readRollout(await rolloutPath(h.home));

    const updates = replayUpdates(stored.lines, h.work);
    const kinds = updates.map((update) => update.sessionUpdate);
    expect(kinds).toEqual([
      "user_message_chunk",
      "tool_call",
      "tool_call_update",
      "tool_call",
      "agent_message_chunk",
    ]);
    const [user, call, terminal, edit, answer] = updates as SessionUpdate[];
    expect(user).toMatchObject({ content: { type: "text", text: "run the echo" } });
    expect(call).toEqual({
      sessionUpdate: "tool_call",
      toolCallId: "call_replay",
      title: "echo replayed-output",
      kind: "execute",
      status: "completed",
      rawInput: { command: "echo replayed-output", cwd: h.work },
      locations: [],
      content: [{ type: "content", content: { type: "text", text: "```\nreplayed-output\n```" } }],
      rawOutput: { exit_code: 0, output: "replayed-output\n" },
      _meta: { terminal_info: { terminal_id: "call_replay", cwd: h.work } },
    });
    expect(terminal).toEqual({
      sessionUpdate: "tool_call_update",
      toolCallId: "call_replay",
      _meta: {
        terminal_output_delta: { terminal_id: "call_replay", data: "replayed-output\n" },
        terminal_exit: { terminal_id: "call_replay", exit_code: 0, signal: null },
      },
    });
    expect(edit).toEqual({
      sessionUpdate: "tool_call",
      toolCallId: "call_edit",
      title: "Edit notes.txt",
      kind: "edit",
      status: "completed",
      content: [
        {
          type: "diff",
          path: join(h.work, "notes.txt"),
          oldText: null,
          newText: "first line\n",
          _meta: { kind: "add" },
        },
      ],
      locations: [{ path: join(h.work, "notes.txt") }],
      rawOutput: { output: "Success. Updated the following files:\nA notes.txt\n" },
    });
    expect(answer).toMatchObject({
      sessionUpdate: "agent_message_chunk",
      content: { type: "text", text: "It printed replayed-output." },
    });
  });
});
