/**
 * MCP tool-call approvals end to end: `tscodex exec` against the fake model with stdio fixture
 * servers serving annotated tools (FIXTURE_SET=approvals), one server per approval-mode
 * setting, every row of the reference table (hooks-skills-mcp-auth.md section 3). A refused
 * call must never reach the server: each server logs the calls it gets.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { useExecHarness } from "../support/exec-harness.js";
import { functionCall, message, turn } from "../support/fake-model-server.js";
import { fixtureScript, fixtureToml } from "../support/mcp-fixture.js";
import { readReference } from "../support/reference.js";

const h = useExecHarness({ config: false });
beforeAll(async () => {
  await fixtureScript();
});

/** Codex's refusal text, as the reference records it (its lines joined). */
const NEVER = /the model gets `(MCP tool call requires approval[^`]*)`/
  .exec(readReference("hooks-skills-mcp-auth.md"))?.[1]
  ?.replace(/\s+/g, " ");

const callLog = () => join(h.work, "..", `${h.work.split("/").at(-1)}-calls`);

/** A fixture server named `name` with the approval tools and `extra` TOML lines. */
async function server(name: string, extra: string[] = []): Promise<string> {
  // Several servers start at once on a loaded machine: a start-up bound that is not the test.
  const settings = ["startup_timeout_sec = 60", ...extra];
  return fixtureToml({
    name,
    env: { FIXTURE_SET: "approvals", FIXTURE_CALLLOG: callLog() },
    extra: settings,
  });
}

async function calledTools(): Promise<string[]> {
  const text = await readFile(callLog(), "utf8").catch(() => "");
  return text.trim().split("\n").filter(Boolean).sort();
}

type JsonEvent = { type: string; item?: Record<string, unknown> };

describe("MCP approval modes in exec (approval policy never)", () => {
  it("follows every row of the reference table; refused calls never reach the server", async () => {
    expect(NEVER).toBe("MCP tool call requires approval, but approval policy is never");
    await h.writeConfig({
      extra: [
        await server("auto"),
        await server("writes", ['default_tools_approval_mode = "writes"']),
        await server("pertool", [
          '[mcp_servers.pertool.tools.ro]\napproval_mode = "prompt"',
          '[mcp_servers.pertool.tools.destroy]\napproval_mode = "approve"',
        ]),
        await server("srvapprove", [
          'default_tools_approval_mode = "approve"',
          '[mcp_servers.srvapprove.tools.destroy]\napproval_mode = "prompt"',
        ]),
        await server("srvprompt", [
          'default_tools_approval_mode = "prompt"',
          '[mcp_servers.srvprompt.tools.plain]\napproval_mode = "approve"',
        ]),
      ].join("\n"),
    });
    h.server.enqueue(
      turn(
        functionCall("mcp__auto__ro", {}, "auto_ro"),
        functionCall("mcp__auto__plain", {}, "auto_plain"),
        functionCall("mcp__auto__destroy", {}, "auto_destroy"),
        functionCall("mcp__writes__ro", {}, "writes_ro"),
        functionCall("mcp__writes__plain", {}, "writes_plain"),
        functionCall("mcp__writes__destroy", {}, "writes_destroy"),
        functionCall("mcp__pertool__ro", {}, "pertool_ro"),
        functionCall("mcp__pertool__destroy", {}, "pertool_destroy"),
        functionCall("mcp__srvapprove__plain", {}, "srvapprove_plain"),
        functionCall("mcp__srvapprove__destroy", {}, "srvapprove_destroy"),
        functionCall("mcp__srvprompt__plain", {}, "srvprompt_plain"),
        functionCall("mcp__srvprompt__ro", {}, "srvprompt_ro"),
      ),
      turn(message("done")),
    );
    const result = await h.exec(["-s", "workspace-write", "--json", "use the tools"], { timeoutMs: 100_000 });
    expect(result.code, result.stderr).toBe(0);
    const ran = (tool: string) => `[{"text":"${tool} ran","type":"text"}]`;
    expect(h.outputs()).toEqual({
      auto_ro: ran("ro"), // readOnlyHint, auto: runs
      auto_plain: NEVER, // no annotations, auto: refused
      auto_destroy: NEVER, // destructiveHint, auto: refused
      writes_ro: ran("ro"),
      writes_plain: NEVER,
      writes_destroy: NEVER,
      pertool_ro: NEVER, // readOnlyHint, per-tool prompt: refused
      pertool_destroy: ran("destroy"), // destructiveHint, per-tool approve: runs
      srvapprove_plain: ran("plain"), // server approve: runs
      srvapprove_destroy: NEVER, // server approve, per-tool prompt: per tool wins
      srvprompt_plain: ran("plain"), // server prompt, per-tool approve: per tool wins
      srvprompt_ro: NEVER, // server prompt applies to a read-only tool too
    });
    expect(await calledTools()).toEqual(["destroy", "plain", "plain", "ro", "ro"]);
    // The refused calls are failed mcp_tool_call items carrying the message.
    const events = result.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as JsonEvent);
    const failed = events.filter(
      (event) =>
        event.type === "item.completed" &&
        event.item?.type === "mcp_tool_call" &&
        event.item.status === "failed",
    );
    expect(failed).toHaveLength(7);
    expect(failed[0]?.item).toMatchObject({
      server: "auto",
      tool: "plain",
      result: null,
      error: { message: NEVER },
      status: "failed",
    });
  }, 120_000);

  it("danger-full-access runs every tool except `prompt` ones, which keep asking (unlike Codex)", async () => {
    await h.writeConfig({
      extra: [
        await server("auto"),
        await server("srvprompt", ['default_tools_approval_mode = "prompt"']),
      ].join("\n"),
    });
    h.server.enqueue(
      turn(
        functionCall("mcp__auto__plain", {}, "plain"),
        functionCall("mcp__auto__destroy", {}, "destroy"),
        functionCall("mcp__srvprompt__ro", {}, "prompt_ro"),
      ),
      turn(message("done")),
    );
    const result = await h.exec(["-s", "danger-full-access", "go"]);
    expect(result.code, result.stderr).toBe(0);
    expect(h.outputs()).toEqual({
      plain: '[{"text":"plain ran","type":"text"}]',
      destroy: '[{"text":"destroy ran","type":"text"}]',
      prompt_ro: NEVER,
    });
    expect(await calledTools()).toEqual(["destroy", "plain"]);
  }, 120_000);
});

describe("MCP approvals asked through the approval path", () => {
  it("exec answers with its declared outcome: denied by default, approved when configured", async () => {
    await h.writeConfig({ extra: await server("auto") });
    h.server.enqueue(turn(functionCall("mcp__auto__plain", {}, "denied")), turn(message("done")));
    const denied = await h.exec(["-a", "on-request", "-s", "workspace-write", "go"]);
    expect(denied.code, denied.stderr).toBe(0);
    expect(h.outputs()).toEqual({ denied: "user rejected MCP tool call" });
    expect(denied.stderr).toContain("approval requested (MCP tool call)");
    expect(denied.stderr).toContain("auto.plain({})");
    expect(await calledTools()).toEqual([]);

    await h.writeConfig({ extra: `${await server("auto")}\n[approvals]\nexec_outcome = "approve"\n` });
    h.server.enqueue(turn(functionCall("mcp__auto__plain", { x: 1 }, "approved")), turn(message("done")));
    const approved = await h.exec(["-a", "on-request", "-s", "workspace-write", "--json", "go"]);
    expect(approved.code, approved.stderr).toBe(0);
    expect(h.outputs()).toEqual({ approved: '[{"text":"plain ran","type":"text"}]' });
    expect(await calledTools()).toEqual(["plain"]);
  }, 120_000);
});

describe("required servers", () => {
  it("a required server that fails to start fails the run; an optional one is skipped", async () => {
    await h.writeConfig({
      extra: [
        await fixtureToml({ name: "optional", mode: "crash" }),
        await fixtureToml({ name: "needed", mode: "crash", extra: ["required = true"] }),
      ].join("\n"),
    });
    h.server.enqueue(turn(message("never sent")));
    const result = await h.exec(["go"]);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(
      /required MCP servers failed to initialize: needed: [^\n]*crashing at startup/,
    );
    expect(result.stderr).not.toMatch(/initialize: [^\n]*optional:/);
    expect(h.server.requests).toHaveLength(0);
  });
});
