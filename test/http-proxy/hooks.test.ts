/**
 * Hooks through the proxy front-end: a trusted PreToolUse hook blocks the agent's command with
 * Codex's message, as in exec (the proxy's threads take the same approval path).
 */
import { describe, expect, it } from "vitest";
import { writeHooksJson } from "../hooks/hook-fixtures.js";
import { runCli } from "../support/cli.js";
import { functionCall, message, turn } from "../support/fake-model-server.js";
import { useProxyHarness } from "../support/proxy-harness.js";

const h = useProxyHarness({ extraConfig: 'sandbox_mode = "danger-full-access"\napproval_policy = "never"' });

describe("proxy: hooks", () => {
  it("a PreToolUse hook blocks the agent's command; the model gets Codex's words", async () => {
    await writeHooksJson(h.home, {
      PreToolUse: [{ matcher: "Bash", command: "echo 'not through the proxy' >&2; exit 2" }],
    });
    const trusted = await runCli(["hooks", "trust", "--all"], { cwd: h.home, home: h.home });
    expect(trusted.code, trusted.stderr).toBe(0);
    const proxy = await h.startProxy();
    h.model.enqueue(
      turn(functionCall("shell_command", { command: "echo blocked" }, "call_sh")),
      turn(message("Done.")),
    );
    const response = await proxy.client().responses.create({ model: "m", input: "run it" });
    expect(response.output_text).toBe("Done.");
    expect(h.model.requests[1]?.input).toContainEqual({
      type: "function_call_output",
      call_id: "call_sh",
      output: "Command blocked by PreToolUse hook: not through the proxy. Command: echo blocked",
    });
  });
});
