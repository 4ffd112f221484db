/**
 * review/start through the real `tscodex app-server` (stdio; WebSocket once), as Codex 0.169
 * serves it inline: the reply carries the turn and `reviewThreadId` (the thread itself), then
 * `enteredReviewMode` naming the target, the reviewer's work, `exitedReviewMode` with the
 * readable verdict, turn/completed. The review prompt (with the diff) and the JSON answer reach
 * the model but are not shown as messages; thread/read replays the same review items. Blank
 * targets, an unknown thread and a delivery 0.169 lacks are refused. Every message is checked
 * against Codex's schemas.
 */
import { execFileSync } from "node:child_process";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { type ReviewOutput, renderReview } from "../../src/session/review.js";
import type { AppClient } from "../support/app-server-client.js";
import { useAppServerHarness } from "../support/app-server-harness.js";
import { referenceSchemaFailures } from "../support/app-server-schemas.js";
import { functionCall, message, turn } from "../support/fake-model-server.js";
import { flow, liveItems, runTurn, startThread, withoutTimes } from "./flow.js";

const h = useAppServerHarness();

/** A repository in the work dir with one committed file and an uncommitted change to it. */
async function repoWithChange(): Promise<void> {
  const git = (...args: string[]) => execFileSync("git", args, { cwd: h.work, stdio: "pipe" });
  git("init", "-q");
  git("config", "user.email", "t@example.com");
  git("config", "user.name", "T");
  await writeFile(join(h.work, "loop.ts"), "for (let i = 0; i < n; i++) {}\n");
  git("add", ".");
  git("commit", "-qm", "loop");
  await writeFile(join(h.work, "loop.ts"), "for (let i = 0; i < n - 1; i++) {}\n");
}

function verdict(): ReviewOutput {
  return {
    findings: [
      {
        title: "[P1] Loop skips the last element",
        body: "`n - 1` stops one short.",
        confidence_score: 0.8,
        priority: 1,
        code_location: { absolute_file_path: join(h.work, "loop.ts"), line_range: { start: 1, end: 1 } },
      },
    ],
    overall_correctness: "patch is incorrect",
    overall_explanation: "The new bound drops the last element.",
    overall_confidence_score: 0.7,
  };
}

/** review/start, then its turn/completed; returns the reply and the turn id. */
async function review(client: AppClient, threadId: string, target: Record<string, unknown>) {
  const from = client.received.length;
  const reply = await client.call("review/start", { threadId, target, delivery: "inline" });
  const turnId = String(reply.turn.id);
  const completed = await client.turnCompleted(turnId, from);
  return { reply, turnId, completed };
}

const reviewItems = (client: AppClient, turnId: string) =>
  client
    .notifications("item/completed")
    .filter((m) => m.params.turnId === turnId && /ReviewMode$/.test(m.params.item.type))
    .map((m) => m.params.item);

