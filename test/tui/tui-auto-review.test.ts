/**
 * The terminal UI shows automatic approval review (issue 43): with `approvals_reviewer =
 * "auto_review"`, an escalated command goes to the reviewer (the fake model, asked with
 * `x-openai-subagent: guardian`), and the UI shows the verdict and its rationale.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { useExecHarness } from "../support/exec-harness.js";
import { functionCall, message, type RecordedRequest, turn } from "../support/fake-model-server.js";
import { useTmuxTerminal } from "../support/tmux.js";

const h = useExecHarness();
const open = useTmuxTerminal(h);

describe("automatic approval review in the terminal UI", () => {
  it("shows the reviewer's verdict and rationale; the approved command runs", async () => {
    await h.writeConfig({
      extra: [
        'approval_policy = "on-request"',
        'sandbox_mode = "workspace-write"',
        'approvals_reviewer = "auto_review"',
      ].join("\n"),
    });
    const agent = [
      turn(
        functionCall(
          "shell_command",
          {
            command: "touch tui-reviewed.txt",
            sandbox_permissions: "require_escalated",
            justification: "marker",
          },
          "c1",
        ),
      ),
      turn(message("all done here")),
    ];
    const reviewer = [
      turn(
        message(
          '{"outcome":"allow","risk_level":"low","user_authorization":"high","rationale":"the user asked for it"}',
        ),
      ),
    ];
    h.server.enqueue(
      ...Array.from(
        { length: 3 },
        () => (request: RecordedRequest) =>
          (request.headers["x-openai-subagent"] === "guardian" ? reviewer.shift() : agent.shift()) ??
          turn(message("(unscripted)")),
      ),
    );
    const t = await open(["make the marker file"]);
    const screen = await t.waitFor("all done here");
    expect(screen).toContain("auto-review: approved (risk low): the user asked for it");
    expect(existsSync(join(h.work, "tui-reviewed.txt"))).toBe(true);
  });
});
