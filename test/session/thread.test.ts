/**
 * The turn loop with an injected model (no HTTP): ordering of outputs, parallel dispatch,
 * unknown tools, fatal errors, retries that restart a stream, and interrupts.
 */

import { describe, expect, it } from "vitest";
import type { ModelClient } from "../../src/model/types.js";
import type { Event } from "../../src/protocol/events.js";
import type { ResponseItem } from "../../src/protocol/items.js";
import { NO_EXTENT, permissionsFromSandboxMode } from "../../src/protocol/permissions-legacy.js";
import { Thread } from "../../src/session/thread.js";
import { runsAsIs, type ToolDefinition, ToolError, type ToolInvocation } from "../../src/tools/types.js";
import { call, completed, message, scriptedClient } from "../support/scripted-model.js";
import { testThreadServices } from "../support/thread-services.js";

function echoTool(
  name: string,
  opts: { parallel: boolean; delayMs?: (args: { n: number }) => number; log?: string[] },
): ToolDefinition {
  return {
    spec: { type: "function", name, description: "test", strict: false, parameters: { type: "object" } },
    supportsParallel: opts.parallel,
    handler: {
      kinds: ["function"],
      prepare: async (inv: ToolInvocation) =>
        runsAsIs(async () => {
          const args = JSON.parse(inv.payload.kind === "function" ? inv.payload.arguments : "{}") as {
            n: number;
          };
          opts.log?.push(`start ${args.n}`);
          await new Promise((resolve) => setTimeout(resolve, opts.delayMs?.(args) ?? 0));
          opts.log?.push(`end ${args.n}`);
          return { content: `echo ${args.n}` };
        }),
    },
  };
}

function makeThread(client: ModelClient, tools: ToolDefinition[], parallel = true): Thread {
  const services = testThreadServices(client, tools, { parallelToolCalls: parallel });
  return new Thread("t-1", services, {
    cwd: "/tmp",
    approvalPolicy: "never",
    permissions: permissionsFromSandboxMode("read-only"),
    configuredExtent: NO_EXTENT,
  });
}

function outputsOf(items: readonly ResponseItem[]): unknown[] {
  return items
    .filter((item) => item.type === "function_call_output")
    .map((item) => item.type === "function_call_output" && [item.call_id, item.output]);
}

