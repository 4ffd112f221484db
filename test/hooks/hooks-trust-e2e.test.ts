/**
 * Hook trust, project layers, PermissionRequest under `exec --approve-for-me`, and hooks as
 * library callbacks, end to end against the fake model.
 */
import { mkdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import { type HookInput, Tscodex } from "../../src/index.js";
import type { EventOf } from "../../src/protocol/events.js";
import { useExecHarness } from "../support/exec-harness.js";
import { functionCall, message, turn } from "../support/fake-model-server.js";
import { codexPayloadKeys, recorded, recorder, writeHooksJson } from "./hook-fixtures.js";

const h = useExecHarness({ execArgs: ["--skip-git-repo-check"] });
let log: string;
beforeEach(async () => {
  log = join(h.home, "hook-log");
  await mkdir(log);
});

const twoShellCalls = () =>
  h.server.enqueue(
    turn(functionCall("shell_command", { command: "echo one" }, "call_1")),
    turn(functionCall("shell_command", { command: "echo two" }, "call_2")),
    turn(message("ok")),
  );

describe("hook trust", () => {
  it("an untrusted hook does not run and is named in one warning", async () => {
    await writeHooksJson(h.home, { PreToolUse: [{ matcher: "Bash", command: recorder(log, "PreToolUse") }] });
    twoShellCalls();
    const result = await h.exec(["go"]);
    expect(result.code).toBe(0);
    expect(await recorded(log, "PreToolUse")).toEqual([]);
    const key = `${join(h.home, "hooks.json")}:pre_tool_use:0:0`;
    expect(result.stderr.split(key).length - 1).toBe(1);
    expect(result.stderr).toContain("untrusted hooks did not run");
  });

  it("`tscodex hooks trust` records the hash; the hook then runs, and again needs trust once edited", async () => {
    await writeHooksJson(h.home, { PreToolUse: [{ matcher: "Bash", command: recorder(log, "PreToolUse") }] });
    const listed = await h.cli(["hooks", "list", "--json"]);
    expect(listed.code).toBe(0);
    const [row] = JSON.parse(listed.stdout) as { key: string; currentHash: string; trusted: boolean }[];
    expect(row).toMatchObject({ key: `${join(h.home, "hooks.json")}:pre_tool_use:0:0`, trusted: false });
    expect(row?.currentHash).toMatch(/^sha256:[0-9a-f]{64}$/);

    expect((await h.cli(["hooks", "trust", "--all"])).code).toBe(0);
    const config = await readFile(join(h.home, "config.toml"), "utf8");
    expect(config).toContain(
      `[hooks.state.${JSON.stringify(row?.key)}]\ntrusted_hash = "${row?.currentHash}"`,
    );
    expect(config).toContain("[model_providers.fake]");
    twoShellCalls();
    expect((await h.exec(["go"])).code).toBe(0);
    expect(await recorded(log, "PreToolUse")).toHaveLength(2);

    await writeHooksJson(h.home, {
      PreToolUse: [{ matcher: "Bash", command: `${recorder(log, "Edited")} true` }],
    });
    twoShellCalls();
    const edited = await h.exec(["go"]);
    expect(await recorded(log, "Edited")).toEqual([]);
    expect(edited.stderr).toContain("untrusted hooks did not run");
    expect(edited.stderr).toContain("changed since it was trusted");
    // Codex's trust status for a hook whose stored hash is not its current one.
    const relisted = JSON.parse((await h.cli(["hooks", "list", "--json"])).stdout) as {
      trustStatus: string;
    }[];
    expect(relisted[0]).toMatchObject({ trusted: false, trustStatus: "modified" });
    expect((await h.cli(["hooks", "list"])).stdout).toMatch(/^modified +PreToolUse/);
  });

  it("project .codex/ hooks load only for a trusted project", async () => {
    await mkdir(join(h.work, ".codex"));
    await writeHooksJson(join(h.work, ".codex"), {
      UserPromptSubmit: [{ command: recorder(log, "Project") }],
    });
    h.server.enqueue(turn(message("ok")), turn(message("ok")));
    const untrusted = await h.exec(["--dangerously-bypass-hook-trust", "go"]);
    expect(untrusted.code).toBe(0);
    expect(await recorded(log, "Project")).toEqual([]);
    expect(untrusted.stderr).toContain(
      `untrusted project-local configuration is disabled: ${join(h.work, ".codex", "hooks.json")} not loaded`,
    );
    await h.writeConfig({ extra: `[projects.${JSON.stringify(h.work)}]\ntrust_level = "trusted"` });
    expect((await h.exec(["--dangerously-bypass-hook-trust", "go"])).code).toBe(0);
    expect(await recorded(log, "Project")).toHaveLength(1);
  });
});

describe("PermissionRequest under exec --approve-for-me", () => {
  const escalated = (command: string) =>
    functionCall(
      "shell_command",
      { command, sandbox_permissions: "require_escalated", justification: "need to write outside" },
      "call_1",
    );
  const answer = (decision: string) =>
    `${recorder(log, "PermissionRequest")} printf '%s' '{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":${decision}}}'`;

  it("allow runs the escalated command without asking; the payload has Codex's keys", async () => {
    await writeHooksJson(h.home, {
      PermissionRequest: [{ matcher: "Bash", command: answer('{"behavior":"allow"}') }],
    });
    h.server.enqueue(turn(escalated("touch made.txt && echo made")), turn(message("ok")));
    const result = await h.exec(["--approve-for-me", "--dangerously-bypass-hook-trust", "go"]);
    expect(result.code).toBe(0);
    expect(h.outputOf(1, "call_1")).toContain("made");
    const [payload] = await recorded(log, "PermissionRequest");
    expect(Object.keys(payload ?? {}).sort()).toEqual(codexPayloadKeys().get("PermissionRequest"));
    expect(payload).toMatchObject({
      permission_mode: "default",
      tool_name: "Bash",
      tool_input: { command: "touch made.txt && echo made", description: "need to write outside" },
    });
  });

  it("deny refuses it with Codex's message", async () => {
    await writeHooksJson(h.home, {
      PermissionRequest: [{ command: answer('{"behavior":"deny","message":"not today"}') }],
    });
    h.server.enqueue(turn(escalated("touch made.txt && echo made")), turn(message("ok")));
    expect((await h.exec(["--approve-for-me", "--dangerously-bypass-hook-trust", "go"])).code).toBe(0);
    expect(h.outputOf(1, "call_1")).toBe(
      'exec_command failed: CreateProcess { message: "Rejected(\\"not today\\")" }',
    );
  });

  it("with no hook deciding, the reviewer model answers (automatic approval review)", async () => {
    h.server.enqueue(
      turn(escalated("touch made.txt && echo made")),
      turn(message('{"outcome":"allow"}')),
      turn(message("ok")),
    );
    expect((await h.exec(["--approve-for-me", "go"])).code).toBe(0);
    expect(h.server.requests[1]?.headers["x-openai-subagent"]).toBe("guardian");
    expect(h.outputOf(2, "call_1")).toContain("made");
  });
});

describe("hooks as library callbacks", () => {
  it("a PreToolUse callback denies a call in process, with Codex's payload", async () => {
    h.server.enqueue(
      turn(functionCall("shell_command", { command: "rm -rf build" }, "call_1")),
      turn(message("ok")),
    );
    const seen: HookInput<"PreToolUse">[] = [];
    const agent = new Tscodex({ home: h.home, env: h.libraryEnv() });
    const thread = agent.startThread({
      cwd: h.work,
      sandboxMode: "danger-full-access",
      hooks: {
        PreToolUse: async (input) => {
          seen.push(input);
          const command = String((input.tool_input as { command?: string }).command);
          if (!command.includes("rm -rf")) return undefined;
          return {
            hookSpecificOutput: {
              hookEventName: "PreToolUse",
              permissionDecision: "deny",
              permissionDecisionReason: "rm -rf is not allowed",
            },
          };
        },
      },
    });
    const result = await thread.run("clean up");
    await agent.close();
    expect(result.status).toBe("completed");
    expect(seen[0]).toMatchObject({
      hook_event_name: "PreToolUse",
      tool_name: "Bash",
      tool_use_id: "call_1",
    });
    expect(h.outputOf(1, "call_1")).toBe(
      "Command blocked by PreToolUse hook: rm -rf is not allowed. Command: rm -rf build",
    );
  });
  it("callback runs are reported as hook_started / hook_completed, handler type callback", async () => {
    h.server.enqueue(
      turn(functionCall("shell_command", { command: "rm -rf build" }, "call_1")),
      turn(functionCall("shell_command", { command: "echo fine" }, "call_2")),
      turn(message("ok")),
    );
    const agent = new Tscodex({ home: h.home, env: h.libraryEnv() });
    const thread = agent.startThread({
      cwd: h.work,
      sandboxMode: "danger-full-access",
      hooks: {
        PreToolUse: async function guard(input) {
          const command = String((input.tool_input as { command?: string }).command);
          if (!command.includes("rm -rf")) return { hookSpecificOutput: { hookEventName: "PreToolUse" } };
          return {
            hookSpecificOutput: {
              hookEventName: "PreToolUse",
              permissionDecision: "deny",
              permissionDecisionReason: "no rm -rf",
            },
          };
        },
        Stop: () => {
          throw new Error("stop callback broke");
        },
      },
    });
    const runs: EventOf<"hook_started" | "hook_completed">[] = [];
    for await (const event of thread.runStreamed("clean up"))
      if (event.type === "hook_started" || event.type === "hook_completed") runs.push(event);
    await agent.close();
    const turnId = runs[0]?.turn_id;
    expect(turnId).toEqual(expect.any(String));
    expect(runs.map(({ type, run }) => [type, run.event_name, run.status])).toEqual([
      ["hook_started", "PreToolUse", "running"],
      ["hook_completed", "PreToolUse", "blocked"],
      ["hook_started", "PreToolUse", "running"],
      ["hook_completed", "PreToolUse", "completed"],
      ["hook_started", "Stop", "running"],
      ["hook_completed", "Stop", "failed"],
    ]);
    expect(runs.every((event) => event.turn_id === turnId)).toBe(true);
    expect(runs[1]?.run).toMatchObject({
      id: "pre_tool_use:0:callback:guard",
      handler_type: "callback",
      source: "sessionFlags",
      source_path: "callback:guard",
      display_order: 0,
      scope: "turn",
      entries: [{ kind: "feedback", text: "no rm -rf" }],
    });
    expect(runs[5]?.run).toMatchObject({
      id: "stop:1:callback:Stop",
      handler_type: "callback",
      entries: [{ kind: "error", text: "callback failed: stop callback broke" }],
    });
    for (const { run } of runs.filter((event) => event.type === "hook_completed"))
      expect(run.duration_ms).toBeGreaterThanOrEqual(0);
  });
});