describe("app-server: review/start", () => {
  it("reviews the uncommitted changes inline: entered and exited review mode with the verdict", async () => {
    await repoWithChange();
    const client = await h.stdio();
    const threadId = await startThread(client, {
      cwd: h.work,
      approvalPolicy: "never",
      sandbox: "danger-full-access",
    });
    h.model.enqueue(
      turn(functionCall("shell_command", { command: "git status --short" }, "call_st")),
      turn(message(JSON.stringify(verdict()))),
    );
    const { reply, turnId, completed } = await review(client, threadId, { type: "uncommittedChanges" });

    expect(reply).toEqual({
      turn: { id: turnId, items: [], status: "inProgress", error: null },
      reviewThreadId: threadId,
    });
    expect(completed.params.turn.status).toBe("completed");
    expect(flow(client, turnId).filter((line) => !line.endsWith("outputDelta"))).toEqual([
      "turn/started",
      "item/started enteredReviewMode",
      "item/completed enteredReviewMode",
      "item/started commandExecution inProgress",
      "item/completed commandExecution completed",
      "item/started exitedReviewMode",
      "item/completed exitedReviewMode",
      "turn/completed completed",
    ]);
    const text = renderReview(verdict());
    expect(text).toContain("[P1] Loop skips the last element");
    expect(reviewItems(client, turnId)).toEqual([
      { type: "enteredReviewMode", id: turnId, review: "current changes" },
      { type: "exitedReviewMode", id: turnId, review: text },
    ]);

    // The model got the diff and Codex's review output structure; the client saw no message.
    const first = h.model.requests[0];
    expect(JSON.stringify(first?.input)).toContain("i < n - 1");
    expect(JSON.stringify(first?.body.text)).toContain("overall_correctness");
    expect(client.notifications("item/agentMessage/delta")).toEqual([]);

    // thread/read replays the review and the reviewer's command, not its prompt or its JSON.
    const read = await client.call("thread/read", { threadId, includeTurns: true });
    const types = read.thread.turns[0].items.map((item: { type: string }) => item.type);
    expect(types).toEqual(["enteredReviewMode", "commandExecution", "exitedReviewMode"]);
    expect(read.thread.turns[0].items.map(withoutTimes)).toEqual(liveItems(client, turnId));
    expect(referenceSchemaFailures(client)).toEqual([]);
  });

  it("names a commit or custom target as Codex does, and a later turn is an ordinary one", async () => {
    await repoWithChange();
    const sha = execFileSync("git", ["rev-parse", "HEAD"], { cwd: h.work }).toString().trim();
    const client = await h.stdio();
    const threadId = await startThread(client, { cwd: h.work, approvalPolicy: "never" });
    h.model.enqueue(turn(message("not json at all")), turn(message(JSON.stringify(verdict()))));
    const commit = await review(client, threadId, { type: "commit", sha, title: "loop" });
    expect(reviewItems(client, commit.turnId)).toEqual([
      { type: "enteredReviewMode", id: commit.turnId, review: `commit ${sha.slice(0, 7)}: loop` },
      // An answer that is not the review structure is shown as it is.
      { type: "exitedReviewMode", id: commit.turnId, review: "not json at all" },
    ]);
    expect(JSON.stringify(h.model.requests[0]?.input)).toContain(`commit ${sha}`);

    const custom = await review(client, threadId, { type: "custom", instructions: "  check the loop  " });
    expect(reviewItems(client, custom.turnId)[0]).toMatchObject({ review: "check the loop" });

    h.model.enqueue(turn(message("fixed")));
    const next = await runTurn(client, threadId, "fix it");
    const nextFlow = flow(client, next.turnId);
    expect(nextFlow).toContain("item/completed userMessage");
    expect(nextFlow).toContain("item/completed agentMessage");
    expect(nextFlow.some((line) => line.includes("ReviewMode"))).toBe(false);
    // The follow-up turn's model request still carries the review's answer.
    expect(JSON.stringify(h.model.requests.at(-1)?.input)).toContain("overall_correctness");
    expect(referenceSchemaFailures(client)).toEqual([]);
  });

  it("refuses blank targets, an unknown thread and a delivery 0.169 does not have", async () => {
    const client = await h.stdio();
    const threadId = await startThread(client, { cwd: h.work });
    const refused = async (params: Record<string, unknown>) => {
      const reply = await client.request("review/start", params);
      return reply.error;
    };
    expect(await refused({ threadId, target: { type: "baseBranch", branch: "  " } })).toEqual({
      code: -32600,
      message: "branch must not be empty",
    });
    expect(await refused({ threadId, target: { type: "commit", sha: "" } })).toEqual({
      code: -32600,
      message: "sha must not be empty",
    });
    expect(await refused({ threadId, target: { type: "custom", instructions: "" } })).toEqual({
      code: -32600,
      message: "instructions must not be empty",
    });
    const unknown = "01a2005b-f1c1-7330-8b78-4122bb98a157";
    expect(await refused({ threadId: unknown, target: { type: "uncommittedChanges" } })).toMatchObject({
      code: -32600,
      message: expect.stringContaining("thread not found"),
    });
    const detached = await refused({
      threadId,
      target: { type: "uncommittedChanges" },
      delivery: "detached",
    });
    expect(detached?.code).toBe(-32602);
    // Not a git repository: the diff cannot be taken, and nothing runs.
    const noRepo = await refused({ threadId, target: { type: "uncommittedChanges" } });
    expect(noRepo).toMatchObject({
      code: -32600,
      message: expect.stringContaining("cannot review current changes"),
    });
    expect(client.notifications("turn/started")).toEqual([]);
    expect(h.model.requests).toEqual([]);
  });

  it("serves review/start over WebSocket", async () => {
    await repoWithChange();
    const server = await h.wsServer();
    const client = await server.connect();
    h.defer(client);
    await client.initialize();
    const threadId = await startThread(client, { cwd: h.work, approvalPolicy: "never" });
    h.model.enqueue(turn(message(JSON.stringify(verdict()))));
    const { turnId } = await review(client, threadId, { type: "baseBranch", branch: "HEAD" });
    expect(reviewItems(client, turnId)).toEqual([
      { type: "enteredReviewMode", id: turnId, review: "changes against 'HEAD'" },
      { type: "exitedReviewMode", id: turnId, review: renderReview(verdict()) },
    ]);
    expect(referenceSchemaFailures(client)).toEqual([]);
  });
});
