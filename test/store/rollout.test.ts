/**
 * Rollout files: the recorder's lines, reading back (torn and invalid lines skipped), appends after
 * a torn line, the store's lookups and fork.
 */
import { appendFile, readFile } from "node:fs/promises";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Event, EventOf } from "../../src/protocol/events.js";
import { emptyUsage, userMessage } from "../../src/protocol/items.js";
import { JsonlThreadStore } from "../../src/store/jsonl-store.js";
import { rolloutPath, type SessionMeta } from "../../src/store/rollout.js";
import { linesUpToTurn, parseRollout, readRollout } from "../../src/store/rollout-reader.js";
import { RolloutRecorder } from "../../src/store/rollout-recorder.js";
import { findRollout, forkRollout, rolloutFiles } from "../../src/store/rollout-store.js";
import { uuidv7 } from "../../src/util/ids.js";
import { type TempDir, tmpdir } from "../support/tmpdir.js";

let home: TempDir;
beforeEach(async () => {
  home = await tmpdir("tscodex-rollout-");
});
afterEach(() => home.cleanup());

function meta(id = uuidv7()): SessionMeta {
  return {
    id,
    created: new Date().toISOString(),
    cwd: "/repo",
    model: "gpt-5.2-codex",
    provider: "fake",
    approval_policy: "never",
    sandbox_mode: "read-only",
    source: "test",
  };
}

const usage = { ...emptyUsage(), input_tokens: 10, output_tokens: 2, total_tokens: 12 };

function turnEvents(turnId: string, prompt: string, answer: string): Event[] {
  return [
    { type: "turn_started", turn_id: turnId, model_context_window: null },
    { type: "raw_response_item", item: userMessage(prompt) },
    { type: "user_message", message: prompt, images: [] },
    {
      type: "raw_response_item",
      item: { type: "message", role: "assistant", content: [{ type: "output_text", text: answer }] },
    },
    { type: "token_count", last: usage, total: usage, model_context_window: null },
    { type: "turn_complete", turn_id: turnId, last_agent_message: answer, usage },
  ];
}

async function recordThread(turns: number, id = uuidv7()): Promise<RolloutRecorder> {
  const recorder = await RolloutRecorder.create(home.path, meta(id));
  for (let i = 0; i < turns; i++)
    for (const event of turnEvents(String(i), `prompt ${i}`, `answer ${i}`)) recorder.recordEvent(event);
  await recorder.close();
  return recorder;
}

describe("RolloutRecorder", () => {
  it("writes the metadata line first, then items and key events, one JSON object per line", async () => {
    const recorder = await recordThread(2);
    expect(recorder.path).toMatch(
      /sessions\/\d{4}\/\d{2}\/\d{2}\/rollout-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-[0-9a-f-]{36}\.jsonl$/,
    );
    const lines = (await readFile(recorder.path, "utf8"))
      .trimEnd()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(lines[0].type).toBe("session_meta");
    expect(lines.map((line) => (line.type === "event" ? line.payload.type : line.type))).toEqual([
      "session_meta",
      ...Array(2)
        .fill([
          "turn_started",
          "response_item",
          "user_message",
          "response_item",
          "token_count",
          "turn_complete",
        ])
        .flat(),
    ]);
    const stored = await readRollout(recorder.path);
    expect(stored).toMatchObject({ turns: 2, firstPrompt: "prompt 0", skippedLines: 0, compactions: 0 });
    expect(stored.usage.total_tokens).toBe(24);
    expect(stored.history).toHaveLength(4);
  });

  it("ignores events it does not keep (deltas, command output)", async () => {
    const recorder = await RolloutRecorder.create(home.path, meta());
    recorder.recordEvent({ type: "agent_message_delta", delta: "x" });
    await recorder.close();
    expect((await readFile(recorder.path, "utf8")).trimEnd().split("\n")).toHaveLength(1);
  });

  it("keeps the ends of tool work, a command's aggregated output only, and reads them back", async () => {
    const recorder = await RolloutRecorder.create(home.path, meta());
    const ends: Event[] = [
      {
        type: "exec_command_end",
        call_id: "c1",
        turn_id: "0",
        command: ["bash", "-lc", "echo hi"],
        cwd: "/repo",
        exit_code: 0,
        duration_ms: 5,
        stdout: "hi\n",
        stderr: "",
        aggregated_output: "hi\n",
        formatted_output: "Exit code: 0\nOutput:\nhi\n",
      },
      {
        type: "patch_apply_end",
        call_id: "p1",
        turn_id: "0",
        stdout: "A a.txt\n",
        stderr: "",
        success: true,
        changes: { "/repo/a.txt": { type: "add", content: "x\n" } },
      },
      {
        type: "mcp_tool_call_end",
        call_id: "m1",
        invocation: { server: "fx", tool: "echo", arguments: { text: "hi" } },
        duration_ms: 3,
        result: { Ok: { content: [{ type: "text", text: "echo: hi" }], isError: false } },
      },
      {
        type: "client_tool_call_end",
        call_id: "t1",
        turn_id: "0",
        tool: "lookup_weather",
        arguments: { city: "Paris" },
        result: { contentItems: [{ type: "inputText", text: "sunny" }], success: true },
        duration_ms: 2,
      },
      { type: "agent_spawned", agent_id: "a1", agent_type: null, message: "count", depth: 1 },
      { type: "agent_finished", agent_id: "a1", status: { completed: "3" } },
    ];
    for (const event of ends) recorder.recordEvent(event);
    await recorder.close();
    const { lines, skipped } = parseRollout(await readFile(recorder.path, "utf8"));
    expect(skipped).toBe(0);
    const {
      stdout: _o,
      stderr: _e,
      formatted_output: _f,
      ...command
    } = ends[0] as EventOf<"exec_command_end">;
    expect(lines.slice(1).map((line) => line.payload)).toEqual([command, ...ends.slice(1)]);
  });

  it("tolerates a torn last line, and appending after it starts a fresh line", async () => {
    const recorder = await recordThread(1);
    await appendFile(recorder.path, '{"timestamp":"x","type":"resp');
    expect((await readRollout(recorder.path)).skippedLines).toBe(1);
    const again = await RolloutRecorder.append(recorder.threadId, recorder.path);
    for (const event of turnEvents("1", "after crash", "fine")) again.recordEvent(event);
    await again.close();
    const stored = await readRollout(recorder.path);
    expect(stored.turns).toBe(2);
    expect(stored.skippedLines).toBe(1);
    expect(stored.history).toHaveLength(4);
  });

  it("skips lines that are JSON but not rollout lines", () => {
    const text = [
      JSON.stringify({ timestamp: "t", type: "session_meta", payload: meta() }),
      JSON.stringify({
        timestamp: "t",
        type: "response_item",
        payload: { type: "function_call", name: "x" },
      }),
      JSON.stringify({ timestamp: "t", type: "mystery", payload: {} }),
      "",
    ].join("\n");
    const { lines, skipped } = parseRollout(text);
    expect(lines).toHaveLength(1);
    expect(skipped).toBe(2);
  });

  it("replays a compaction as the new history", async () => {
    const recorder = await recordThread(1);
    const again = await RolloutRecorder.append(recorder.threadId, recorder.path);
    again.recordEvent({
      type: "context_compacted",
      summary: "s",
      replacement_history: [userMessage("only this")],
    });
    again.recordEvent({ type: "raw_response_item", item: userMessage("then this") });
    await again.close();
    const stored = await readRollout(recorder.path);
    expect(stored.history).toEqual([userMessage("only this"), userMessage("then this")]);
    expect(stored.compactions).toBe(1);
  });

  it("flushes lines recorded in one tick with one write and in order", async () => {
    const recorder = await RolloutRecorder.create(home.path, meta());
    for (let i = 0; i < 500; i++)
      recorder.recordEvent({ type: "raw_response_item", item: userMessage(`m${i}`) });
    await recorder.flush();
    const stored = await readRollout(recorder.path);
    expect(stored.history.map((item) => (item.type === "message" ? item.content[0] : null))).toEqual(
      Array.from({ length: 500 }, (_, i) => ({ type: "input_text", text: `m${i}` })),
    );
    await recorder.close();
  });
});

