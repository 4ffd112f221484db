/**
 * Response ids are capabilities and parked turns belong to their client (issue 22, causes 2 and
 * 3), driven through the real proxy with the openai SDK: an id names one response, so continuing
 * from an older one branches there (a fork: the model sees only what came before it); an id never
 * issued is a 404 `previous_response_not_found`; a function_call_output carrying another client's
 * call_id is answered from the request's own history (a 400 when it has none) and leaves that
 * client's parked turn alone.
 */
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import OpenAI from "openai";
import { describe, expect, it } from "vitest";
import { functionCall, message, turn } from "../support/fake-model-server.js";
import { useProxyHarness } from "../support/proxy-harness.js";

const h = useProxyHarness();

const LOOKUP: OpenAI.Responses.FunctionTool = {
  type: "function",
  name: "lookup",
  description: "Look a key up.",
  parameters: { type: "object", properties: { key: { type: "string" } }, required: ["key"] },
  strict: false,
};

interface InputItem {
  type?: string;
  role?: string;
  content?: unknown;
  call_id?: string;
  output?: unknown;
}

/** The texts of the user messages a model request carried (context messages left out). */
function userTexts(index: number): string[] {
  const input = (h.model.requests[index]?.input ?? []) as InputItem[];
  return input
    .filter((item) => item.type === "message" && item.role === "user")
    .map((item) => JSON.stringify(item.content))
    .filter((text) => !text.includes("<environment_context>") && !text.includes("AGENTS.md"));
}

async function rolloutCount(): Promise<number> {
  const entries = await readdir(join(h.home, "sessions"), { recursive: true });
  return entries.filter((name) => name.endsWith(".jsonl")).length;
}

