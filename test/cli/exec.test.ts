/**
 * `tscodex exec` end to end: the built CLI against the fake model server, on both wires.
 */
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import { runCli } from "../support/cli.js";
import { callOutputs, useExecHarness } from "../support/exec-harness.js";
import { functionCall, message, reasoning, turn, usage } from "../support/fake-model-server.js";
import { zeroTiming } from "../support/timing.js";
import { tmpdir } from "../support/tmpdir.js";
import { DEFAULT_TOOLS } from "../support/tool-names.js";

const h = useExecHarness();
beforeEach(async () => {
  await writeFile(join(h.work, "AGENTS.md"), "# Project rules\nAlways be nice.\n");
});

/** The multi-turn task of the issue: parallel shell calls, a plan, a bad call, an unknown tool. */
function enqueueTask(): void {
  h.server.enqueue(
    turn(
      reasoning("Planning the work"),
      functionCall("shell_command", { command: "echo hello && exit 2" }, "call_1"),
      functionCall("shell_command", { command: "printf 'a\\nb'" }, "call_2"),
      usage({ input: 100, output: 20, cached: 10 }),
    ),
    turn(
      functionCall(
        "update_plan",
        {
          plan: [
            { step: "inspect", status: "completed" },
            { step: "report", status: "in_progress" },
          ],
        },
        "call_3",
      ),
      functionCall("update_plan", { plan: [{ step: "x", status: "done" }] }, "call_4"),
      functionCall("no_such_tool", {}, "call_5"),
      functionCall("shell_command", "not json", "call_6"),
      usage({ input: 200, output: 10 }),
    ),
    turn(message("All done."), usage({ input: 300, output: 5 })),
  );
}

