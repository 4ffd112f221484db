/**
 * Hooks end to end: the built CLI against the fake model, with hooks.json / [hooks] in the
 * home, checked against Codex 0.169's payloads and answers (reference hooks-skills-mcp-auth.md).
 */
import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import { messageText } from "../../src/protocol/items.js";
import { useExecHarness } from "../support/exec-harness.js";
import { functionCall, message, turn } from "../support/fake-model-server.js";
import { gone } from "../support/processes.js";
import { codexPayloadKeys, recorded, recorder, writeHooksJson } from "./hook-fixtures.js";

const h = useExecHarness({ execArgs: ["--dangerously-bypass-hook-trust", "--skip-git-repo-check"] });
let log: string;
beforeEach(async () => {
  log = join(h.home, "hook-log");
  await mkdir(log);
});

function developerTexts(requestIndex: number): string[] {
  const input = h.server.requests.at(requestIndex)?.input ?? [];
  return input.flatMap((item) =>
    item.type === "message" && item.role === "developer"
      ? item.content.map((part) => ("text" in part ? part.text : ""))
      : [],
  );
}

describe("hooks in exec", () => {
  it("fires every exec event with Codex's payload keys, session id, turn id and cwd", async () => {
    const events = ["SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop", "SessionEnd"];
    await writeHooksJson(
      h.home,
      Object.fromEntries(
        events.map((event) => [
          event,
          [{ ...(event.endsWith("ToolUse") ? { matcher: "Bash" } : {}), command: recorder(log, event) }],
        ]),
      ),
    );
    h.server.enqueue(
      turn(functionCall("shell_command", { command: "echo hook-test-out" }, "call_1")),
      turn(message("all done")),
    );
    const result = await h.exec(["--json", "say hi"]);
    expect(result.code).toBe(0);
    const threadId = JSON.parse(result.stdout.split("\n")[0] ?? "{}").thread_id;

    const codex = codexPayloadKeys();
    const payloads = Object.fromEntries(
      await Promise.all(events.map(async (event) => [event, await recorded(log, event)] as const)),
    );
    for (const event of events) {
      expect(payloads[event], event).toHaveLength(1);
      expect(Object.keys(payloads[event]?.[0] ?? {}).sort(), event).toEqual(codex.get(event));
    }
    const one = (event: string) => payloads[event]?.[0] ?? {};
    expect(one("SessionStart")).toMatchObject({
      session_id: threadId,
      cwd: h.work,
      hook_event_name: "SessionStart",
      model: "gpt-5.2-codex",
      permission_mode: "bypassPermissions",
      source: "startup",
    });
    expect(String(one("SessionStart").transcript_path)).toContain(threadId);
    const turnId = one("UserPromptSubmit").turn_id;
    expect(one("UserPromptSubmit")).toMatchObject({ prompt: "say hi", session_id: threadId });
    expect(one("PreToolUse")).toMatchObject({
      turn_id: turnId,
      tool_name: "Bash",
      tool_input: { command: "echo hook-test-out" },
      tool_use_id: "call_1",
    });
    expect(one("PostToolUse")).toMatchObject({
      turn_id: turnId,
      tool_name: "Bash",
      tool_input: { command: "echo hook-test-out" },
      tool_response: "hook-test-out\n",
      tool_use_id: "call_1",
    });
    expect(one("Stop")).toMatchObject({
      turn_id: turnId,
      stop_hook_active: false,
      last_assistant_message: "all done",
    });
    expect(one("SessionEnd")).toMatchObject({ session_id: threadId, reason: "other" });
    const cwdFiles = (await readdir(log)).filter((name) => name.endsWith(".cwd"));
    expect(cwdFiles).toHaveLength(events.length);
    for (const name of cwdFiles) expect((await readFile(join(log, name), "utf8")).trim()).toBe(h.work);
  });

  it("passes additionalContext to the model as developer messages where Codex puts them", async () => {
    const context = (event: string, text: string) =>
      `printf '%s' '{"hookSpecificOutput":{"hookEventName":"${event}","additionalContext":"${text}"}}'`;
    await writeHooksJson(h.home, {
      SessionStart: [{ command: context("SessionStart", "CTX-START") }],
      UserPromptSubmit: [
        { command: context("UserPromptSubmit", "CTX-PROMPT") },
        { command: "echo PLAIN-PROMPT" },
      ],
      PostToolUse: [{ matcher: "Bash", command: context("PostToolUse", "CTX-POST") }],
    });
    h.server.enqueue(
      turn(functionCall("shell_command", { command: "echo x" }, "call_1")),
      turn(message("ok")),
    );
    expect((await h.exec(["go"])).code).toBe(0);
    const first = h.server.requests[0]?.input ?? [];
    const texts = first.map((item) =>
      item.type === "message"
        ? `${item.role}:${item.content.map((p) => ("text" in p ? p.text : "")).join("")}`
        : item.type,
    );
    const at = (text: string) => texts.findIndex((entry) => entry.includes(text));
    expect(at("developer:CTX-START")).toBeGreaterThan(at("<environment_context>"));
    expect(at("user:go")).toBeGreaterThan(at("developer:CTX-START"));
    expect(at("developer:CTX-PROMPT")).toBe(at("user:go") + 1);
    expect(developerTexts(0)).toContain("PLAIN-PROMPT");
    const second = h.server.requests[1]?.input ?? [];
    const output = second.findIndex((item) => item.type === "function_call_output");
    const post = second.findIndex(
      (item) =>
        item.type === "message" && item.role === "developer" && JSON.stringify(item).includes("CTX-POST"),
    );
    expect(post).toBeGreaterThan(output);
  });

  it.each([
    [
      "JSON deny",
      `printf '%s' '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"no rm here"}}'`,
    ],
    ["exit 2", "echo 'no rm here' >&2; exit 2"],
  ])("PreToolUse %s: the command never runs and the model gets Codex's message", async (_name, command) => {
    await writeHooksJson(h.home, {
      PreToolUse: [{ matcher: "^Bash$", command }],
      PostToolUse: [{ command: recorder(log, "PostToolUse") }],
    });
    h.server.enqueue(
      turn(functionCall("shell_command", { command: "touch made-by-model" }, "call_1")),
      turn(message("ok")),
    );
    const result = await h.exec(["--json", "-s", "danger-full-access", "go"]);
    expect(result.code).toBe(0);
    expect(h.outputOf(1, "call_1")).toBe(
      "Command blocked by PreToolUse hook: no rm here. Command: touch made-by-model",
    );
    await expect(readFile(join(h.work, "made-by-model"))).rejects.toThrow();
    expect(result.stdout).not.toContain("command_execution");
    expect(await recorded(log, "PostToolUse")).toEqual([]);
  });

  it("a hook that exits 1 or times out does not block, and the run does not wait for it", async () => {
    await writeHooksJson(h.home, {
      PreToolUse: [{ command: "echo broken >&2; exit 1" }, { command: "sleep 30", timeout: 1 }],
    });
    h.server.enqueue(
      turn(functionCall("shell_command", { command: "echo ran" }, "call_1")),
      turn(message("ok")),
    );
    const started = Date.now();
    const result = await h.exec(["go"]);
    expect(result.code).toBe(0);
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(h.outputOf(1, "call_1")).toContain("ran");
    expect(result.stderr).toContain("broken");
    expect(result.stderr).toContain("timed out after 1s");
  });

  it("a timed-out hook is killed with what it started (its process group)", async () => {
    const pids = join(h.home, "hook-pids");
    // The hook starts a child and waits on it; both must end at the timeout.
    await writeHooksJson(h.home, {
      PreToolUse: [{ command: `sleep 60 & echo $! >> '${pids}'; echo $$ >> '${pids}'; wait`, timeout: 1 }],
    });
    h.server.enqueue(
      turn(functionCall("shell_command", { command: "echo ran" }, "call_1")),
      turn(message("ok")),
    );
    const result = await h.exec(["go"]);
    expect(result.code).toBe(0);
    expect(result.stderr).toContain("timed out after 1s");
    const started = (await readFile(pids, "utf8")).trim().split("\n").map(Number);
    expect(started).toHaveLength(2);
    for (const pid of started) expect(await gone(pid), `pid ${pid}`).toBe(true);
  });

  it("several matching hooks run at once", async () => {
    // Each hook waits (bounded) for the other's mark: in sequence, the first would give up.
    const waitFor = (mine: string, theirs: string) =>
      `touch '${join(log, mine)}'; i=0; while [ ! -e '${join(log, theirs)}' ]; do i=$((i+1)); [ $i -gt 200 ] && { echo "${mine} waited alone" >&2; exit 1; }; sleep 0.05; done`;
    await writeHooksJson(h.home, {
      PreToolUse: [{ command: waitFor("a", "b") }, { command: waitFor("b", "a") }],
    });
    h.server.enqueue(
      turn(functionCall("shell_command", { command: "echo ran" }, "call_1")),
      turn(message("ok")),
    );
    const result = await h.exec(["go"]);
    expect(result.code).toBe(0);
    expect(result.stderr).not.toContain("waited alone");
    expect(h.outputOf(1, "call_1")).toContain("ran");
  });

  it("a matcher that does not match the tool name keeps the hook out", async () => {
    await writeHooksJson(h.home, {
      PreToolUse: [{ matcher: "^apply_patch$", command: recorder(log, "PreToolUse") }],
    });
    h.server.enqueue(
      turn(functionCall("shell_command", { command: "echo x" }, "call_1")),
      turn(message("ok")),
    );
    expect((await h.exec(["go"])).code).toBe(0);
    expect(await recorded(log, "PreToolUse")).toEqual([]);
  });

  it("Stop block continues the turn with the reason, and the next Stop has stop_hook_active", async () => {
    const script = join(h.home, "stop.sh");
    await writeFile(
      script,
      `${recorder(log, "Stop")}\ngrep -q '"stop_hook_active":false' "$f" && printf '%s' '{"decision":"block","reason":"run the tests first"}'\nexit 0\n`,
    );
    await writeHooksJson(h.home, { Stop: [{ command: `sh '${script}'` }] });
    h.server.enqueue(turn(message("first answer")), turn(message("second answer")));
    const result = await h.exec(["--json", "go"]);
    expect(result.code).toBe(0);
    expect(h.server.requests).toHaveLength(2);
    const input = h.server.requests[1]?.input ?? [];
    const last = input.at(-1);
    expect(last).toMatchObject({ type: "message", role: "user" });
    // Codex's run id: event, the hook's place among the configured ones, its file.
    expect(last?.type === "message" ? messageText(last) : "").toBe(
      `<hook_prompt hook_run_id="stop:0:${join(h.home, "hooks.json")}">run the tests first</hook_prompt>`,
    );
    expect(input.at(-2)).toMatchObject({ type: "message", role: "assistant" });
    const stops = (await recorded(log, "Stop")).map((payload) => payload.stop_hook_active).sort();
    expect(stops).toEqual([false, true]);
    const messages = result.stdout.split("\n").filter((line) => line.includes('"agent_message"'));
    expect(messages.join("\n")).toContain("first answer");
    expect(messages.join("\n")).toContain("second answer");
  });

  it("loads $CODEX_HOME/hooks.json as well as the home's, when CODEX_HOME is another directory", async () => {
    const codexHome = join(h.home, "codex-home");
    await mkdir(codexHome);
    await writeHooksJson(codexHome, { UserPromptSubmit: [{ command: recorder(log, "FromCodexHome") }] });
    await writeHooksJson(h.home, { UserPromptSubmit: [{ command: recorder(log, "FromHome") }] });
    h.server.enqueue(turn(message("ok")));
    expect((await h.exec(["go"], { env: { CODEX_HOME: codexHome } })).code).toBe(0);
    expect(await recorded(log, "FromCodexHome")).toHaveLength(1);
    expect(await recorded(log, "FromHome")).toHaveLength(1);
  });

  it("loads [hooks] from config.toml too; both forms in one layer load with a warning", async () => {
    await writeHooksJson(h.home, { UserPromptSubmit: [{ command: recorder(log, "FromJson") }] });
    await h.writeConfig({
      extra: [
        "[[hooks.UserPromptSubmit]]",
        "[[hooks.UserPromptSubmit.hooks]]",
        'type = "command"',
        `command = "${recorder(log, "FromToml").replace(/"/g, '\\"')}"`,
        "[[hooks.SessionEnd]]",
        "[[hooks.SessionEnd.hooks]]",
        'type = "command"',
        'command = "true"',
        "timeout = 30",
      ].join("\n"),
    });
    h.server.enqueue(turn(message("ok")));
    const result = await h.exec(["--json", "go"]);
    expect(result.code).toBe(0);
    expect(await recorded(log, "FromJson")).toHaveLength(1);
    expect(await recorded(log, "FromToml")).toHaveLength(1);
    expect(result.stdout).toContain(
      `loading hooks from both ${join(h.home, "hooks.json")} and ${join(h.home, "config.toml")}; prefer a single representation for this layer`,
    );
    expect(result.stdout).toContain(
      `clamping SessionEnd hook timeout to 3s in ${join(h.home, "config.toml")}`,
    );
  });
});

describe("the README's hook policy example", () => {
  it("blocks rm -rf and writes every call to the audit file", async () => {
    const readme = await readFile(join(import.meta.dirname, "../../README.md"), "utf8");
    const section = readme.slice(readme.indexOf("## Hooks"));
    const example = /```json\n([\s\S]*?)```/.exec(section)?.[1] ?? "";
    await writeFile(join(h.home, "hooks.json"), example);
    h.server.enqueue(
      turn(
        functionCall("shell_command", { command: "rm -rf build" }, "call_1"),
        functionCall("shell_command", { command: "echo fine" }, "call_2"),
      ),
      turn(message("ok")),
    );
    expect((await h.exec(["-s", "danger-full-access", "go"])).code).toBe(0);
    expect(h.outputOf(1, "call_1")).toBe(
      "Command blocked by PreToolUse hook: rm -rf is not allowed. Command: rm -rf build",
    );
    expect(h.outputOf(1, "call_2")).toContain("fine");
    const audit = (await readFile(join(h.home, "tscodex-audit.jsonl"), "utf8")).trim().split("\n");
    expect(audit.map((line) => JSON.parse(line).input.command)).toEqual(["echo fine"]);
  });
});
