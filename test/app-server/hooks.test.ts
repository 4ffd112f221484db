/**
 * hooks/list through the real app-server: the configured hooks with their key and current
 * hash, trusted by a config/batchWrite of `hooks.state`, after which a new thread's turn runs
 * the hook. Every message is checked against Codex 0.169's schemas.
 */
import { appendFile, mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { recorded, recorder, writeHooksJson } from "../hooks/hook-fixtures.js";
import type { AppClient } from "../support/app-server-client.js";
import { useAppServerHarness } from "../support/app-server-harness.js";
import { referenceSchemaFailures } from "../support/app-server-schemas.js";
import { functionCall, message, turn } from "../support/fake-model-server.js";
import { fixtureToml } from "../support/mcp-fixture.js";
import { completedItems, runTurn, startThread } from "./flow.js";

const h = useAppServerHarness();

describe("app-server: hooks", () => {
  it("lists a hook untrusted, trusts it with config/batchWrite, and a turn then runs it", async () => {
    const log = join(h.home, "hook-log");
    await mkdir(log);
    await writeHooksJson(h.home, { PreToolUse: [{ matcher: "Bash", command: recorder(log, "PreToolUse") }] });
    const client = await h.stdio();

    const listed = await client.call("hooks/list", { cwds: [h.work] });
    expect(listed.data).toHaveLength(1);
    expect(listed.data[0]).toMatchObject({ cwd: h.work, errors: [] });
    const [hook] = listed.data[0].hooks;
    const key = `${join(h.home, "hooks.json")}:pre_tool_use:0:0`;
    expect(hook).toMatchObject({
      key,
      eventName: "preToolUse",
      handlerType: "command",
      command: recorder(log, "PreToolUse"),
      matcher: "Bash",
      trustStatus: "untrusted",
      source: "user",
      sourcePath: join(h.home, "hooks.json"),
    });
    expect(hook.currentHash).toMatch(/^sha256:[0-9a-f]{64}$/);

    // Untrusted: the turn's shell call runs without the hook.
    const before = await startThread(client, { cwd: h.work });
    h.model.enqueue(
      turn(functionCall("shell_command", { command: "echo one" }, "call_1")),
      turn(message("ok")),
    );
    await runTurn(client, before, "go");
    expect(await recorded(log, "PreToolUse")).toEqual([]);

    await client.call("config/batchWrite", {
      edits: [
        {
          keyPath: "hooks.state",
          value: { [key]: { trusted_hash: hook.currentHash } },
          mergeStrategy: "upsert",
        },
      ],
    });
    const relisted = await client.call("hooks/list", { cwds: [h.work] });
    expect(relisted.data[0].hooks[0]).toMatchObject({ key, trustStatus: "trusted" });

    const after = await startThread(client, { cwd: h.work });
    h.model.enqueue(
      turn(functionCall("shell_command", { command: "echo two" }, "call_2")),
      turn(message("ok")),
    );
    await runTurn(client, after, "go");
    const payloads = await recorded(log, "PreToolUse");
    expect(payloads).toHaveLength(1);
    expect(payloads[0]).toMatchObject({
      hook_event_name: "PreToolUse",
      tool_name: "Bash",
      session_id: after,
    });

    // Edited after it was trusted: `modified`, with a new hash to trust.
    await writeHooksJson(h.home, {
      PreToolUse: [{ matcher: "Bash", command: `${recorder(log, "PreToolUse")} true` }],
    });
    const edited = await client.call("hooks/list", { cwds: [h.work] });
    expect(edited.data[0].hooks[0]).toMatchObject({ key, trustStatus: "modified" });
    expect(edited.data[0].hooks[0].currentHash).not.toBe(hook.currentHash);
    expect(referenceSchemaFailures(client)).toEqual([]);
  }, 90_000); // the first check compiles the 0.169 schemas (about 11 s on a loaded machine)
});

/** Trust every hook `hooks/list` shows for the work dir, as a client would (config/batchWrite). */
async function trustAll(client: AppClient): Promise<void> {
  const listed = await client.call("hooks/list", { cwds: [h.work] });
  const hooks = listed.data[0].hooks as { key: string; currentHash: string }[];
  await client.call("config/batchWrite", {
    edits: [
      {
        keyPath: "hooks.state",
        value: Object.fromEntries(hooks.map((hook) => [hook.key, { trusted_hash: hook.currentHash }])),
        mergeStrategy: "upsert",
      },
    ],
  });
}

describe("app-server: hook runs", () => {
  it("sends hook/started and hook/completed around each command hook, and keeps them out of the rollout", async () => {
    const context = `printf '%s' '{"hookSpecificOutput":{"hookEventName":"UserPromptSubmit","additionalContext":"CTX-RUN"}}'`;
    await writeHooksJson(h.home, {
      UserPromptSubmit: [{ command: context }],
      PreToolUse: [{ matcher: "Bash", command: "echo 'not here' >&2; exit 2" }],
    });
    const client = await h.stdio();
    await trustAll(client);
    const threadId = await startThread(client, { cwd: h.work });
    h.model.enqueue(
      turn(functionCall("shell_command", { command: "echo one" }, "call_1")),
      turn(message("ok")),
    );
    const { turnId } = await runTurn(client, threadId, "go");

    const source = join(h.home, "hooks.json");
    const started = client.notifications("hook/started").map((m) => m.params);
    const completed = client.notifications("hook/completed").map((m) => m.params);
    expect(started.map((p) => [p.threadId, p.turnId, p.run.eventName, p.run.status])).toEqual([
      [threadId, turnId, "userPromptSubmit", "running"],
      [threadId, turnId, "preToolUse", "running"],
    ]);
    expect(completed.map((p) => p.run)).toEqual([
      expect.objectContaining({
        id: `user_prompt_submit:0:${source}`,
        eventName: "userPromptSubmit",
        handlerType: "command",
        scope: "turn",
        source: "user",
        sourcePath: source,
        displayOrder: 0,
        status: "completed",
        entries: [{ kind: "context", text: "CTX-RUN" }],
      }),
      expect.objectContaining({
        id: `pre_tool_use:1:${source}`,
        eventName: "preToolUse",
        status: "blocked",
        entries: [{ kind: "feedback", text: "not here" }],
      }),
    ]);
    for (const { run } of completed) {
      expect(run.completedAt).toBeGreaterThanOrEqual(run.startedAt);
      expect(run.durationMs).toBeGreaterThanOrEqual(0);
    }
    expect(referenceSchemaFailures(client)).toEqual([]);

    // As Codex, hook runs are not kept in the thread's rollout.
    const sessions = join(h.home, "sessions");
    const files = (await readdir(sessions, { recursive: true })).filter((name) => name.endsWith(".jsonl"));
    expect(files.length).toBeGreaterThan(0);
    for (const name of files) expect(await readFile(join(sessions, name), "utf8")).not.toContain("hook_");
  });

  it("a Stop hook's block shows as Codex's hookPrompt item with the hook's run id", async () => {
    const script = join(h.home, "stop.sh");
    await writeFile(
      script,
      `grep -q '"stop_hook_active":false' && printf '%s' '{"decision":"block","reason":"run the tests"}'\nexit 0\n`,
    );
    await writeHooksJson(h.home, { Stop: [{ command: `sh '${script}'` }] });
    const client = await h.stdio();
    await trustAll(client);
    const threadId = await startThread(client, { cwd: h.work });
    h.model.enqueue(turn(message("first")), turn(message("second")));
    const { turnId } = await runTurn(client, threadId, "go");
    const prompts = completedItems(client, turnId, "hookPrompt");
    expect(prompts).toEqual([
      {
        type: "hookPrompt",
        id: expect.any(String),
        fragments: [{ hookRunId: `stop:0:${join(h.home, "hooks.json")}`, text: "run the tests" }],
      },
    ]);
    expect(referenceSchemaFailures(client)).toEqual([]);
  });
});

describe("app-server: PermissionRequest hooks on MCP tool calls", () => {
  it("a hook's allow runs the call and its deny refuses it, without asking the client", async () => {
    const calls = join(h.home, "mcp-calls");
    const server = await fixtureToml({
      name: "fx",
      env: { FIXTURE_SET: "approvals", FIXTURE_CALLLOG: calls },
      extra: ["startup_timeout_sec = 60"],
    });
    await appendFile(join(h.home, "config.toml"), `\n${server}`);
    const decide = (decision: string) =>
      `printf '%s' '{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":${decision}}}'`;
    await writeHooksJson(h.home, {
      PermissionRequest: [
        { matcher: "^mcp__fx__destroy$", command: decide('{"behavior":"allow"}') },
        { matcher: "^mcp__fx__plain$", command: decide('{"behavior":"deny","message":"not plain"}') },
      ],
    });
    const client = await h.stdio();
    await trustAll(client);
    const asked: unknown[] = [];
    client.onRequest = (request) => {
      asked.push(request);
      return { result: { decision: "accept" } };
    };
    const threadId = await startThread(client, { cwd: h.work });
    h.model.enqueue(
      turn(functionCall("mcp__fx__destroy", {}, "call_1"), functionCall("mcp__fx__plain", {}, "call_2")),
      turn(message("done")),
    );
    const { turnId } = await runTurn(client, threadId, "go", {
      approvalPolicy: "on-request",
      sandboxPolicy: { type: "workspaceWrite", writableRoots: [], networkAccess: false },
    });
    expect(asked).toEqual([]);
    const outputs = h.model.requests.at(-1)?.input.filter((item) => item.type === "function_call_output");
    expect(outputs?.map((item) => ("output" in item ? [item.call_id, item.output] : null))).toEqual([
      ["call_1", '[{"text":"destroy ran","type":"text"}]'],
      ["call_2", "MCP tool call rejected by PermissionRequest hook: not plain"],
    ]);
    expect((await readFile(calls, "utf8")).trim()).toBe("destroy");
    const runs = client.notifications("hook/completed").map((m) => m.params.run);
    expect(runs.map((run) => [run.eventName, run.status])).toEqual(
      expect.arrayContaining([
        ["permissionRequest", "completed"],
        ["permissionRequest", "blocked"],
      ]),
    );
    expect(completedItems(client, turnId, "mcpToolCall").map((item) => [item.id, item.status])).toEqual([
      ["call_1", "completed"],
      ["call_2", "failed"],
    ]);
    expect(referenceSchemaFailures(client)).toEqual([]);
  }, 120_000);
});
