/**
 * A proxy turn that asks a question (an escalated command under on-request) cannot ask its HTTP
 * client: it gets the declared answer at once through the turn driver, and the model reads
 * Codex's rejection. Without it the turn would wait out approval_timeout_ms (here ten minutes).
 */
import { describe, expect, it } from "vitest";
import { functionCall, message, turn } from "../support/fake-model-server.js";
import { useProxyHarness } from "../support/proxy-harness.js";

const h = useProxyHarness({
  extraConfig:
    'sandbox_mode = "workspace-write"\napproval_policy = "on-request"\napproval_timeout_ms = 600000',
});

describe("questions a proxy turn asks", () => {
  it("an approval is denied at once; the model reads the rejection and the response completes", async () => {
    const proxy = await h.startProxy();
    h.model.enqueue(
      turn(
        functionCall(
          "shell_command",
          {
            command: "touch escalated.txt",
            sandbox_permissions: "require_escalated",
            justification: "needs it",
          },
          "call_esc",
        ),
      ),
      turn(message("Understood.")),
    );
    const response = await proxy.client().responses.create({ model: "m", input: "do it" });
    expect(response.output_text).toBe("Understood.");
    const output = h.model.requests[1]?.input.find(
      (item) => item.type === "function_call_output" && item.call_id === "call_esc",
    );
    expect(output).toMatchObject({ output: "exec command rejected by user" });
  });
});
