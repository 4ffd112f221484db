/**
 * The MCP server's `codex` and `codex-reply` tools under the operator's ceiling (requirements.toml
 * in the server's home): a sandbox or approval policy above it, given as an argument or by the
 * call's `config`, is an error result naming the requirement, and the model is never asked.
 */
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { message, turn } from "../support/fake-model-server.js";
import { callTool } from "../support/mcp-client.js";
import { useMcpHarness } from "../support/mcp-harness.js";

const h = useMcpHarness();

describe("codex tool under requirements.toml", () => {
  it("refuses arguments above the ceiling with an error result, and runs what is within it", async () => {
    const file = join(h.home, "requirements.toml");
    await writeFile(
      file,
      'allowed_sandbox_modes = ["read-only", "workspace-write"]\nallowed_approval_policies = ["on-request", "untrusted"]\n',
    );
    const { client } = await h.connect();
    const cases: [Record<string, unknown>, string][] = [
      [
        { sandbox: "danger-full-access" },
        `sandbox mode \`danger-full-access\` is not allowed by requirements.toml (allowed_sandbox_modes = read-only, workspace-write) at ${file}`,
      ],
      [
        { "approval-policy": "never" },
        `approval policy \`never\` is not allowed by requirements.toml (allowed_approval_policies = on-request, untrusted) at ${file}`,
      ],
      [
        { config: { sandbox_mode: "danger-full-access" } },
        `sandbox mode \`danger-full-access\` is not allowed by requirements.toml (allowed_sandbox_modes = read-only, workspace-write) at ${file}`,
      ],
    ];
    for (const [args, refusal] of cases) {
      const call = await callTool(client, "codex", { prompt: "go", cwd: h.work, ...args });
      expect(call.result.isError, JSON.stringify(args)).toBe(true);
      expect(call.text, JSON.stringify(args)).toBe(refusal);
    }
    expect(h.model.requests).toHaveLength(0);

    h.model.enqueue(turn(message("within")));
    const ok = await callTool(client, "codex", { prompt: "go", cwd: h.work, sandbox: "workspace-write" });
    expect(ok.result.isError).toBeFalsy();
    expect(ok.text).toBe("within");
    // A later call on that thread may not widen it either.
    const wider = await callTool(client, "codex", {
      prompt: "again",
      cwd: h.work,
      sessionId: ok.threadId,
      sandbox: "danger-full-access",
    });
    expect(wider.result.isError).toBe(true);
    expect(h.model.requests).toHaveLength(1);
  });

  it("runs as before without requirements.toml", async () => {
    const { client } = await h.connect();
    h.model.enqueue(turn(message("full")));
    const call = await callTool(client, "codex", {
      prompt: "go",
      cwd: h.work,
      sandbox: "danger-full-access",
    });
    expect(call.result.isError).toBeFalsy();
    expect(call.text).toBe("full");
  });
});
