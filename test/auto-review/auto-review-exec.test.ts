/**
 * Automatic approval review through the real `tscodex exec` (issue 43), the fake model playing the
 * agent and the reviewer (the reviewer's requests carry `x-openai-subagent: guardian`): allow runs
 * the escalated command, deny does not and the model reads the reason, a malformed answer and a
 * timeout fail closed, the breaker ends the turn, the reviewer uses `[auto_review]`'s model and
 * provider and sees the action and the user's words, `approvals_reviewer` in config works in plain
 * exec under on-request, and the review shows in human and `--json` output.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { writeHooksJson } from "../hooks/hook-fixtures.js";
import { useExecHarness } from "../support/exec-harness.js";
import {
  delay,
  functionCall,
  hang,
  message,
  type RecordedRequest,
  type Script,
  turn,
} from "../support/fake-model-server.js";

const h = useExecHarness();

const isReview = (request: RecordedRequest) => request.headers["x-openai-subagent"] === "guardian";
const reviews = () => h.server.requests.filter(isReview);
const agentRequests = () => h.server.requests.filter((request) => !isReview(request));

/** An escalated command the model asks to run (`id` its call id). */
const escalated = (command: string, id = "call_1") =>
  functionCall(
    "shell_command",
    { command, sandbox_permissions: "require_escalated", justification: "It writes a marker file." },
    id,
  );

/** Answer the agent's requests from `agent` and the reviewer's from `reviewer`, in order. */
function script(agent: Script[], reviewer: Script[]): void {
  const routes = Array.from(
    { length: agent.length + reviewer.length },
    () => (request: RecordedRequest) =>
      (isReview(request) ? reviewer.shift() : agent.shift()) ?? turn(message("(unscripted)")),
  );
  h.server.enqueue(...routes);
}

const lastOutput = (callId: string) => {
  const last = agentRequests().at(-1);
  const item = last?.input.find(
    (entry) => entry.type === "function_call_output" && entry.call_id === callId,
  ) as { output?: unknown } | undefined;
  return String(item?.output ?? "");
};

describe("automatic approval review in exec", () => {
  it("--approve-for-me: an allow runs the command; the reviewer saw the action and the user's words", async () => {
    script(
      [turn(escalated("touch allowed.txt")), turn(message("done"))],
      [turn(message('{"outcome":"allow"}'))],
    );
    const result = await h.exec(["--approve-for-me", "--json", "please make the allowed marker"]);
    expect(result.code).toBe(0);
    expect(existsSync(join(h.work, "allowed.txt"))).toBe(true);
    expect(reviews()).toHaveLength(1);
    const review = JSON.stringify(reviews()[0]?.body);
    expect(review).toContain("please make the allowed marker");
    expect(review).toContain("touch allowed.txt");
    expect(reviews()[0]?.body.text).toMatchObject({ format: { type: "json_schema", strict: false } });
    const items = result.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { type: string; item?: Record<string, unknown> });
    expect(items.find((line) => line.item?.type === "auto_approval_review")?.item).toMatchObject({
      call_id: "call_1",
      status: "approved",
      risk_level: "low",
    });
  });

  it("a deny does not run it; the model reads the reviewer's reason; human output shows the verdict", async () => {
    const deny =
      '{"outcome":"deny","risk_level":"high","user_authorization":"unknown","rationale":"it deletes data"}';
    script([turn(escalated("touch denied.txt")), turn(message("ok, I will ask"))], [turn(message(deny))]);
    const result = await h.exec(["--approve-for-me", "go"]);
    expect(result.code).toBe(0);
    expect(existsSync(join(h.work, "denied.txt"))).toBe(false);
    expect(lastOutput("call_1")).toContain("Reason: it deletes data");
    expect(result.stderr).toContain("auto-review: denied (risk high): it deletes data");
  });

  it("fails closed: an answer that is not the contract, and a review past timeout_ms", async () => {
    script([turn(escalated("touch malformed.txt")), turn(message("ok"))], [turn(message("sure, go ahead"))]);
    expect((await h.exec(["--approve-for-me", "go"])).code).toBe(0);
    expect(existsSync(join(h.work, "malformed.txt"))).toBe(false);
    expect(lastOutput("call_1")).toMatch(/review failed/i);

    h.server.reset();
    await h.writeConfig({ extra: "[auto_review]\ntimeout_ms = 300" });
    script([turn(escalated("touch late.txt")), turn(message("ok"))], [turn(hang())]);
    const started = Date.now();
    expect((await h.exec(["--approve-for-me", "go"])).code).toBe(0);
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(existsSync(join(h.work, "late.txt"))).toBe(false);
    expect(lastOutput("call_1")).toMatch(/did not finish|timed out/i);
  });

  it("a PermissionRequest hook decides first: the reviewer is never asked", async () => {
    const allow = `printf '%s' '{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow"}}}'`;
    await writeHooksJson(h.home, { PermissionRequest: [{ command: allow }] });
    const deny = turn(message('{"outcome":"deny","risk_level":"critical","rationale":"never"}'));
    script([turn(escalated("touch hooked.txt")), turn(message("done"))], [deny]);
    expect((await h.exec(["--approve-for-me", "--dangerously-bypass-hook-trust", "go"])).code).toBe(0);
    expect(existsSync(join(h.work, "hooked.txt"))).toBe(true);
    expect(reviews()).toHaveLength(0);
  });

  it("the breaker ends the turn after max_consecutive_denials denials, saying so", async () => {
    await h.writeConfig({ extra: "[auto_review]\nmax_consecutive_denials = 2" });
    const deny = turn(message('{"outcome":"deny","risk_level":"critical","rationale":"no"}'));
    script(
      [
        turn(escalated("touch a.txt", "c1")),
        turn(escalated("touch b.txt", "c2")),
        turn(message("unreached")),
      ],
      [deny, deny],
    );
    const result = await h.exec(["--approve-for-me", "go"]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      "Automatic approval review rejected too many approval requests for this turn",
    );
    expect(agentRequests()).toHaveLength(2);
  });

  it("uses [auto_review]'s model and provider; approvals_reviewer in config works in plain exec", async () => {
    await h.writeConfig({
      extra: [
        'approval_policy = "on-request"',
        'sandbox_mode = "workspace-write"',
        'approvals_reviewer = "auto_review"',
        "[auto_review]",
        'model = "reviewer-model"',
        'model_provider = "reviewers"',
        "[model_providers.reviewers]",
        'name = "reviewers"',
        `base_url = "${h.server.url}"`,
        'env_key = "REVIEWER_KEY"',
      ].join("\n"),
    });
    script(
      [turn(escalated("touch reviewed.txt")), turn(message("done"))],
      [turn(delay(1), message('{"outcome":"allow"}'))],
    );
    const result = await h.exec(["go"], { env: { REVIEWER_KEY: "sk-reviewer" } });
    expect(result.code).toBe(0);
    expect(existsSync(join(h.work, "reviewed.txt"))).toBe(true);
    expect(reviews()[0]?.body.model).toBe("reviewer-model");
    expect(reviews()[0]?.headers.authorization).toBe("Bearer sk-reviewer");
    expect(agentRequests()[0]?.headers.authorization).toBe("Bearer sk-test");
  });
});
