/**
 * Hooks through the MCP server front-end (`tscodex mcp-server`, tool `codex`): trusted with
 * `tscodex hooks trust`, a PermissionRequest hook decides an approval the client would otherwise
 * be asked by elicitation, and a PreToolUse hook blocks a command, as in exec.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { writeHooksJson } from "../hooks/hook-fixtures.js";
import { runCli } from "../support/cli.js";
import { functionCall, message, turn } from "../support/fake-model-server.js";
import { callTool } from "../support/mcp-client.js";
import { useMcpHarness } from "../support/mcp-harness.js";

const h = useMcpHarness({ extraConfig: "approval_timeout_ms = 1500" });

const outputOf = (callId: string) => {
  const item = h.model.requests
    .at(-1)
    ?.input.find((entry) => entry.type === "function_call_output" && entry.call_id === callId);
  return item && "output" in item ? item.output : undefined;
};

describe("mcp-server: hooks", () => {
  it("a PermissionRequest hook approves without elicitation; a PreToolUse hook blocks", async () => {
    await writeHooksJson(h.home, {
      PermissionRequest: [
        {
          matcher: "Bash",
          command: `printf '%s' '{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow"}}}'`,
        },
      ],
      PreToolUse: [
        { matcher: "Bash", command: "grep -q 'rm -rf' && { echo 'no rm -rf' >&2; exit 2; }; exit 0" },
      ],
    });
    const trusted = await runCli(["hooks", "trust", "--all"], { cwd: h.work, home: h.home });
    expect(trusted.code, trusted.stderr).toBe(0);
    const asked: unknown[] = [];
    const { client } = await h.connect({
      onElicit: (params) => {
        asked.push(params);
        return { action: "decline" };
      },
    });
    h.model.enqueue(
      turn(functionCall("shell_command", { command: "touch made.txt" }, "call_1")),
      turn(functionCall("shell_command", { command: "rm -rf made.txt" }, "call_2")),
      turn(message("done")),
    );
    const result = await callTool(client, "codex", {
      prompt: "go",
      cwd: h.work,
      sandbox: "danger-full-access",
      "approval-policy": "untrusted",
    });
    expect(result.text).toBe("done");
    expect(asked).toEqual([]);
    expect(existsSync(join(h.work, "made.txt"))).toBe(true);
    expect(outputOf("call_2")).toBe(
      "Command blocked by PreToolUse hook: no rm -rf. Command: rm -rf made.txt",
    );
  });
});
