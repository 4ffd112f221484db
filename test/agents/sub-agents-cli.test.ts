/**
 * Sub-agents through `tscodex exec`: `--json` shows each child as a `sub_agent` item (never as
 * the parent's agent_message), human output indents a child's progress under its parent, and
 * `sessions list` puts a child under its parent.
 */
import { describe, expect, it } from "vitest";
import { messageText, type ResponseItem } from "../../src/protocol/items.js";
import { callOutputs, useExecHarness } from "../support/exec-harness.js";
import { functionCall, message, turn } from "../support/fake-model-server.js";

const h = useExecHarness({ execArgs: ["--enable", "collab", "-s", "danger-full-access"] });

const isChild = (input: readonly ResponseItem[]) =>
  input.some(
    (item) => item.type === "message" && item.role === "user" && messageText(item) === "count files",
  );

function script(): void {
  for (let i = 0; i < 10; i++) {
    h.server.enqueue((request) => {
      const outputs = callOutputs(request.input);
      if (isChild(request.input)) {
        if (!outputs.ls) return turn(functionCall("shell_command", { command: "echo 3 files" }, "ls"));
        return turn(message("there are 3 files"));
      }
      if (!outputs.s1) return turn(functionCall("spawn_agent", { message: "count files" }, "s1"));
      const id = (JSON.parse(String(outputs.s1)) as { agent_id: string }).agent_id;
      if (!outputs.w) return turn(functionCall("wait", { ids: [id], timeout_ms: 20000 }, "w"));
      return turn(message("the child says 3"));
    });
  }
}

describe("sub-agents through tscodex exec", () => {
  it("--json: a sub_agent item started and completed with its final message; only the parent's message is agent_message", async () => {
    script();
    const result = await h.exec(["--json", "delegate"]);
    expect(result.code).toBe(0);
    const lines = result.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { type: string; item?: Record<string, unknown> });
    const agentItems = lines.filter((line) => line.item?.type === "sub_agent");
    expect(agentItems.map((line) => [line.type, line.item?.status, line.item?.final_message])).toEqual([
      ["item.started", "running", null],
      ["item.completed", "completed", "there are 3 files"],
    ]);
    expect(agentItems[0]?.item).toMatchObject({ message: "count files", agent_type: null });
    const messages = lines
      .filter((line) => line.item?.type === "agent_message")
      .map((line) => line.item?.text);
    expect(messages).toEqual(["the child says 3"]);
  });

  it("human output indents the child's progress under the parent; sessions list shows the child under its parent", async () => {
    script();
    const result = await h.exec(["delegate"]);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe("the child says 3\n");
    expect(result.stderr).toMatch(/↳ agent \w{8} started: count files/);
    expect(result.stderr).toMatch(/ {2}agent \w{8} │ \$ .*echo 3 files/);
    expect(result.stderr).toMatch(/ {2}agent \w{8} │ there are 3 files/);
    expect(result.stderr).toMatch(/↳ agent \w{8} completed/);

    const listed = await h.cli(["sessions", "list"]);
    const rows = listed.stdout.trim().split("\n").slice(1);
    expect(rows).toHaveLength(2);
    expect(rows[1]).toMatch(/^↳ \S+/);
    const json = JSON.parse((await h.cli(["sessions", "list", "--json"])).stdout) as {
      id: string;
      parentId: string | null;
    }[];
    const child = json.find((entry) => entry.parentId !== null);
    expect(json.map((entry) => entry.id)).toContain(child?.parentId);
  });
});
