/**
 * Library client tools end to end: tools given to startThread or to one run() reach the model as
 * function tools; their handlers run in process and their answers go back to the model.
 */
import { describe, expect, it } from "vitest";
import { type Event, Tscodex } from "../../src/index.js";
import { CLIENT_TOOL_FAILED_MARKER } from "../../src/tools/client-tools.js";
import { useExecHarness } from "../support/exec-harness.js";
import { functionCall, message, turn } from "../support/fake-model-server.js";

const h = useExecHarness({ git: false, key: "lib-key" });
const agent = () => new Tscodex({ home: h.home, env: h.libraryEnv() });

function outputOf(requestIndex: number, callId: string): unknown {
  const item = h.server.requests[requestIndex]?.input.find(
    (entry) => entry.type === "function_call_output" && entry.call_id === callId,
  );
  return item?.type === "function_call_output" ? item.output : undefined;
}

describe("library client tools", () => {
  it("runs a handler in process; a throw is a failed call the model reads", async () => {
    const seen: unknown[] = [];
    const thread = agent().startThread({
      cwd: h.work,
      tools: [
        {
          name: "lookup_weather",
          description: "Weather for a city.",
          parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
          handler: (args, context) => {
            seen.push([args, context.callId]);
            const { city } = args as { city: string };
            if (city === "Nowhere") throw new Error("unknown city");
            return `sunny in ${city}`;
          },
        },
      ],
    });
    h.server.enqueue(
      turn(functionCall("lookup_weather", { city: "Paris" }, "call_1")),
      turn(functionCall("lookup_weather", { city: "Nowhere" }, "call_2")),
      turn(message("done")),
    );
    const result = await thread.run("weather?");
    expect(result.finalResponse).toBe("done");
    expect(h.server.requests[0]?.toolNames.at(-1)).toBe("lookup_weather");
    expect(outputOf(1, "call_1")).toBe("sunny in Paris");
    expect(outputOf(2, "call_2")).toBe(`${CLIENT_TOOL_FAILED_MARKER}unknown city`);
    expect(seen).toEqual([
      [{ city: "Paris" }, "call_1"],
      [{ city: "Nowhere" }, "call_2"],
    ]);
  });

  it("run(prompt, { tools }) replaces the set from that turn on; a tool without handler is answered from the stream", async () => {
    const thread = agent().startThread({
      cwd: h.work,
      tools: [{ name: "alpha", handler: () => "a" }],
    });
    h.server.enqueue(turn(message("one")), turn(functionCall("beta", {}, "call_b")), turn(message("two")));
    await thread.run("1");
    const stream = thread.runStreamed("2", {
      tools: [{ name: "beta", description: "answered by the caller" }],
    });
    const events: Event[] = [];
    for await (const event of stream) {
      events.push(event);
      if (event.type === "client_tool_call_request") {
        expect(
          await thread.respondToTool(event.call_id, {
            contentItems: [{ type: "inputText", text: "b!" }],
            success: true,
          }),
        ).toBe(true);
      }
    }
    expect((await stream.result()).finalResponse).toBe("two");
    expect(
      h.server.requests.map((request) =>
        request.toolNames.filter((name) => name === "alpha" || name === "beta"),
      ),
    ).toEqual([["alpha"], ["beta"], ["beta"]]);
    expect(outputOf(2, "call_b")).toBe("b!");
    expect(events.find((event) => event.type === "client_tool_call_end")).toMatchObject({
      tool: "beta",
      call_id: "call_b",
    });
  });

  it("refuses a tool named like a built-in with an error naming both", async () => {
    const thread = agent().startThread({
      cwd: h.work,
      tools: [{ name: "shell_command", handler: () => "" }],
    });
    await expect(thread.run("go")).rejects.toThrow(
      "client tool `shell_command` clashes with the built-in tool `shell_command`; rename the client tool",
    );
  });

  it("outputSchema asks for JSON matching the schema", async () => {
    const schema = {
      type: "object",
      properties: { ok: { type: "boolean" } },
      required: ["ok"],
      additionalProperties: false,
    };
    h.server.enqueue(turn(message('{"ok":true}')));
    const result = await agent().startThread({ cwd: h.work }).run("check", { outputSchema: schema });
    expect(JSON.parse(result.finalResponse ?? "")).toEqual({ ok: true });
    expect(h.server.requests[0]?.body.text).toMatchObject({
      format: { type: "json_schema", name: "codex_output_schema", schema, strict: true },
    });
  });
});
