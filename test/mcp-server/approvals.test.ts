/**
 * Approvals through MCP elicitation: approved, denied, abort, a client without elicitation
 * (declared outcome: denied) and a client that never answers (bounded wait, then denied).
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { decisionFromAnswer } from "../../src/frontends/mcp-server/approvals.js";
import type { ResponseItem } from "../../src/protocol/items.js";
import { writeFakeConfig } from "../support/cli.js";
import {
  customToolCall,
  type FakeModelServer,
  functionCall,
  message,
  startFakeModelServer,
  turn,
} from "../support/fake-model-server.js";
import { callTool, connectStdio, type ElicitHandler, type StdioSession } from "../support/mcp-client.js";
import { type TempDir, tmpdir } from "../support/tmpdir.js";

let model: FakeModelServer;
let home: TempDir;
let work: TempDir;
const sessions: StdioSession[] = [];

beforeAll(async () => {
  model = await startFakeModelServer();
});
afterAll(() => model.close());
beforeEach(async () => {
  model.reset();
  home = await tmpdir("tscodex-mcp-home-");
  work = await tmpdir("tscodex-mcp-work-");
  await writeFakeConfig(home.path, { baseUrl: model.url, extra: "approval_timeout_ms = 1500" });
});
afterEach(async () => {
  await Promise.all(sessions.splice(0).map((session) => session.close()));
  await home.cleanup();
  await work.cleanup();
});

async function connect(onElicit?: ElicitHandler): Promise<StdioSession> {
  const session = await connectStdio({ home: home.path, cwd: work.path }, onElicit ? { onElicit } : {});
  sessions.push(session);
  return session;
}

const untrusted = () => ({
  prompt: "touch it",
  cwd: work.path,
  sandbox: "danger-full-access",
  "approval-policy": "untrusted",
});

function enqueueTouch(file: string): void {
  model.enqueue(
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
    const { client } = await connect((params) => {
      asked.push(params);
      return { action: "accept", content: {} };
    });
    enqueueTouch("approved.txt");
    const result = await callTool(client, "codex", untrusted());
    expect(result.text).toBe("done");
    expect(existsSync(join(work.path, "approved.txt"))).toBe(true);
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatchObject({
      message: `Allow Codex to run \`/bin/bash -lc 'touch approved.txt'\` in \`${work.path}\`?`,
      requestedSchema: { type: "object", properties: {} },
      threadId: result.threadId,
      codex_elicitation: "exec-approval",
      codex_call_id: "call_1",
      codex_command: ["/bin/bash", "-lc", "touch approved.txt"],
      codex_cwd: work.path,
      codex_parsed_cmd: [{ type: "unknown", cmd: "touch approved.txt" }],
    });
    expect(typeof asked[0]?.codex_mcp_tool_call_id).toBe("string");
    expect(typeof asked[0]?.codex_event_id).toBe("string");
  });

  it("does not run a declined command and tells the model", async () => {
    const { client } = await connect(() => ({ action: "decline" }));
    enqueueTouch("denied.txt");
    const result = await callTool(client, "codex", untrusted());
    expect(result.result.isError).toBeFalsy();
    expect(existsSync(join(work.path, "denied.txt"))).toBe(false);
    expect(outputOf(model.requests[1]?.input, "call_1")).toBe("exec command rejected by user");
  });

  it("asks before a patch and applies it when approved (approved_for_session in content)", async () => {
    const asked: Record<string, unknown>[] = [];
    const { client } = await connect((params) => {
      asked.push(params);
      return { action: "accept", content: { decision: "approved_for_session" } };
    });
    model.enqueue(
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
    expect(existsSync(join(work.path, "new.txt"))).toBe(true);
    expect(asked[0]).toMatchObject({
      message: "Allow Codex to apply proposed code changes?",
      codex_elicitation: "patch-approval",
      codex_changes: { [join(work.path, "new.txt")]: { type: "add", content: "x\n" } },
    });
  });

  it("ends the turn with an isError result when the client cancels (abort)", async () => {
    const { client } = await connect(() => ({ action: "cancel" }));
    model.enqueue(turn(functionCall("shell_command", { command: "touch aborted.txt" }, "call_1")));
    const result = await callTool(client, "codex", untrusted());
    expect(result.result.isError).toBe(true);
    expect(result.text).toBe(
      "Turn aborted: the approval request for `touch aborted.txt` was answered with abort.",
    );
    expect(existsSync(join(work.path, "aborted.txt"))).toBe(false);
    // The thread is still usable.
    model.enqueue(turn(message("after abort")));
    const next = await callTool(client, "codex-reply", { threadId: result.threadId, prompt: "go on" });
    expect(next.text).toBe("after abort");
  });

  it("applies the declared outcome (denied) for a client without elicitation", async () => {
    const { client } = await connect();
    enqueueTouch("nobody.txt");
    const progress: string[] = [];
    const result = await callTool(client, "codex", untrusted(), progress);
    expect(result.text).toBe("done");
    expect(existsSync(join(work.path, "nobody.txt"))).toBe(false);
    expect(outputOf(model.requests[1]?.input, "call_1")).toBe("exec command rejected by user");
    expect(progress).toContain("Waiting for approval to run `touch nobody.txt`");
  });

  it("denies when the client does not answer within approval_timeout_ms", async () => {
    let asked = 0;
    const { client } = await connect(() => {
      asked += 1;
      return new Promise(() => {});
    });
    enqueueTouch("late.txt");
    const result = await callTool(client, "codex", untrusted());
    // The question went out, nobody answered, and the bounded wait denied it.
    expect(asked).toBe(1);
    expect(result.text).toBe("done");
    expect(existsSync(join(work.path, "late.txt"))).toBe(false);
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
