/**
 * Approvals through MCP elicitation: approved, denied, abort, a client without elicitation
 * (declared outcome: denied) and a client that never answers (bounded wait, then denied).
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { decisionFromAnswer } from "../../src/frontends/mcp-server/approvals.js";
import type { ResponseItem } from "../../src/protocol/items.js";
import { customToolCall, functionCall, message, turn } from "../support/fake-model-server.js";
import { callTool } from "../support/mcp-client.js";
import { useMcpHarness } from "../support/mcp-harness.js";

const h = useMcpHarness({ extraConfig: "approval_timeout_ms = 1500" });

const untrusted = () => ({
  prompt: "touch it",
  cwd: h.work,
  sandbox: "danger-full-access",
  "approval-policy": "untrusted",
});

function enqueueTouch(file: string): void {
  h.model.enqueue(
    turn(functionCall("shell_command", { command: `touch ${file}` }, "call_1")),
    turn(message("done")),
  );
}

function outputOf(input: ResponseItem[] | undefined, callId: string): unknown {
  const item = input?.find(
    (entry) =>
      (entry.type === "function_call_output" || entry.type === "custom_tool_call_output") &&
      entry.call_id === callId,
  );
  return item && "output" in item ? item.output : undefined;
}

describe("approvals via elicitation", () => {
  it("asks with Codex's fields and runs the command when accepted", async () => {
    const asked: Record<string, unknown>[] = [];
    const { client } = await h.connect({
      onElicit: (params) => {
        asked.push(params);
        return { action: "accept", content: {} };
      },
    });
    enqueueTouch("approved.txt");
    const result = await callTool(client, "codex", untrusted());
    expect(result.text).toBe("done");
    expect(existsSync(join(h.work, "approved.txt"))).toBe(true);
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatchObject({
      message: `Allow Codex to run \`/bin/bash -lc 'touch approved.txt'\` in \`${h.work}\`?`,
      requestedSchema: { type: "object", properties: {} },
      threadId: result.threadId,
      codex_elicitation: "exec-approval",
      codex_call_id: "call_1",
      codex_command: ["/bin/bash", "-lc", "touch approved.txt"],
      codex_cwd: h.work,
      codex_parsed_cmd: [{ type: "unknown", cmd: "touch approved.txt" }],
    });
    expect(typeof asked[0]?.codex_mcp_tool_call_id).toBe("string");
    expect(typeof asked[0]?.codex_event_id).toBe("string");
  });

  it("asks on one connection from a first codex call and from a later codex-reply", async () => {
    // The stdio server runs the plain first call itself and codex-reply through the MCP SDK
    // server: their questions share the connection's request ids.
    const ids: unknown[] = [];
    const { client } = await h.connect({
      onElicit: (params) => {
        ids.push(params.codex_call_id);
        return { action: "accept", content: {} };
      },
    });
    enqueueTouch("first.txt");
    const first = await callTool(client, "codex", untrusted());
    expect(first.text).toBe("done");
    h.model.enqueue(
      turn(functionCall("shell_command", { command: "touch second.txt" }, "call_2")),
      turn(message("done again")),
    );
    const second = await callTool(client, "codex-reply", { prompt: "again", threadId: first.threadId });
    expect(second.text).toBe("done again");
    expect(ids).toEqual(["call_1", "call_2"]);
    expect(existsSync(join(h.work, "first.txt")) && existsSync(join(h.work, "second.txt"))).toBe(true);
  });

  it("does not run a declined command and tells the model", async () => {
    const { client } = await h.connect({ onElicit: () => ({ action: "decline" }) });
    enqueueTouch("denied.txt");
    const result = await callTool(client, "codex", untrusted());
    expect(result.result.isError).toBeFalsy();
    expect(existsSync(join(h.work, "denied.txt"))).toBe(false);
    expect(outputOf(h.model.requests[1]?.input, "call_1")).toBe("exec command rejected by user");
  });

  it("asks before a patch and applies it when approved (approved_for_session in content)", async () => {
    const asked: Record<string, unknown>[] = [];
    const { client } = await h.connect({
      onElicit: (params) => {
        asked.push(params);
        return { action: "accept", content: { decision: "approved_for_session" } };
      },
    });
    h.model.enqueue(
      turn(
        customToolCall(
          "apply_patch",
          "*** Begin Patch\n*** Add File: new.txt\n+x\n*** End Patch\n",
          "call_1",
        ),
      ),
      turn(message("patched")),
    );
    // danger-full-access would write without asking; workspace-write + untrusted asks for every patch.
    const result = await callTool(client, "codex", { ...untrusted(), sandbox: "workspace-write" });
    expect(result.text).toBe("patched");
    expect(existsSync(join(h.work, "new.txt"))).toBe(true);
    expect(asked[0]).toMatchObject({
      message: "Allow Codex to apply proposed code changes?",
      codex_elicitation: "patch-approval",
      codex_changes: { [join(h.work, "new.txt")]: { type: "add", content: "x\n" } },
    });
  });

  it("ends the turn with an isError result when the client cancels (abort)", async () => {
    const { client } = await h.connect({ onElicit: () => ({ action: "cancel" }) });
    h.model.enqueue(turn(functionCall("shell_command", { command: "touch aborted.txt" }, "call_1")));
    const result = await callTool(client, "codex", untrusted());
    expect(result.result.isError).toBe(true);
    expect(result.text).toBe(
      "Turn aborted: the approval request for `touch aborted.txt` was answered with abort.",
    );
    expect(existsSync(join(h.work, "aborted.txt"))).toBe(false);
    // The thread is still usable.
    h.model.enqueue(turn(message("after abort")));
    const next = await callTool(client, "codex-reply", { threadId: result.threadId, prompt: "go on" });
    expect(next.text).toBe("after abort");
  });

  it("applies the declared outcome (denied) for a client without elicitation", async () => {
    const { client } = await h.connect();
    enqueueTouch("nobody.txt");
    const progress: string[] = [];
    const result = await callTool(client, "codex", untrusted(), progress);
    expect(result.text).toBe("done");
    expect(existsSync(join(h.work, "nobody.txt"))).toBe(false);
    expect(outputOf(h.model.requests[1]?.input, "call_1")).toBe("exec command rejected by user");
    expect(progress).toContain("Waiting for approval to run `touch nobody.txt`");
  });

  it("denies when the client does not answer within approval_timeout_ms", async () => {
    let asked = 0;
    const { client } = await h.connect({
      onElicit: () => {
        asked += 1;
        return new Promise(() => {});
      },
    });
    enqueueTouch("late.txt");
    const result = await callTool(client, "codex", untrusted());
    // The question went out, nobody answered, and the bounded wait denied it.
    expect(asked).toBe(1);
    expect(result.text).toBe("done");
    expect(existsSync(join(h.work, "late.txt"))).toBe(false);
  });
});

describe("decisionFromAnswer", () => {
  it("maps Codex decisions and MCP actions, and rejects anything else", () => {
    expect(decisionFromAnswer({ decision: "approved" })).toBe("approved");
    expect(decisionFromAnswer({ decision: "approved_for_session" })).toBe("approved_for_session");
    expect(decisionFromAnswer({ decision: "denied" })).toBe("denied");
    expect(decisionFromAnswer({ decision: "abort" })).toBe("abort");
    expect(decisionFromAnswer({ action: "accept", content: {} })).toBe("approved");
    expect(decisionFromAnswer({ action: "accept", content: { decision: "denied" } })).toBe("denied");
    expect(decisionFromAnswer({ action: "decline" })).toBe("denied");
    expect(decisionFromAnswer({ action: "cancel" })).toBe("abort");
    expect(decisionFromAnswer({ decision: "yes please" })).toBeNull();
    expect(decisionFromAnswer({})).toBeNull();
  });
});
