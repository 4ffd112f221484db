/**
 * The agent's own tool work through the proxy: shown to the client as reasoning summary text
 * (never as function calls of tools the client does not have), or hidden with --quiet-agent-work.
 */
import { describe, expect, it } from "vitest";
import { functionCall, message, turn } from "../support/fake-model-server.js";
import { useProxyHarness } from "../support/proxy-harness.js";

const h = useProxyHarness({ extraConfig: 'sandbox_mode = "danger-full-access"\napproval_policy = "never"' });

function script(): void {
  h.model.enqueue(
    turn(functionCall("shell_command", { command: "echo from-the-agent" }, "call_sh")),
    turn(message("Done.")),
  );
}

describe("agent work in proxy responses", () => {
  it("shows commands the agent ran as reasoning summary text, not as function calls", async () => {
    const proxy = await h.startProxy();
    script();
    const response = await proxy.client().responses.create({ model: "m", input: "run it" });
    expect(response.output_text).toBe("Done.");
    expect(response.output.some((item) => item.type === "function_call")).toBe(false);
    const summaries = response.output.flatMap((item) =>
      item.type === "reasoning" ? item.summary.map((part) => part.text) : [],
    );
    expect(summaries).toContainEqual(
      expect.stringMatching(/^Ran `.*echo from-the-agent.*` \(exit 0, \d+ ms\)$/),
    );
    expect(h.model.requests[1]?.input).toContainEqual(
      expect.objectContaining({ type: "function_call_output", call_id: "call_sh" }),
    );
  });

  it("--quiet-agent-work hides it", async () => {
    const proxy = await h.startProxy(["--quiet-agent-work"]);
    script();
    const response = await proxy.client().responses.create({ model: "m", input: "run it" });
    expect(response.output_text).toBe("Done.");
    expect(response.output.map((item) => item.type)).toEqual(["message"]);
  });
});
