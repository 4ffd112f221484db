/**
 * A sub-agent's approval question reaches the library's front-end as the parent's, with the
 * child's own call id and an `agent_id` naming the child (no routing data in the id); the
 * answer, given with that field, reaches the child, whose command then runs.
 */
import { afterEach, describe, expect, it } from "vitest";
import { type ApprovalRequestEvent, Tscodex } from "../../src/index.js";
import { messageText, type ResponseItem } from "../../src/protocol/items.js";
import { callOutputs, useExecHarness } from "../support/exec-harness.js";
import { functionCall, message, turn } from "../support/fake-model-server.js";

const h = useExecHarness({ git: false, key: "k" });

const opened: Tscodex[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((agent) => agent.close()));
});

const isChild = (input: readonly ResponseItem[]) =>
  input.some((item) => item.type === "message" && item.role === "user" && messageText(item) === "task X");

describe("forwarded questions", () => {
  it("a child's approval carries agent_id and its own call id; the answer reaches the child", async () => {
    for (let i = 0; i < 6; i++) {
      h.server.enqueue((request) => {
        const outputs = callOutputs(request.input);
        if (isChild(request.input)) {
          if (!outputs.run_x)
            return turn(
              functionCall("shell_command", { command: "touch child-marker && echo child-ran" }, "run_x"),
            );
          return turn(message(`child saw: ${String(outputs.run_x).includes("child-ran")}`));
        }
        if (!outputs.s1) return turn(functionCall("spawn_agent", { message: "task X" }, "s1"));
        if (!outputs.w1) {
          const id = (JSON.parse(String(outputs.s1)) as { agent_id: string }).agent_id;
          return turn(functionCall("wait", { ids: [id], timeout_ms: 20000 }, "w1"));
        }
        return turn(message(`parent got: ${String(outputs.w1)}`));
      });
    }
    const asked: ApprovalRequestEvent[] = [];
    const agent = new Tscodex({ home: h.home, env: h.libraryEnv(), config: { "features.collab": true } });
    opened.push(agent);
    const thread = agent.startThread({
      cwd: h.work,
      approvalPolicy: "untrusted",
      sandboxMode: "danger-full-access",
      onApproval: (request) => {
        asked.push(request);
        return "approved";
      },
    });
    const result = await thread.run("delegate");
    expect(result.status).toBe("completed");
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatchObject({ type: "exec_approval_request", call_id: "run_x" });
    expect(asked[0]?.agent_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(result.finalResponse).toContain("child saw: true");
  });
});
