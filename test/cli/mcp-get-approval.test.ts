/**
 * `tscodex mcp get NAME` shows the approval modes that decide whether a tool runs, asks or is
 * refused (exec's approval policy is never): the server's `default_tools_approval_mode` (auto when
 * unset) and each tool's own `approval_mode`, in the human view and in `--json`.
 */
import { describe, expect, it } from "vitest";
import { useExecHarness } from "../support/exec-harness.js";

const h = useExecHarness();

describe("tscodex mcp get", () => {
  it("shows the server's default approval mode and each tool's own", async () => {
    await h.writeConfig({
      extra: [
        "[mcp_servers.tiny]",
        'command = "node"',
        'args = ["server.js"]',
        'default_tools_approval_mode = "approve"',
        "[mcp_servers.tiny.tools.delete_item]",
        'approval_mode = "prompt"',
        "[mcp_servers.plain]",
        'command = "node"',
      ].join("\n"),
    });
    const human = await h.cli(["mcp", "get", "tiny"]);
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout).toContain("  default_tools_approval_mode: approve\n");
    expect(human.stdout).toContain("  tools.delete_item.approval_mode: prompt\n");
    const json = JSON.parse((await h.cli(["mcp", "get", "tiny", "--json"])).stdout);
    expect(json).toMatchObject({
      default_tools_approval_mode: "approve",
      tools: { delete_item: { approval_mode: "prompt" } },
    });
    const plain = await h.cli(["mcp", "get", "plain"]);
    expect(plain.stdout).toContain("  default_tools_approval_mode: auto\n");
    expect(plain.stdout).not.toContain("tools.");
  });
});
