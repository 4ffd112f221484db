/**
 * Codex's granular approval policy (issue 43): `approval_policy = { granular = {...} }` asks as
 * on-request does, but a category set to false is declined at once (nobody asked: no reviewer, no
 * person) with a message the model reads; a true one asks (here, the reviewer). In config through
 * the real `tscodex exec`, and on the app-server wire (thread/start takes and echoes the object).
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { StdioAppClient } from "../support/app-server-client.js";
import { useExecHarness } from "../support/exec-harness.js";
import { functionCall, message, type RecordedRequest, turn } from "../support/fake-model-server.js";

const h = useExecHarness();
const isReview = (request: RecordedRequest) => request.headers["x-openai-subagent"] === "guardian";

const escalated = (command: string) =>
  functionCall(
    "shell_command",
    { command, sandbox_permissions: "require_escalated", justification: "It writes a marker." },
    "call_1",
  );

const granular = (sandbox: boolean) =>
  `approval_policy = { granular = { sandbox_approval = ${sandbox}, rules = true, mcp_elicitations = true } }`;

describe("the granular approval policy", () => {
  it("declines a false category at once: the command does not run and nobody is asked", async () => {
    await h.writeConfig({
      extra: [granular(false), 'sandbox_mode = "workspace-write"', 'approvals_reviewer = "auto_review"'].join(
        "\n",
      ),
    });
    h.server.enqueue(turn(escalated("touch declined.txt")), turn(message("ok")));
    const result = await h.exec(["go"]);
    expect(result.code).toBe(0);
    expect(existsSync(join(h.work, "declined.txt"))).toBe(false);
    expect(h.server.requests.filter(isReview)).toHaveLength(0);
    expect(h.outputOf(1, "call_1")).toContain("sandbox_approval = false");
  });

  it("asks for a true category (here the reviewer, which allows)", async () => {
    await h.writeConfig({
      extra: [granular(true), 'sandbox_mode = "workspace-write"', 'approvals_reviewer = "auto_review"'].join(
        "\n",
      ),
    });
    const agent = [turn(escalated("touch asked.txt")), turn(message("ok"))];
    const reviewer = [turn(message('{"outcome":"allow"}'))];
    h.server.enqueue(
      ...Array.from(
        { length: 3 },
        () => (request: RecordedRequest) =>
          (isReview(request) ? reviewer.shift() : agent.shift()) ?? turn(message("(unscripted)")),
      ),
    );
    expect((await h.exec(["go"])).code).toBe(0);
    expect(existsSync(join(h.work, "asked.txt"))).toBe(true);
    expect(h.server.requests.filter(isReview)).toHaveLength(1);
  });

  it("the app-server takes the granular object on thread/start and echoes it", async () => {
    const client = new StdioAppClient({ home: h.home, cwd: h.work, env: { FAKE_KEY: "sk-test" } });
    try {
      await client.initialize();
      const policy = {
        granular: {
          sandbox_approval: false,
          rules: true,
          mcp_elicitations: false,
          skill_approval: false,
          request_permissions: false,
        },
      };
      const opened = await client.call("thread/start", { cwd: h.work, approvalPolicy: policy });
      expect(opened.approvalPolicy).toEqual(policy);
      h.server.enqueue(turn(escalated("touch app.txt")), turn(message("ok")));
      const from = client.received.length;
      const { turn: started } = await client.call("turn/start", {
        threadId: opened.thread.id,
        input: [{ type: "text", text: "go", text_elements: [] }],
      });
      await client.turnCompleted(started.id, from);
      // Declined without a question to the client.
      expect(client.received.some((m) => m.method === "item/commandExecution/requestApproval")).toBe(false);
      expect(existsSync(join(h.work, "app.txt"))).toBe(false);
    } finally {
      await client.close();
    }
  });
});