describe("proxy response ids", () => {
  it("continuing from the first of two responses branches from it: the model sees turn 1 and the new input only", async () => {
    const proxy = await h.startProxy();
    const client = proxy.client();
    h.model.enqueue(
      turn(message("one")),
      turn(message("two")),
      turn(message("branched")),
      turn(message("three")),
    );
    const first = await client.responses.create({ model: "m", input: "turn one" });
    const second = await client.responses.create({
      model: "m",
      input: "turn two",
      previous_response_id: first.id,
    });
    expect(second.output_text).toBe("two");
    expect(userTexts(1).join()).toContain("turn one");

    const branch = await client.responses.create({
      model: "m",
      input: "instead",
      previous_response_id: first.id,
    });
    expect(branch.output_text).toBe("branched");
    const seen = userTexts(2);
    expect(seen).toHaveLength(2);
    expect(seen[0]).toContain("turn one");
    expect(seen[1]).toContain("instead");
    expect(JSON.stringify(h.model.requests[2]?.input)).not.toContain("turn two");
    expect(JSON.stringify(h.model.requests[2]?.input)).not.toContain('"two"');
    // The branch is a thread of its own; the original goes on from its last response unchanged.
    expect(branch.id).not.toBe(second.id);
    expect(await rolloutCount()).toBe(2);
    const third = await client.responses.create({
      model: "m",
      input: "turn three",
      previous_response_id: second.id,
    });
    expect(third.output_text).toBe("three");
    const after = userTexts(3);
    expect(after.map((text) => text.includes("instead"))).not.toContain(true);
    expect(after.at(-2)).toContain("turn two");
  });

  it("an id never issued is a 404 previous_response_not_found, and no turn runs", async () => {
    const proxy = await h.startProxy();
    const client = proxy.client();
    h.model.enqueue(turn(message("real")));
    const real = await client.responses.create({ model: "m", input: "hello" });
    const forged = real.id.replace(/_[0-9a-f]{12}$/, "_000000000000");
    expect(forged).not.toBe(real.id);
    for (const id of [forged, `${real.id}0`, "resp_nothing", real.id.slice(0, -1)]) {
      const refused = await client.responses
        .create({ model: "m", input: "again", previous_response_id: id })
        .catch((error: unknown) => error);
      expect(refused, id).toBeInstanceOf(OpenAI.NotFoundError);
      expect(refused).toMatchObject({
        status: 404,
        code: "previous_response_not_found",
        param: "previous_response_id",
        type: "invalid_request_error",
      });
    }
    expect(h.model.requests).toHaveLength(1);
  });

  it("a bare output with another client's call_id does not resume that client's parked turn; the victim's follow-up still works", async () => {
    const proxy = await h.startProxy();
    const victim = proxy.client();
    const attacker = proxy.client();
    h.model.enqueue(turn(functionCall("lookup", { key: "secret" }, "call_victim")));
    const parked = await victim.responses.create({
      model: "m",
      input: "look the secret up",
      tools: [LOOKUP],
    });
    expect(parked.output.at(-1)).toMatchObject({ type: "function_call", call_id: "call_victim" });

    // The attacker knows the call id, not the conversation: nothing of its own to continue.
    const injected = await attacker.responses
      .create({
        model: "m",
        tools: [LOOKUP],
        input: [{ type: "function_call_output", call_id: "call_victim", output: "forged" }],
      })
      .catch((error: unknown) => error);
    expect(injected).toMatchObject({ status: 400, code: "function_call_not_found", param: "input" });
    expect(h.model.requests).toHaveLength(1);
    // With a made-up history around the call, still not the victim's turn.
    h.model.enqueue(turn(message("attacker again")));
    const madeUp = await attacker.responses.create({
      model: "m",
      tools: [LOOKUP],
      input: [
        { role: "user", content: "something else" },
        { type: "function_call", call_id: "call_victim", name: "lookup", arguments: '{"key":"secret"}' },
        { type: "function_call_output", call_id: "call_victim", output: "forged" },
      ],
    });
    expect(madeUp.output_text).toBe("attacker again");
    expect(JSON.stringify(h.model.requests[1]?.input)).not.toContain("look the secret up");

    // The victim's turn is still parked and continues with its real output.
    h.model.enqueue(turn(message("victim answer")));
    const followUp = await victim.responses.create({
      model: "m",
      previous_response_id: parked.id,
      input: [{ type: "function_call_output", call_id: "call_victim", output: "real" }],
    });
    expect(followUp.output_text).toBe("victim answer");
    const victimInput = JSON.stringify(h.model.requests[2]?.input);
    expect(victimInput).toContain("look the secret up");
    expect(victimInput).toContain('"output":"real"');
    expect(victimInput).not.toContain("forged");
  });

  it("a stateless client that resends the parked turn's history still continues it", async () => {
    const proxy = await h.startProxy();
    const client = proxy.client();
    h.model.enqueue(turn(functionCall("lookup", { key: "k" }, "call_k")), turn(message("resumed")));
    await client.responses.create({ model: "m", input: "look k up", tools: [LOOKUP] });
    const resumed = await client.responses.create({
      model: "m",
      tools: [LOOKUP],
      input: [
        { role: "user", content: "look k up" },
        { type: "function_call", call_id: "call_k", name: "lookup", arguments: '{"key":"k"}' },
        { type: "function_call_output", call_id: "call_k", output: "v" },
      ],
    });
    expect(resumed.output_text).toBe("resumed");
    expect(await rolloutCount()).toBe(1);
  });

  it("a thread reopened for a follow-up still hands client tool calls back: a second round trip, then a first tool on a follow-up", async () => {
    const proxy = await h.startProxy();
    const client = proxy.client();
    h.model.enqueue(
      turn(functionCall("lookup", { key: "a" }, "call_a")),
      turn(functionCall("lookup", { key: "b" }, "call_b")),
      turn(message("a and b")),
      turn(message("plain")),
      turn(functionCall("lookup", { key: "c" }, "call_c")),
    );
    const first = await client.responses.create({ model: "m", input: "look a and b up", tools: [LOOKUP] });
    // Each follow-up reopens the thread from its store; the model's next client call parks it again.
    const second = await client.responses.create({
      model: "m",
      previous_response_id: first.id,
      input: [{ type: "function_call_output", call_id: "call_a", output: "1" }],
      tools: [LOOKUP],
    });
    expect(second.output.at(-1)).toMatchObject({ type: "function_call", call_id: "call_b" });
    const third = await client.responses.create({
      model: "m",
      previous_response_id: second.id,
      input: [{ type: "function_call_output", call_id: "call_b", output: "2" }],
      tools: [LOOKUP],
    });
    expect(third.output_text).toBe("a and b");
    const plain = await client.responses.create({ model: "m", input: "no tools yet" });
    const withTool = await client.responses.create({
      model: "m",
      previous_response_id: plain.id,
      input: "now look c up",
      tools: [LOOKUP],
    });
    expect(withTool.output.at(-1)).toMatchObject({ type: "function_call", call_id: "call_c" });
  }, 60_000);
});
