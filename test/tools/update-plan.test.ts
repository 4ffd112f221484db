import { describe, expect, it } from "vitest";
import type { Event } from "../../src/protocol/events.js";
import { updatePlanTool } from "../../src/tools/builtin/update-plan.js";
import { ToolError, type ToolInvocation, type ToolPayload } from "../../src/tools/types.js";
import { runHandler, testTurnContext } from "../support/turn-context.js";

function invocation(payload: ToolPayload, events: Event[] = []): ToolInvocation {
  const turn = testTurnContext({ sandboxMode: "read-only", emit: (event) => events.push(event) });
  return { callId: "call_1", toolName: "update_plan", payload, turn };
}

const call = (args: string, events?: Event[]) => invocation({ kind: "function", arguments: args }, events);

async function respondMessage(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ToolError);
  expect((error as ToolError).kind).toBe("respond");
  return (error as ToolError).message;
}

describe("update_plan", () => {
  const tool = updatePlanTool();

  it("has Codex's spec shape: no enum on status, strict false", () => {
    expect(tool.supportsParallel).toBe(false);
    expect(tool.spec).toMatchObject({ type: "function", name: "update_plan", strict: false });
    if (tool.spec.type !== "function") throw new Error("not a function tool");
    const params = tool.spec.parameters;
    expect(Object.keys(params)).toEqual(["type", "properties", "required", "additionalProperties"]);
    expect(params.required).toEqual(["plan"]);
    expect(JSON.stringify(params)).not.toContain('"enum"');
    expect(params.properties).toMatchObject({
      explanation: { type: "string" },
      plan: {
        type: "array",
        items: {
          type: "object",
          properties: { status: { type: "string" }, step: { type: "string" } },
          required: ["step", "status"],
          additionalProperties: false,
        },
      },
    });
  });

  it("emits plan_update and answers Plan updated", async () => {
    const events: Event[] = [];
    const args = JSON.stringify({
      explanation: "first pass",
      plan: [
        { step: "read code", status: "completed" },
        { step: "write tests", status: "in_progress" },
      ],
    });
    const inv = call(args, events);
    expect((await tool.handler.prepare(inv)).approval).toBeUndefined();
    await expect(runHandler(tool.handler, inv)).resolves.toEqual({ content: "Plan updated" });
    expect(events).toEqual([
      {
        type: "plan_update",
        explanation: "first pass",
        plan: [
          { step: "read code", status: "completed" },
          { step: "write tests", status: "in_progress" },
        ],
      },
    ]);
  });

  it("accepts an empty plan and a missing or null explanation", async () => {
    const events: Event[] = [];
    await runHandler(tool.handler, call('{"plan":[],"explanation":null}', events));
    await runHandler(tool.handler, call('{"plan":[]}', events));
    expect(events).toEqual([
      { type: "plan_update", explanation: null, plan: [] },
      { type: "plan_update", explanation: null, plan: [] },
    ]);
  });

  it.each([
    ["{}", "failed to parse function arguments: missing field `plan` at line 1 column 2"],
    [
      '{"plan":[{"step":"x","status":"done"}]}',
      "failed to parse function arguments: unknown variant `done`, expected one of `pending`, `in_progress`, `completed` at line 1 column 36",
    ],
    [
      '{"plan":[{"status":"pending"}]}',
      "failed to parse function arguments: missing field `step` at line 1 column 29",
    ],
    ["not json", "failed to parse function arguments: expected ident at line 1 column 2"],
  ])("answers %s like Codex", async (args, expected) => {
    const events: Event[] = [];
    const inv = call(args, events);
    expect(await respondMessage(runHandler(tool.handler, inv))).toBe(expected);
    expect(events).toEqual([]);
  });

  it("rejects other payload kinds", async () => {
    const inv = invocation({ kind: "custom", input: "x" });
    expect(await respondMessage(runHandler(tool.handler, inv))).toBe(
      "update_plan handler received unsupported payload",
    );
  });
});
