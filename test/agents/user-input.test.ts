/**
 * request_user_input answered by each front-end: exec's declared answer (Codex's text, or the
 * first options), the library's callback, and the MCP server's elicitation (accepted, declined).
 */
import { describe, expect, it } from "vitest";
import { Tscodex, type UserQuestion } from "../../src/index.js";
import { USER_INPUT_UNAVAILABLE } from "../../src/tools/builtin/request-user-input.js";
import { useExecHarness } from "../support/exec-harness.js";
import { functionCall, message, turn } from "../support/fake-model-server.js";
import { callTool } from "../support/mcp-client.js";
import { useMcpHarness } from "../support/mcp-harness.js";

const QUESTIONS: UserQuestion[] = [
  {
    id: "color",
    header: "Colour",
    question: "Which colour should the button be?",
    options: [
      { label: "Blue", description: "the brand colour" },
      { label: "Green", description: "stands out" },
    ],
  },
];

const ask = () =>
  [
    turn(functionCall("request_user_input", { questions: QUESTIONS }, "q1")),
    turn(message("thanks")),
  ] as const;

describe("request_user_input through exec and the library", () => {
  const h = useExecHarness({ git: false, key: "k" });

  it("exec answers as Codex does by default; -c user_input.exec_answer=first picks each first option", async () => {
    h.server.enqueue(...ask());
    const plain = await h.exec(["--skip-git-repo-check", "--enable", "collaboration_modes", "pick a colour"]);
    expect(plain.code).toBe(0);
    expect(h.server.requests[0]?.toolNames).toContain("request_user_input");
    expect(h.outputOf(1, "q1")).toBe(USER_INPUT_UNAVAILABLE);

    h.server.enqueue(...ask());
    const first = await h.exec([
      "--skip-git-repo-check",
      "--enable",
      "collaboration_modes",
      "-c",
      "user_input.exec_answer=first",
      "pick a colour",
    ]);
    expect(first.code).toBe(0);
    expect(JSON.parse(h.outputOf(3, "q1"))).toEqual({ answers: { color: { answers: ["Blue"] } } });
  });

  it("the tool is offered only under collaboration_modes, and the library's callback answers", async () => {
    h.server.enqueue(turn(message("no tools")), ...ask());
    const agent = new Tscodex({ home: h.home, env: h.libraryEnv() });
    await agent.startThread({ cwd: h.work }).run("x");
    expect(h.server.requests[0]?.toolNames).not.toContain("request_user_input");

    const asking = new Tscodex({
      home: h.home,
      env: h.libraryEnv(),
      config: { "features.collaboration_modes": true },
    });
    const seen: UserQuestion[][] = [];
    const thread = asking.startThread({
      cwd: h.work,
      onUserInput: (request) => {
        seen.push(request.questions);
        return { answers: { color: { answers: ["Green"] } } };
      },
    });
    expect((await thread.run("pick")).finalResponse).toBe("thanks");
    expect(seen).toEqual([QUESTIONS]);
    expect(JSON.parse(h.outputOf(2, "q1"))).toEqual({ answers: { color: { answers: ["Green"] } } });
    await Promise.all([agent.close(), asking.close()]);
  });
});

describe("request_user_input through the MCP server", () => {
  const h = useMcpHarness();
  const call = () => ({
    prompt: "pick a colour",
    cwd: h.work,
    config: { "features.collaboration_modes": true },
  });
  const lastOutput = () => {
    const item = h.model.requests
      .at(-1)
      ?.input.find((entry) => entry.type === "function_call_output" && entry.call_id === "q1");
    return item?.type === "function_call_output" ? String(item.output) : "";
  };

  it("asks with an elicitation form whose fields are the questions; the answers reach the model", async () => {
    const forms: Record<string, unknown>[] = [];
    const { client } = await h.connect({
      onElicit: (params) => {
        forms.push(params);
        return { action: "accept", content: { color: "Blue" } };
      },
    });
    h.model.enqueue(...ask());
    expect((await callTool(client, "codex", call())).text).toBe("thanks");
    expect(forms[0]).toMatchObject({
      message: "Colour: Which colour should the button be?",
      requestedSchema: {
        type: "object",
        properties: {
          color: {
            type: "string",
            title: "Colour",
            description: "Which colour should the button be?",
            enum: ["Blue", "Green"],
          },
        },
        required: ["color"],
      },
      codex_elicitation: "request-user-input",
    });
    expect(JSON.parse(lastOutput())).toEqual({ answers: { color: { answers: ["Blue"] } } });
  });

  it("a declining client: the model is told the user declined", async () => {
    const { client } = await h.connect({ onElicit: () => ({ action: "decline" }) });
    h.model.enqueue(...ask());
    expect((await callTool(client, "codex", call())).text).toBe("thanks");
    expect(lastOutput()).toBe("the user declined to answer");
  });
});
