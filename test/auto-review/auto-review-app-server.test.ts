/**
 * Automatic approval review through the real `tscodex app-server` (issue 43): a thread started with
 * `approvalsReviewer: "auto_review"` reviews instead of asking the client, with Codex 0.171's
 * `item/autoApprovalReview/started|completed`; a denial goes to the client (a person is attached)
 * and the client's accept is final; with `escalate_denials = false`, the client's
 * `thread/approveGuardianDeniedAction` lets the model's retry of the denied action run unreviewed.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import type { StdioAppClient } from "../support/app-server-client.js";
import { useAppServerHarness } from "../support/app-server-harness.js";
import { writeFakeConfig } from "../support/cli.js";
import {
  functionCall,
  message,
  type RecordedRequest,
  type Script,
  turn,
} from "../support/fake-model-server.js";

const h = useAppServerHarness();
const isReview = (request: RecordedRequest) => request.headers["x-openai-subagent"] === "guardian";

beforeEach(async () => {
  await writeFakeConfig(h.home, { baseUrl: h.model.url });
});

const escalated = (command: string, id: string) =>
  functionCall(
    "shell_command",
    { command, sandbox_permissions: "require_escalated", justification: "It writes a marker." },
    id,
  );

function script(agent: Script[], reviewer: Script[]): void {
  h.model.enqueue(
    ...Array.from(
      { length: agent.length + reviewer.length },
      () => (request: RecordedRequest) =>
        (isReview(request) ? reviewer.shift() : agent.shift()) ?? turn(message("(unscripted)")),
    ),
  );
}

const DENY = turn(
  message('{"outcome":"deny","risk_level":"high","user_authorization":"unknown","rationale":"risky"}'),
);

async function reviewedThread(client: StdioAppClient): Promise<string> {
  const { thread } = await client.call("thread/start", {
    cwd: h.work,
    approvalPolicy: "on-request",
    sandbox: "workspace-write",
    approvalsReviewer: "auto_review",
  });
  return thread.id;
}

async function runTurn(client: StdioAppClient, threadId: string, text: string) {
  const from = client.received.length;
  const { turn: started } = await client.call("turn/start", {
    threadId,
    input: [{ type: "text", text, text_elements: [] }],
  });
  return client.turnCompleted(started.id, from);
}

describe("automatic approval review in the app-server", () => {
  it("reviews instead of asking; a denial goes to the client, whose accept is final", async () => {
    script([turn(escalated("touch escalated.txt", "c1")), turn(message("done"))], [DENY]);
    const client = await h.stdio();
    const asked: string[] = [];
    client.onRequest = (request) => {
      asked.push(request.method ?? "");
      return { result: { decision: "accept" } };
    };
    const threadId = await reviewedThread(client);
    const opened = client.received.find((m) => m.id !== undefined && m.result?.thread?.id === threadId);
    expect(opened?.result?.approvalsReviewer).toBe("auto_review");
    const done = await runTurn(client, threadId, "make the marker");
    expect(done.params.turn.status).toBe("completed");
    const started = client.notifications("item/autoApprovalReview/started");
    const completed = client.notifications("item/autoApprovalReview/completed");
    expect(started[0]?.params).toMatchObject({
      threadId,
      targetItemId: "c1",
      action: { type: "command", command: expect.stringContaining("touch escalated.txt") },
      review: { status: "inProgress" },
    });
    expect(completed[0]?.params).toMatchObject({
      review: { status: "denied", riskLevel: "high", rationale: "risky" },
      decisionSource: "agent",
    });
    expect(asked).toEqual(["item/commandExecution/requestApproval"]);
    expect(existsSync(join(h.work, "escalated.txt"))).toBe(true);
  });

  it("turn/start's approvalsReviewer switches the reviewer on from that turn", async () => {
    script(
      [
        turn(escalated("touch first.txt", "c1")),
        turn(message("one")),
        turn(escalated("touch second.txt", "c2")),
        turn(message("two")),
      ],
      [turn(message('{"outcome":"allow"}'))],
    );
    const client = await h.stdio();
    const asked: string[] = [];
    client.onRequest = (request) => {
      asked.push(request.method ?? "");
      return { result: { decision: "accept" } };
    };
    const { thread } = await client.call("thread/start", {
      cwd: h.work,
      approvalPolicy: "on-request",
      sandbox: "workspace-write",
    });
    await runTurn(client, thread.id, "first");
    expect(asked).toEqual(["item/commandExecution/requestApproval"]);
    const from = client.received.length;
    const { turn: second } = await client.call("turn/start", {
      threadId: thread.id,
      input: [{ type: "text", text: "second", text_elements: [] }],
      approvalsReviewer: "auto_review",
    });
    await client.turnCompleted(second.id, from);
    expect(asked).toHaveLength(1);
    expect(h.model.requests.filter(isReview)).toHaveLength(1);
    expect(existsSync(join(h.work, "second.txt"))).toBe(true);
  });

  it("thread/approveGuardianDeniedAction lets the model's retry of the denied action run", async () => {
    await writeFakeConfig(h.home, { baseUrl: h.model.url, extra: "[auto_review]\nescalate_denials = false" });
    script(
      [
        turn(escalated("touch retried.txt", "c1")),
        turn(message("it was denied")),
        turn(escalated("touch retried.txt", "c2")),
        turn(message("done now")),
      ],
      [DENY],
    );
    const client = await h.stdio();
    client.onRequest = () => ({ result: { decision: "decline" } });
    const threadId = await reviewedThread(client);
    await runTurn(client, threadId, "make the marker");
    expect(existsSync(join(h.work, "retried.txt"))).toBe(false);
    const denied = client.notifications("item/autoApprovalReview/completed")[0];
    await client.call("thread/approveGuardianDeniedAction", { threadId, event: denied?.params });
    await runTurn(client, threadId, "I approve it, try again");
    expect(existsSync(join(h.work, "retried.txt"))).toBe(true);
    // One review only: the retry ran on the user's approval.
    expect(h.model.requests.filter(isReview)).toHaveLength(1);
    await expect(
      client.call("thread/approveGuardianDeniedAction", { threadId, event: { reviewId: "no-such" } }),
    ).rejects.toThrow(/no action denied/);
  });
});
