/**
 * Hooks through the MCP server front-end (`tscodex mcp-server`, tool `codex`): trusted with
 * `tscodex hooks trust`, a PermissionRequest hook decides an approval the client would otherwise
 * be asked by elicitation (a command's escalation, an MCP tool call), and a PreToolUse hook
 * blocks a command, as in exec.
 */
import { existsSync } from "node:fs";
import { appendFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { writeHooksJson } from "../hooks/hook-fixtures.js";
import { runCli } from "../support/cli.js";
import { functionCall, message, turn } from "../support/fake-model-server.js";
import { callTool } from "../support/mcp-client.js";
import { fixtureToml } from "../support/mcp-fixture.js";
import { useMcpHarness } from "../support/mcp-harness.js";

const h = useMcpHarness({ extraConfig: "approval_timeout_ms = 1500" });

const outputOf = (callId: string) => {
  const item = h.model.requests
    .at(-1)
    ?.input.find((entry) => entry.type === "function_call_output" && entry.call_id === callId);
  return item && "output" in item ? item.output : undefined;
};

const ALLOW = `printf '%s' '{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow"}}}'`;

/**
 * Trust the hooks written, connect a client that declines every elicitation, and run the
 * `codex` tool once under `sandbox` / `policy`; returns its text and what the client was asked.
 */
async function runCodex(sandbox: string, policy: string): Promise<{ text: string; asked: unknown[] }> {
  const trusted = await runCli(["hooks", "trust", "--all"], { cwd: h.work, home: h.home });
  expect(trusted.code, trusted.stderr).toBe(0);
  const asked: unknown[] = [];
  const { client } = await h.connect({
    onElicit: (params) => {
      asked.push(params);
      return { action: "decline" };
    },
  });
  const result = await callTool(client, "codex", {
    prompt: "go",
    cwd: h.work,
    sandbox,
    "approval-policy": policy,
  });
  return { text: result.text, asked };
}

describe("mcp-server: hooks", () => {
  it("a PermissionRequest hook approves without elicitation; a PreToolUse hook blocks", async () => {
    await writeHooksJson(h.home, {
      PermissionRequest: [{ matcher: "Bash", command: ALLOW }],
      PreToolUse: [
        { matcher: "Bash", command: "grep -q 'rm -rf' && { echo 'no rm -rf' >&2; exit 2; }; exit 0" },
      ],
    });
    h.model.enqueue(
      turn(functionCall("shell_command", { command: "touch made.txt" }, "call_1")),
      turn(functionCall("shell_command", { command: "rm -rf made.txt" }, "call_2")),
      turn(message("done")),
    );
    const { text, asked } = await runCodex("danger-full-access", "untrusted");
    expect(text).toBe("done");
    expect(asked).toEqual([]);
    expect(existsSync(join(h.work, "made.txt"))).toBe(true);
    expect(outputOf("call_2")).toBe(
      "Command blocked by PreToolUse hook: no rm -rf. Command: rm -rf made.txt",
    );
  });

  it("an MCP tool call needing approval goes to the PermissionRequest hook before elicitation", async () => {
    const server = await fixtureToml({
      name: "fx",
      env: { FIXTURE_SET: "approvals" },
      extra: ["startup_timeout_sec = 60"],
    });
    await appendFile(join(h.home, "config.toml"), `\n${server}\n`);
    await writeHooksJson(h.home, { PermissionRequest: [{ matcher: "^mcp__fx__destroy$", command: ALLOW }] });
    h.model.enqueue(
      turn(functionCall("mcp__fx__destroy", {}, "call_1")),
      turn(functionCall("mcp__fx__plain", {}, "call_2")),
      turn(message("done")),
    );
    const { text, asked } = await runCodex("workspace-write", "on-request");
    expect(text).toBe("done");
    expect(h.model.requests[1]?.input).toContainEqual(
      expect.objectContaining({ call_id: "call_1", output: '[{"text":"destroy ran","type":"text"}]' }),
    );
    // No hook decided for `plain`: the client was asked, and declined.
    expect(asked).toHaveLength(1);
    expect(String((asked[0] as { message?: unknown }).message)).toContain("plain");
    expect(outputOf("call_2")).toBe("user rejected MCP tool call");
  }, 60_000);
});
