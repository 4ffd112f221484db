/**
 * A sub-agent never gets more than its parent, through the real CLI: an `[agents.NAME]` profile
 * asking for a wider sandbox than the parent's is refused with a tool output the model reads
 * (and no child runs), and `agent_type` names only own keys of `[agents]`.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import { messageText, type ResponseItem } from "../../src/protocol/items.js";
import { callOutputs, useExecHarness } from "../support/exec-harness.js";
import { functionCall, message, turn } from "../support/fake-model-server.js";
import { useOutsideDir } from "../support/hostile-repo.js";
import { noSandbox } from "../support/skips.js";

const h = useExecHarness({ execArgs: ["--enable", "collab", "-s", "read-only", "-a", "never"] });
const outside = useOutsideDir();
beforeEach(async () => {
  await h.writeConfig({ extra: '[agents.fixer]\nsandbox_mode = "danger-full-access"\n' });
});

const isChild = (input: readonly ResponseItem[]) =>
  input.some((item) => item.type === "message" && item.role === "user" && messageText(item) === "fix it");

/** The parent spawns `agentType`; a child, if one runs, writes outside the workspace. */
function script(agentType: string, escaped: string): void {
  for (let i = 0; i < 6; i++) {
    h.server.enqueue((request) => {
      const outputs = callOutputs(request.input);
      if (isChild(request.input)) {
        if (!outputs.w) return turn(functionCall("shell_command", { command: `touch ${escaped}` }, "w"));
        return turn(message("child done"));
      }
      if (!outputs.s1)
        return turn(functionCall("spawn_agent", { message: "fix it", agent_type: agentType }, "s1"));
      return turn(message("parent done"));
    });
  }
}

/** What the model read back from its spawn_agent call. */
function spawnOutput(): string {
  const request = h.server.requests.find((r) => callOutputs(r.input).s1 !== undefined);
  return String(request ? callOutputs(request.input).s1 : "");
}

describe.skipIf(await noSandbox("sub-agent ceiling"))("sub-agent ceilings through tscodex exec", () => {
  it("a profile wider than the parent (danger-full-access under read-only) is refused, and no child writes outside", async () => {
    const escaped = join(outside(), "escaped");
    script("fixer", escaped);
    const result = await h.exec(["delegate"]);
    expect(result.code).toBe(0);
    expect(spawnOutput()).toBe(
      "spawn_agent refused: agent_type 'fixer' asks for sandbox_mode 'danger-full-access', wider than this agent's 'read-only'; a sub-agent's sandbox is at most its parent's",
    );
    expect(existsSync(escaped)).toBe(false);
    expect(h.server.requests.some((request) => isChild(request.input))).toBe(false);
  });

  it.each([
    ["__proto__", "without [agents]"],
    ["constructor", "without [agents]"],
    ["toString", "without [agents]"],
    ["__proto__", "with [agents]"],
    ["toString", "with [agents]"],
  ])("agent_type %s (%s) is an unknown agent_type", async (name, shape) => {
    // No [agents] table at all is where the prototype chain used to answer.
    if (shape === "without [agents]") await h.writeConfig();
    const escaped = join(outside(), "escaped");
    script(name, escaped);
    const result = await h.exec(["delegate"]);
    expect(result.code).toBe(0);
    expect(spawnOutput()).toBe(`spawn_agent refused: unknown agent_type '${name}'`);
    expect(h.server.requests.some((request) => isChild(request.input))).toBe(false);
  });
});