describe("tscodex exec on the Responses wire", () => {
  it("runs a multi-turn task and sends Codex's request layout and output strings", async () => {
    enqueueTask();
    const result = await h.exec(["do the task"]);
    expect(result.stderr).toContain("All done.");
    expect(result.code).toBe(0);
    expect(result.stdout).toBe("All done.\n");
    expect(h.server.errors).toEqual([]);
    expect(h.server.requests).toHaveLength(3);

    const [first, second, third] = h.server.requests;
    expect(first?.path).toBe("/v1/responses");
    expect(first?.headers).toMatchObject({
      authorization: "Bearer sk-test",
      accept: "text/event-stream",
      originator: "tscodex_exec",
      "x-oai-web-search-eligible": "true",
    });
    const sessionId = first?.headers.session_id;
    expect(sessionId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7/);
    expect(first?.body).toMatchObject({
      model: "gpt-5.2-codex",
      tool_choice: "auto",
      parallel_tool_calls: true,
      reasoning: { effort: "medium", summary: "auto" },
      store: false,
      stream: true,
      include: ["reasoning.encrypted_content"],
      prompt_cache_key: sessionId,
    });
    expect(first?.body.instructions).toMatch(/^You are tscodex, a coding agent/);
    expect(first?.toolNames).toEqual(DEFAULT_TOOLS);

    // Input layout: permissions, AGENTS.md, environment, prompt.
    const texts = (first?.input ?? []).map((item) =>
      item.type === "message" && item.content[0]?.type === "input_text"
        ? [item.role, item.content[0].text]
        : [item.type],
    );
    expect(texts).toHaveLength(4);
    expect(texts[0]?.[0]).toBe("developer");
    expect(texts[0]?.[1]).toContain("[sandbox_mode=read-only; approval_policy=never; network=restricted]");
    expect(texts[1]).toEqual([
      "user",
      `# AGENTS.md instructions for ${h.work}\n\n<INSTRUCTIONS>\n# Project rules\nAlways be nice.\n\n</INSTRUCTIONS>`,
    ]);
    expect(texts[2]).toEqual([
      "user",
      `<environment_context>\n  <cwd>${h.work}</cwd>\n  <shell>bash</shell>\n</environment_context>`,
    ]);
    expect(texts[3]).toEqual(["user", "do the task"]);

    // Full history resent: calls (without ids) then outputs in call order.
    const secondTail = second?.input.slice(4).map((item) => item.type);
    expect(secondTail).toEqual([
      "reasoning",
      "function_call",
      "function_call",
      "function_call_output",
      "function_call_output",
    ]);
    expect(second?.input.some((item) => "id" in item && item.type === "function_call")).toBe(false);
    expect(timed(callOutputs(second?.input ?? []))).toEqual({
      call_1: "Exit code: 2\nWall time: 0 seconds\nOutput:\nhello\n",
      call_2: "Exit code: 0\nWall time: 0 seconds\nOutput:\na\nb",
    });
    expect(timed(callOutputs(third?.input ?? []))).toMatchObject({
      call_3: "Plan updated",
      call_4:
        "failed to parse function arguments: unknown variant `done`, expected one of `pending`, `in_progress`, `completed` at line 1 column 36",
      call_5: "unsupported call: no_such_tool",
      call_6: "failed to parse function arguments: expected ident at line 1 column 2",
    });
    expect(result.stderr).toContain("tokens used\n635");
  });

  it("--json emits Codex's exec event stream", async () => {
    enqueueTask();
    const result = await h.exec(["--json", "do the task"]);
    expect(result.code).toBe(0);
    const events = result.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    const summary = events.map((event) => {
      const item = event.item as { type?: string; status?: string } | undefined;
      return item ? `${event.type}:${item.type}${item.status ? `:${item.status}` : ""}` : String(event.type);
    });
    // The parallel pair may finish in either order.
    const normalized = [...summary.slice(0, 5), ...summary.slice(5, 7).sort(), ...summary.slice(7)];
    expect(normalized).toEqual([
      "thread.started",
      "turn.started",
      "item.completed:reasoning",
      "item.started:command_execution:in_progress",
      "item.started:command_execution:in_progress",
      "item.completed:command_execution:completed",
      "item.completed:command_execution:failed",
      "item.started:todo_list",
      "item.completed:agent_message",
      "item.completed:todo_list",
      "turn.completed",
    ]);
    expect(events[0]).toEqual({
      type: "thread.started",
      thread_id: h.server.requests[0]?.headers.session_id,
    });
    expect(events.find((event) => (event.item as { exit_code?: number })?.exit_code === 2)).toMatchObject({
      item: {
        command: "/bin/bash -lc 'echo hello && exit 2'",
        aggregated_output: "hello\n",
        exit_code: 2,
      },
    });
    expect(events.at(-3)).toMatchObject({ item: { type: "agent_message", text: "All done." } });
    expect(events.at(-1)).toEqual({
      type: "turn.completed",
      usage: { input_tokens: 600, cached_input_tokens: 10, output_tokens: 35, reasoning_output_tokens: 0 },
    });
  });

  it("reads the prompt from stdin, attaches images and writes --output-last-message", async () => {
    const png = Buffer.from(
      "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==",
      "base64",
    );
    await writeFile(join(h.work, "dot.png"), png);
    h.server.enqueue(turn(message("seen")));
    const last = join(h.work, "last.txt");
    const result = await h.exec(["-i", "dot.png", "-o", last], { stdin: "describe the image\n" });
    expect(result.code).toBe(0);
    expect(await readFile(last, "utf8")).toBe("seen");
    const prompt = h.server.requests[0]?.input.at(-1);
    expect(prompt).toEqual({
      type: "message",
      role: "user",
      content: [
        { type: "input_text", text: "describe the image" },
        { type: "input_image", image_url: `data:image/png;base64,${png.toString("base64")}` },
      ],
    });
  });

  it("--output-schema: the schema goes to the model as strict json_schema and the JSON answer is the final message", async () => {
    const schema = {
      type: "object",
      properties: { ok: { type: "boolean" } },
      required: ["ok"],
      additionalProperties: false,
    };
    await writeFile(join(h.work, "schema.json"), JSON.stringify(schema));
    h.server.enqueue(turn(message('{"ok":true}')));
    const result = await h.exec(["--output-schema", join(h.work, "schema.json"), "check it"]);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('{"ok":true}\n');
    expect(h.server.requests[0]?.body.text).toMatchObject({
      format: { type: "json_schema", name: "codex_output_schema", schema, strict: true },
    });

    await writeFile(join(h.work, "bad.json"), "[1, 2]");
    const bad = await h.exec(["--output-schema", join(h.work, "bad.json"), "check it"]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain(
      `--output-schema: ${join(h.work, "bad.json")} must hold a JSON object (a JSON Schema)`,
    );
    const missing = await h.exec(["--output-schema", join(h.work, "none.json"), "check it"]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain(`--output-schema: cannot read ${join(h.work, "none.json")}`);
    expect(h.server.requests).toHaveLength(1);
  });

  it("refuses to run outside a git repo unless told to, and explains a missing key", async () => {
    const outside = await tmpdir();
    try {
      const refused = await runCli(["exec", "hi"], {
        cwd: outside.path,
        home: h.home,
        env: { FAKE_KEY: "k" },
      });
      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(/is not inside a git repository; .*--skip-git-repo-check/);
      // An empty home: the embedded default config (OpenAI) without its key.
      const noKey = await runCli(["exec", "--skip-git-repo-check", "hi"], {
        cwd: outside.path,
        home: outside.path,
      });
      expect(noKey.code).toBe(1);
      expect(noKey.stderr.trim().split("\n")).toHaveLength(1);
      expect(noKey.stderr).toMatch(/no API key for model provider 'openai': set OPENAI_API_KEY/);
    } finally {
      await outside.cleanup();
    }
    expect(h.server.requests).toHaveLength(0);
  });

  it("reports a bad config precisely", async () => {
    await writeFile(join(h.home, "config.toml"), 'approval_policy = "sometimes"\n');
    const result = await h.exec(["hi"]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`${join(h.home, "config.toml")}: key 'approval_policy':`);
  });
});

describe("tscodex exec on the chat wire", () => {
  it("runs the same task with chat messages and tool calls", async () => {
    await h.writeConfig({ wireApi: "chat" });
    enqueueTask();
    const result = await h.exec(["do the task"]);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe("All done.\n");
    expect(h.server.requests.map((request) => request.path)).toEqual([
      "/v1/chat/completions",
      "/v1/chat/completions",
      "/v1/chat/completions",
    ]);
    const first = h.server.requests[0];
    expect(Object.keys(first?.body ?? {}).sort()).toEqual(["messages", "model", "stream", "tools"]);
    // On chat, apply_patch is offered as a function (Codex drops the custom tool).
    expect(first?.toolNames).toEqual(DEFAULT_TOOLS);
    expect(first?.messages.map((m) => m.role)).toEqual(["system", "developer", "user", "user", "user"]);
    expect(first?.messages.at(-1)).toEqual({ role: "user", content: "do the task" });
    const third = h.server.requests[2]?.messages ?? [];
    const toolMessages = third.filter((m) => m.role === "tool");
    expect(toolMessages.map((m) => [m.tool_call_id, zeroTiming(m.content)])).toEqual([
      ["call_1", "Exit code: 2\nWall time: 0 seconds\nOutput:\nhello\n"],
      ["call_2", "Exit code: 0\nWall time: 0 seconds\nOutput:\na\nb"],
      ["call_3", "Plan updated"],
      [
        "call_4",
        "failed to parse function arguments: unknown variant `done`, expected one of `pending`, `in_progress`, `completed` at line 1 column 36",
      ],
      ["call_5", "unsupported call: no_such_tool"],
      ["call_6", "failed to parse function arguments: expected ident at line 1 column 2"],
    ]);
    const assistantCalls = third.filter((m) => m.role === "assistant");
    expect(assistantCalls).toHaveLength(2);
    expect(assistantCalls[0]?.tool_calls).toHaveLength(2);
  });
});

/** Outputs with the wall time zeroed: a loaded machine may print 0.1 (the format is still checked). */
function timed(outputs: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(outputs).map(([id, output]) => [id, zeroTiming(output)]));
}
