/**
 * Approval questions through a real thread (library API, fake model server): answers by
 * `onApproval` and by `thread.approve`, the bounded wait, abort and interrupt, session memory
 * across turns, and per-turn policy overrides.
 */
import { describe, expect, it } from "vitest";
import { type Event, Tscodex } from "../../src/index.js";
import { EXEC_REJECTED_BY_USER } from "../../src/policy/approval.js";
import { useExecHarness } from "../support/exec-harness.js";
import { functionCall, message, turn } from "../support/fake-model-server.js";

const h = useExecHarness({ git: false, key: "k" });

const agent = (config: Record<string, unknown> = {}) =>
  new Tscodex({ home: h.home, config, env: h.libraryEnv() });

const touch = (callId: string, name = "x.txt") =>
  turn(functionCall("shell_command", { command: `touch ${name} && echo touched` }, callId));

/** The output the model got for `callId`. */
function outputOf(callId: string): unknown {
  for (const request of h.server.requests) {
    for (const item of request.input) {
      if (item.type === "function_call_output" && item.call_id === callId) return item.output;
    }
  }
  return undefined;
}

// danger-full-access: these tests are about questions, not the sandbox.
const options = { sandboxMode: "danger-full-access" as const, approvalPolicy: "untrusted" as const };

describe("approval questions through a thread", () => {
  it("onApproval answers; the command runs", async () => {
    h.server.enqueue(touch("call_1"), turn(message("done")));
    const seen: Event[] = [];
    const thread = agent().startThread({
      cwd: h.work,
      ...options,
      onApproval: (request) => {
        seen.push(request);
        return "approved";
      },
    });
    const result = await thread.run("touch it");
    expect(result.status).toBe("completed");
    expect(seen).toEqual([
      {
        type: "exec_approval_request",
        call_id: "call_1",
        turn_id: "0",
        command: ["/bin/bash", "-lc", "touch x.txt && echo touched"],
        cwd: h.work,
        reason: null,
      },
    ]);
    expect(outputOf("call_1")).toMatch(/^Exit code: 0\n.*\nOutput:\ntouched\n$/s);
  });

  it("thread.approve answers from the event stream; approved_for_session holds across turns", async () => {
    h.server.enqueue(touch("call_1"), turn(message("one")), touch("call_2"), turn(message("two")));
    const thread = agent().startThread({ cwd: h.work, ...options });
    const questions: string[] = [];
    const answer = async (prompt: string) => {
      const stream = thread.runStreamed(prompt);
      for await (const event of stream) {
        if (event.type === "exec_approval_request") {
          questions.push(event.call_id);
          await thread.approve(event.call_id, "approved_for_session");
        }
      }
      return stream.result();
    };
    expect((await answer("first")).status).toBe("completed");
    expect((await answer("second")).status).toBe("completed");
    expect(questions).toEqual(["call_1"]);
    expect(outputOf("call_2")).toMatch(/touched\n$/);
  });

  it("an unanswered question is denied after approval_timeout_ms, with a warning", async () => {
    h.server.enqueue(touch("call_1"), turn(message("gave up")));
    const thread = agent({ approval_timeout_ms: 150 }).startThread({ cwd: h.work, ...options });
    const events: Event[] = [];
    const started = performance.now();
    const stream = thread.runStreamed("touch it");
    for await (const event of stream) events.push(event);
    expect((await stream.result()).status).toBe("completed");
    expect(performance.now() - started).toBeGreaterThanOrEqual(140);
    expect(events).toContainEqual({
      type: "warning",
      message: "approval request call_1 got no answer within 150 ms; treated as denied",
    });
    expect(outputOf("call_1")).toBe(EXEC_REJECTED_BY_USER);
    // Codex closes the announced command: exit -1 with the rejection text.
    expect(events.find((event) => event.type === "exec_command_end")).toMatchObject({
      exit_code: -1,
      aggregated_output: EXEC_REJECTED_BY_USER,
    });
  });

  it("abort ends the turn as interrupted; so does an interrupt while a question waits", async () => {
    h.server.enqueue(touch("call_1"));
    const aborting = agent().startThread({ cwd: h.work, ...options, onApproval: () => "abort" });
    expect((await aborting.run("touch it")).status).toBe("interrupted");

    h.server.reset();
    h.server.enqueue(touch("call_1"));
    const waiting = agent().startThread({ cwd: h.work, ...options });
    const stream = waiting.runStreamed("touch it");
    for await (const event of stream) {
      if (event.type === "exec_approval_request") await waiting.interrupt();
    }
    expect((await stream.result()).status).toBe("interrupted");
  });

  it("writable roots: config roots, cwd, then /tmp and $TMPDIR unless excluded", async () => {
    const roots = async (config: Record<string, unknown>, tmp: string) => {
      h.server.reset();
      h.server.enqueue(turn(message("ok")));
      const env = { FAKE_KEY: "k", PATH: process.env.PATH ?? "", HOME: h.home, TMPDIR: tmp };
      const thread = new Tscodex({ home: h.home, config, env }).startThread({
        cwd: h.work,
        sandboxMode: "workspace-write",
      });
      await thread.run("hi");
      const text = JSON.stringify(h.server.requests[0]?.input ?? []);
      return /Writable roots: ([^.]*)\./.exec(text)?.[1];
    };
    expect(await roots({ "sandbox_workspace_write.writable_roots": ["/srv/data"] }, "/var/tmp")).toBe(
      `\`/srv/data\`, \`${h.work}\`, \`/tmp\`, \`/var/tmp\``,
    );
    expect(
      await roots(
        {
          "sandbox_workspace_write.exclude_slash_tmp": true,
          "sandbox_workspace_write.exclude_tmpdir_env_var": true,
        },
        "/var/tmp",
      ),
    ).toBe(`\`${h.work}\``);
  });

  it("a later turn may change the approval policy; the permissions message is re-sent once", async () => {
    h.server.enqueue(touch("call_1"), turn(message("one")), touch("call_2", "y.txt"), turn(message("two")));
    const asked: string[] = [];
    const thread = agent().startThread({
      cwd: h.work,
      sandboxMode: "danger-full-access",
      approvalPolicy: "never",
      onApproval: (request) => {
        asked.push(request.call_id);
        return "denied";
      },
    });
    await thread.run("first");
    await thread.run("second", { approvalPolicy: "untrusted" });
    expect(asked).toEqual(["call_2"]);
    expect(outputOf("call_1")).toMatch(/touched\n$/);
    expect(outputOf("call_2")).toBe(EXEC_REJECTED_BY_USER);
    const permissions = (h.server.requests.at(-1)?.input ?? []).filter(
      (item) =>
        item.type === "message" &&
        item.role === "developer" &&
        JSON.stringify(item.content).includes("<permissions instructions>"),
    );
    expect(permissions).toHaveLength(2);
  });
});