describe("rollout store", () => {
  it("finds by id or unique prefix, lists newest first, forks a prefix of turns", async () => {
    const a = await recordThread(3, uuidv7(Date.now() - 5000));
    const b = await recordThread(1);
    const ids = (await new JsonlThreadStore(home.path).list()).threads.map((thread) => thread.meta.id);
    expect(ids).toHaveLength(2);
    expect(await rolloutFiles(home.path)).toEqual([b.path, a.path]);
    const aId = /-([0-9a-f-]{36})\.jsonl$/.exec(a.path)?.[1] ?? "";
    expect(await findRollout(home.path, aId)).toBe(a.path);
    expect(await findRollout(home.path, aId.slice(0, 30))).toBe(a.path);
    expect(await findRollout(home.path, "ffffffff")).toBeNull();

    const forked = await forkRollout(home.path, aId, { turns: 2 });
    const stored = await readRollout(forked.path);
    expect(stored.meta).toMatchObject({ id: forked.id, forked_from: aId });
    expect(stored.turns).toBe(2);
    expect(stored.history).toHaveLength(4);
    const all = await forkRollout(home.path, aId);
    expect((await readRollout(all.path)).turns).toBe(3);
    expect(rolloutPath(home.path, "x", new Date(2025, 0, 2, 3, 4, 5))).toMatch(
      /2025\/01\/02\/rollout-2025-01-02T03-04-05-x\.jsonl$/,
    );
  });

  it("names the file in the machine's local time, as Codex does", () => {
    const tz = process.env.TZ;
    try {
      const instant = new Date(Date.UTC(2025, 11, 31, 20, 30, 15));
      process.env.TZ = "Pacific/Kiritimati"; // UTC+14: already the next year
      expect(rolloutPath("/h", "x", instant)).toBe(
        "/h/sessions/2026/01/01/rollout-2026-01-01T10-30-15-x.jsonl",
      );
      process.env.TZ = "America/New_York";
      expect(rolloutPath("/h", "x", instant)).toBe(
        "/h/sessions/2025/12/31/rollout-2025-12-31T15-30-15-x.jsonl",
      );
    } finally {
      if (tz === undefined) delete process.env.TZ;
      else process.env.TZ = tz;
    }
  });

  it("cuts lines before the (N+1)th turn", async () => {
    const recorder = await recordThread(3);
    const { lines } = parseRollout(await readFile(recorder.path, "utf8"));
    expect(linesUpToTurn(lines, 0)).toHaveLength(1);
    expect(linesUpToTurn(lines, 1)).toHaveLength(7);
  });
});