describe("Thread turn loop", () => {
  it("runs parallel calls concurrently and records outputs in call order", async () => {
    const log: string[] = [];
    const client = scriptedClient([
      () => [call("echo", { n: 1 }, "c1"), call("echo", { n: 2 }, "c2"), completed()],
      () => [message("done"), completed()],
    ]);
    const thread = makeThread(client, [
      echoTool("echo", { parallel: true, log, delayMs: ({ n }) => (n === 1 ? 40 : 0) }),
    ]);
    const result = await thread.run({ text: "go" });
    expect(result.status).toBe("completed");
    expect(result.finalResponse).toBe("done");
    expect(log).toEqual(["start 1", "start 2", "end 2", "end 1"]);
    expect(outputsOf(result.items)).toEqual([
      ["c1", "echo 1"],
      ["c2", "echo 2"],
    ]);
    // Second request: calls first, then outputs, in call order.
    const tail = client.prompts[1]?.input.slice(-4).map((item) => item.type);
    expect(tail).toEqual(["function_call", "function_call", "function_call_output", "function_call_output"]);
  });

  it("runs calls one by one when a tool is not parallel-safe", async () => {
    const log: string[] = [];
    const client = scriptedClient([
      () => [call("seq", { n: 1 }, "c1"), call("seq", { n: 2 }, "c2"), completed()],
      () => [message("ok"), completed()],
    ]);
    const thread = makeThread(client, [
      echoTool("seq", { parallel: false, log, delayMs: ({ n }) => (n === 1 ? 20 : 0) }),
    ]);
    await thread.run({ text: "go" });
    expect(log).toEqual(["start 1", "end 1", "start 2", "end 2"]);
  });

  it("answers an unknown tool with `unsupported call` and goes on", async () => {
    const client = scriptedClient([
      () => [call("nope", {}, "c1"), completed()],
      () => [message("fine"), completed()],
    ]);
    const result = await makeThread(client, []).run({ text: "go" });
    expect(outputsOf(result.items)).toEqual([["c1", "unsupported call: nope"]]);
    expect(result.finalResponse).toBe("fine");
  });

  it("turns a respond-to-model ToolError into the output and a fatal one into a failed turn", async () => {
    const failing = (kind: "respond" | "fatal"): ToolDefinition => ({
      ...echoTool("bad", { parallel: false }),
      handler: {
        kinds: ["function"],
        prepare: async () =>
          runsAsIs(async () => {
            throw new ToolError(`broken ${kind}`, kind);
          }),
      },
    });
    const soft = scriptedClient([
      () => [call("bad", {}, "c1"), completed()],
      () => [message("ok"), completed()],
    ]);
    const softResult = await makeThread(soft, [failing("respond")]).run({ text: "go" });
    expect(outputsOf(softResult.items)).toEqual([["c1", "broken respond"]]);

    const hard = scriptedClient([() => [call("bad", {}, "c1"), completed()]]);
    const events: Event[] = [];
    const thread = makeThread(hard, [failing("fatal")]);
    thread.subscribe((event) => events.push(event));
    const hardResult = await thread.run({ text: "go" });
    expect(hardResult.status).toBe("failed");
    expect(hardResult.error).toBe("broken fatal");
    expect(events.map((event) => event.type)).toContain("turn_failed");
    // The call still has an output, so the next request is valid.
    expect(outputsOf(thread.history)).toEqual([["c1", "fatal error: broken fatal"]]);
  });

  it("discards a partial attempt when the stream restarts", async () => {
    const client = scriptedClient([
      () => [call("echo", { n: 1 }, "c1"), { type: "stream_restart" }, message("after restart"), completed()],
    ]);
    const log: string[] = [];
    const result = await makeThread(client, [echoTool("echo", { parallel: true, log })]).run({ text: "go" });
    expect(log).toEqual([]);
    expect(result.finalResponse).toBe("after restart");
  });

  it("opens history with the context items, then the prompt", async () => {
    const client = scriptedClient([() => [message("hi"), completed()]]);
    await makeThread(client, []).run({ text: "hello" });
    const input = client.prompts[0]?.input ?? [];
    const texts = input.map((item) =>
      item.type === "message" && item.content[0]?.type === "input_text"
        ? `${item.role}:${item.content[0].text}`
        : item.type,
    );
    expect(texts).toHaveLength(3);
    expect(texts[0]).toMatch(
      /^developer:<permissions instructions>\n[\s\S]*\[sandbox_mode=read-only; approval_policy=never; network=restricted\]\n<\/permissions instructions>$/,
    );
    expect(texts[1]).toBe(
      "user:<environment_context>\n  <cwd>/tmp</cwd>\n  <shell>bash</shell>\n</environment_context>",
    );
    expect(texts[2]).toBe("user:hello");
    expect(client.prompts[0]?.instructions).toBe("base");
  });

  it("interrupt aborts a running tool and records a turn_aborted message", async () => {
    let started!: () => void;
    const running = new Promise<void>((resolve) => {
      started = resolve;
    });
    const blocking: ToolDefinition = {
      ...echoTool("block", { parallel: false }),
      handler: {
        kinds: ["function"],
        prepare: async (inv) =>
          runsAsIs(
            () =>
              new Promise((resolve) => {
                started();
                inv.turn.signal.addEventListener("abort", () => resolve({ content: "killed" }));
              }),
          ),
      },
    };
    const client = scriptedClient([() => [call("block", {}, "c1"), completed()]]);
    const thread = makeThread(client, [blocking]);
    const pending = thread.run({ text: "go" });
    await running;
    thread.interrupt();
    const result = await pending;
    expect(result.status).toBe("interrupted");
    const last = thread.history.at(-1);
    expect(
      last?.type === "message" && last.content[0] && "text" in last.content[0] && last.content[0].text,
    ).toContain("<turn_aborted>");
    expect(outputsOf(thread.history)).toEqual([["c1", "killed"]]);
  });
});
