/**
 * The lifecycle hooks beyond a plain exec turn: SubagentStart / SubagentStop around a
 * sub-agent (feature collab), PreCompact / PostCompact around a compaction, and SessionStart's
 * source as the library's startThread and resumeThread set it.
 */
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import { type HookCallbacks, type HookInput, Tscodex } from "../../src/index.js";
import { messageText, type ResponseItem } from "../../src/protocol/items.js";
import { callOutputs, useExecHarness } from "../support/exec-harness.js";
import { functionCall, message, turn, usage } from "../support/fake-model-server.js";
import { recorded, recorder, writeHooksJson } from "./hook-fixtures.js";

const h = useExecHarness({
  execArgs: ["--enable", "collab", "-s", "danger-full-access", "--dangerously-bypass-hook-trust"],
});
let log: string;
beforeEach(async () => {
  log = join(h.home, "hook-log");
  await mkdir(log);
});

const userSaid = (input: readonly ResponseItem[], text: string) =>
  input.some((item) => item.type === "message" && item.role === "user" && messageText(item).includes(text));

describe("sub-agent hooks", () => {
  it("SubagentStart and SubagentStop fire with the child's id; a SubagentStop block sends the child back to work", async () => {
    const script = `${recorder(log, "SubagentStop")} grep -q '"stop_hook_active":false' "$f" && printf '%s' '{"decision":"block","reason":"check again"}'; exit 0`;
    await writeHooksJson(h.home, {
      SubagentStart: [{ command: recorder(log, "SubagentStart") }],
      SubagentStop: [{ command: script }],
    });
    for (let i = 0; i < 10; i++) {
      h.server.enqueue((request) => {
        const outputs = callOutputs(request.input);
        if (userSaid(request.input, "count files"))
          return turn(message(userSaid(request.input, "check again") ? "checked: 3 files" : "3 files"));
        if (!outputs.s1) return turn(functionCall("spawn_agent", { message: "count files" }, "s1"));
        const id = (JSON.parse(String(outputs.s1)) as { agent_id: string }).agent_id;
        if (!outputs.w) return turn(functionCall("wait", { ids: [id], timeout_ms: 20000 }, "w"));
        return turn(message("done"));
      });
    }
    const result = await h.exec(["--json", "delegate"]);
    expect(result.code).toBe(0);
    const [start] = await recorded(log, "SubagentStart");
    const stops = await recorded(log, "SubagentStop");
    expect(Object.keys(start ?? {}).sort()).toEqual(
      [
        "agent_id",
        "agent_type",
        "cwd",
        "hook_event_name",
        "model",
        "permission_mode",
        "session_id",
        "transcript_path",
        "turn_id",
      ].sort(),
    );
    expect(start).toMatchObject({ agent_type: "default", hook_event_name: "SubagentStart" });
    expect(stops.map((stop) => [stop.stop_hook_active, stop.last_assistant_message]).sort()).toEqual([
      [false, "3 files"],
      [true, "checked: 3 files"],
    ]);
    expect(stops[0]).toMatchObject({ agent_id: start?.agent_id, session_id: start?.session_id });
    expect(String(stops[0]?.agent_transcript_path)).toContain(String(start?.agent_id));
    expect(result.stdout).toContain('"final_message":"checked: 3 files"');
  });

  it("SubagentStart additionalContext reaches the child's prompt as a developer message, not the parent's", async () => {
    const context = (text: string) =>
      `printf '%s' '{"hookSpecificOutput":{"hookEventName":"SubagentStart","additionalContext":"${text}"}}'`;
    await writeHooksJson(h.home, {
      SubagentStart: [{ command: context("CTX-CHILD") }, { command: "echo PLAIN-CHILD" }],
    });
    for (let i = 0; i < 6; i++) {
      h.server.enqueue((request) => {
        const outputs = callOutputs(request.input);
        if (userSaid(request.input, "count files")) return turn(message("3 files"));
        if (!outputs.s1) return turn(functionCall("spawn_agent", { message: "count files" }, "s1"));
        const id = (JSON.parse(String(outputs.s1)) as { agent_id: string }).agent_id;
        if (!outputs.w) return turn(functionCall("wait", { ids: [id], timeout_ms: 20000 }, "w"));
        return turn(message("done"));
      });
    }
    expect((await h.exec(["delegate"])).code).toBe(0);
    const developerSaid = (input: readonly ResponseItem[], text: string) =>
      input.findIndex(
        (item) => item.type === "message" && item.role === "developer" && messageText(item).includes(text),
      );
    const child = h.server.requests.find((request) => userSaid(request.input, "count files"));
    const input = child?.input ?? [];
    const prompt = input.findIndex(
      (item) => item.type === "message" && item.role === "user" && messageText(item) === "count files",
    );
    expect(developerSaid(input, "CTX-CHILD")).toBeGreaterThan(-1);
    expect(developerSaid(input, "PLAIN-CHILD")).toBeGreaterThan(-1);
    expect(developerSaid(input, "CTX-CHILD")).toBeLessThan(prompt);
    const parents = h.server.requests.filter((request) => !userSaid(request.input, "count files"));
    for (const parent of parents) expect(developerSaid(parent.input, "CTX-CHILD")).toBe(-1);
  });
});

