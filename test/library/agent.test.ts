/**
 * The library API end to end: `new Tscodex().startThread().runStreamed()` against the fake
 * model server, over real HTTP.
 */
import { describe, expect, it } from "vitest";
import { type Event, Tscodex } from "../../src/index.js";
import { useExecHarness } from "../support/exec-harness.js";
import { functionCall, message, turn, usage } from "../support/fake-model-server.js";

const h = useExecHarness({ git: false, key: "lib-key" });

const agent = () => new Tscodex({ home: h.home, env: h.libraryEnv() });

describe("library API", () => {
  it("streams a turn's events and returns its result", async () => {
    h.server.enqueue(
      turn(functionCall("shell_command", { command: "echo from-lib" }, "call_1")),
      turn(message("finished"), usage({ input: 7, output: 3 })),
    );
    const thread = agent().startThread({ cwd: h.work, sandboxMode: "danger-full-access" });
    const stream = thread.runStreamed("run it");
    const events: Event[] = [];
    for await (const event of stream) events.push(event);
    const result = await stream.result();
    expect(result).toMatchObject({
      status: "completed",
      finalResponse: "finished",
      usage: { input_tokens: 7 },
    });
    const types = events.map((event) => event.type);
    expect(types[0]).toBe("turn_started");
    expect(types).toContain("exec_command_begin");
    expect(types).toContain("exec_command_end");
    expect(types.at(-1)).toBe("turn_complete");
    const end = events.find((event) => event.type === "exec_command_end");
    expect(end).toMatchObject({ exit_code: 0, aggregated_output: "from-lib\n" });
    expect(h.server.requests[0]?.headers).toMatchObject({
      originator: "tscodex_sdk",
      authorization: "Bearer lib-key",
    });
    expect(h.server.requests[0]?.headers.session_id).toBe(thread.id);
  });

  it("continues the thread with its full history on the next run", async () => {
    h.server.enqueue(turn(message("first answer")), turn(message("second answer")));
    const thread = agent().startThread({ cwd: h.work });
    expect((await thread.run("one")).finalResponse).toBe("first answer");
    expect((await thread.run("two")).finalResponse).toBe("second answer");
    const second = h.server.requests[1]?.input ?? [];
    const texts = second
      .filter((item) => item.type === "message")
      .map((item) =>
        item.type === "message" && item.content[0] && "text" in item.content[0] ? item.content[0].text : "",
      );
    expect(texts.slice(-3)).toEqual(["one", "first answer", "two"]);
    // The context items open the history once, not once per turn.
    expect(texts.filter((text) => text.startsWith("<environment_context>"))).toHaveLength(1);
  });

  it("fails a turn with a clear error when the provider is unusable", async () => {
    const thread = new Tscodex({ home: h.home, env: {} }).startThread({ cwd: h.work });
    await expect(thread.run("hi")).rejects.toThrow(/no API key for model provider 'fake': set FAKE_KEY/);
  });
});
