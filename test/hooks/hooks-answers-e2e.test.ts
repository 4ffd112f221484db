/**
 * The rest of Codex's hook answers through exec: updatedInput, UserPromptSubmit block,
 * systemMessage, continue:false, and SessionStart's `resume` source.
 */
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import { useExecHarness } from "../support/exec-harness.js";
import { functionCall, message, turn } from "../support/fake-model-server.js";
import { recorded, recorder, writeHooksJson } from "./hook-fixtures.js";

const h = useExecHarness({ execArgs: ["--dangerously-bypass-hook-trust", "--skip-git-repo-check"] });
let log: string;
beforeEach(async () => {
  log = join(h.home, "hook-log");
  await mkdir(log);
});

const print = (json: object) => `printf '%s' '${JSON.stringify(json)}'`;

describe("hook answers", () => {
  it("PreToolUse updatedInput replaces the command that runs", async () => {
    await writeHooksJson(h.home, {
      PreToolUse: [
        {
          command: print({
            hookSpecificOutput: { hookEventName: "PreToolUse", updatedInput: { command: "echo rewritten" } },
          }),
        },
      ],
    });
    h.server.enqueue(
      turn(functionCall("shell_command", { command: "echo original" }, "call_1")),
      turn(message("ok")),
    );
    expect((await h.exec(["-s", "danger-full-access", "go"])).code).toBe(0);
    expect(h.outputOf(1, "call_1")).toContain("rewritten");
    expect(h.outputOf(1, "call_1")).not.toContain("original");
  });

  it("UserPromptSubmit block keeps the prompt from the model; systemMessage is shown", async () => {
    await writeHooksJson(h.home, {
      UserPromptSubmit: [
        { command: print({ decision: "block", reason: "no secrets", systemMessage: "checked by policy" }) },
      ],
    });
    const result = await h.exec(["my password is hunter2"]);
    expect(result.code).toBe(0);
    expect(h.server.requests).toHaveLength(0);
    expect(result.stderr).toContain("prompt blocked by UserPromptSubmit hook: no secrets");
    expect(result.stderr).toContain("warning: checked by policy");
  });

  it("PostToolUse continue:false ends the turn after the tool outputs, with stopReason", async () => {
    await writeHooksJson(h.home, {
      PostToolUse: [{ command: print({ continue: false, stopReason: "enough for today" }) }],
    });
    h.server.enqueue(
      turn(functionCall("shell_command", { command: "echo x" }, "call_1")),
      turn(message("never asked")),
    );
    const result = await h.exec(["go"]);
    expect(result.code).toBe(0);
    expect(h.server.requests).toHaveLength(1);
    expect(result.stderr).toContain("enough for today");
  });

  it("SessionStart says resume for a resumed thread", async () => {
    await writeHooksJson(h.home, { SessionStart: [{ command: recorder(log, "SessionStart") }] });
    h.server.enqueue(turn(message("first")), turn(message("second")));
    expect((await h.exec(["go"])).code).toBe(0);
    expect((await h.exec(["resume", "--last", "again"])).code).toBe(0);
    const sources = (await recorded(log, "SessionStart")).map((payload) => payload.source).sort();
    expect(sources).toEqual(["resume", "startup"]);
  });
});