describe("compaction hooks", () => {
  it("PreCompact and PostCompact callbacks get trigger manual; PreCompact continue:false keeps the history", async () => {
    h.server.enqueue(turn(message("hello")), turn(message("SUMMARY")));
    const seen: HookInput[] = [];
    const agent = new Tscodex({ home: h.home, env: h.libraryEnv() });
    let stopNext = false;
    const thread = agent.startThread({
      cwd: h.work,
      hooks: {
        PreCompact: (input) => {
          seen.push(input);
          return stopNext ? { continue: false, stopReason: "not now" } : undefined;
        },
        PostCompact: (input) => {
          seen.push(input);
        },
      },
    });
    await thread.run("hi");
    await thread.compact();
    expect(seen.map((input) => input.hook_event_name)).toEqual(["PreCompact", "PostCompact"]);
    expect(Object.keys(seen[0] ?? {}).sort()).toEqual(
      ["cwd", "hook_event_name", "model", "session_id", "transcript_path", "trigger", "turn_id"].sort(),
    );
    expect(seen[0]).toMatchObject({ trigger: "manual", cwd: h.work });
    const requests = h.server.requests.length;
    stopNext = true;
    await thread.compact();
    await agent.close();
    expect(h.server.requests.length).toBe(requests);
    expect(seen.map((input) => input.hook_event_name)).toEqual(["PreCompact", "PostCompact", "PreCompact"]);
  });
  it("an automatic compaction in exec runs PreCompact and PostCompact command hooks with trigger auto", async () => {
    await h.writeConfig({ extra: "model_auto_compact_token_limit = 500" });
    await writeHooksJson(h.home, {
      PreCompact: [{ matcher: "^auto$", command: recorder(log, "PreCompact") }],
      PostCompact: [{ command: recorder(log, "PostCompact") }],
    });
    h.server.enqueue(
      turn(
        functionCall("shell_command", { command: "echo big" }, "call_1"),
        usage({ input: 600, output: 10 }),
      ),
      turn(message("SUMMARY")),
      turn(message("done")),
    );
    const result = await h.exec(["go"]);
    expect(result.code, result.stderr).toBe(0);
    const [pre] = await recorded(log, "PreCompact");
    const [post] = await recorded(log, "PostCompact");
    const keys = ["cwd", "hook_event_name", "model", "session_id", "transcript_path", "trigger", "turn_id"];
    expect(Object.keys(pre ?? {}).sort()).toEqual(keys.sort());
    expect(pre).toMatchObject({ hook_event_name: "PreCompact", trigger: "auto", cwd: h.work });
    expect(post).toMatchObject({ hook_event_name: "PostCompact", trigger: "auto", turn_id: pre?.turn_id });
  });
});

describe("SessionStart source through the library", () => {
  it("startThread's sessionStartSource reaches SessionStart; a resumed thread says resume", async () => {
    h.server.enqueue(turn(message("one")), turn(message("two")), turn(message("three")));
    const sources: string[] = [];
    const hooks: HookCallbacks = {
      SessionStart: (input) => {
        sources.push(input.source);
      },
    };
    const agent = new Tscodex({ home: h.home, env: h.libraryEnv() });
    const cleared = agent.startThread({ cwd: h.work, sessionStartSource: "clear", hooks });
    await cleared.run("hi");
    await agent.startThread({ cwd: h.work, hooks }).run("hi");
    await agent.close();
    const again = new Tscodex({ home: h.home, env: h.libraryEnv() });
    await again.resumeThread(cleared.id, { hooks }).run("again");
    await again.close();
    expect(sources).toEqual(["clear", "startup", "resume"]);
  });
});
