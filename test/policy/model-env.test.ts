/**
 * local_shell's model-supplied `env` makes a known-safe command ask under `untrusted`: variables
 * such as BASH_FUNC_*, LD_PRELOAD or GIT_CONFIG_* turn `ls` or `git status` into anything.
 */
import { describe, expect, it } from "vitest";
import { PolicyOrchestrator } from "../../src/policy/orchestrator.js";
import { shellTool } from "../../src/tools/builtin/shell.js";
import type { ToolInvocation } from "../../src/tools/types.js";
import { runHandler, testTurnContext } from "../support/turn-context.js";

async function localShell(command: string[], env: Record<string, string> | null) {
  const turn = testTurnContext({
    cwd: "/",
    approvalPolicy: "untrusted",
    sandboxMode: "danger-full-access",
    orchestrator: new PolicyOrchestrator(),
  });
  const invocation: ToolInvocation = {
    callId: "call-1",
    toolName: "local_shell",
    payload: { kind: "local_shell", action: { type: "exec", command, ...(env ? { env } : {}) } },
    turn,
  };
  const output = await runHandler(shellTool().handler, invocation);
  return { output: String(output.content), questions: turn.questions };
}

describe("local_shell env and known-safe commands", () => {
  it("a known-safe command without env runs without a question", async () => {
    const { output, questions } = await localShell(["echo", "hi"], null);
    expect(questions).toEqual([]);
    expect(output).toContain("hi");
  });

  it.each([
    ["BASH_FUNC_echo%%", "() { touch /tmp/pwned; }"],
    ["LD_PRELOAD", "/tmp/evil.so"],
    ["GIT_CONFIG_COUNT", "1"],
    ["GIT_EXTERNAL_DIFF", "/tmp/evil"],
  ])("with %s in env it is asked about (and denied here, so nothing runs)", async (name, value) => {
    const { output, questions } = await localShell(["bash", "-c", "echo hi"], { [name]: value });
    expect(questions).toHaveLength(1);
    expect(output).toContain("rejected by user");
    expect(output).not.toContain("hi\\n");
  });
});
