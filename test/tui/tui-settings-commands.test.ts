/**
 * The terminal UI's slash commands for settings and threads (tmux, fake model): /status names
 * the thread and its settings, /model and /approvals change the next turn (without an argument
 * they open a picker, tui-pickers.test.ts), /resume ID reopens a
 * thread with its history, /mcp lists the configured servers' tools, /init sends the AGENTS.md
 * prompt (the agent writes the file), /review asks for a review of the working tree, /quit
 * leaves with status 0.
 */
import { existsSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { useExecHarness } from "../support/exec-harness.js";
import { customToolCall, functionCall, message, turn } from "../support/fake-model-server.js";
import { fixtureScript, fixtureToml } from "../support/mcp-fixture.js";
import { type TmuxTerminal, useTmuxTerminal } from "../support/tmux.js";

const h = useExecHarness();

const open = useTmuxTerminal(h);

beforeAll(async () => {
  await fixtureScript();
});

const command = async (t: TmuxTerminal, text: string) => {
  await t.type(text);
  await t.send("Enter");
};

describe("settings and thread commands in the terminal UI", () => {
  it("/status names the thread and settings; /model and /approvals apply to the next turn", async () => {
    h.server.enqueue(
      turn(message("first")),
      turn(functionCall("shell_command", { command: "touch asked.txt" }, "call_1")),
      turn(message("after the approval")),
    );
    const t = await open(["-s", "workspace-write", "-a", "never", "hello"]);
    await t.waitFor("first");
    await command(t, "/status");
    const status = await t.waitFor(/^cwd /m);
    expect(status).toMatch(/^thread [0-9a-f-]{36}$/m);
    expect(status).toMatch(/^model gpt-5\.2-codex$/m);
    expect(status).toMatch(/^reasoning effort the model's default$/m);
    expect(status).toMatch(/^sandbox workspaceWrite$/m);
    expect(status).toMatch(/^approval never$/m);
    expect(status).toContain(`cwd ${h.work}`);

    await command(t, "/model");
    await t.waitFor(/^Select Model and Effort\n› gpt-5\.2-codex \(current\)/m);
    await t.send("Escape");
    await t.waitFor(
      (screen) => !screen.includes("Select Model and Effort") && screen.includes("Ask anything"),
    );
    await command(t, "/approvals");
    await t.waitFor(/^Approval policy\n {2}untrusted\n {2}on-failure\n {2}on-request\n› never \(current\)/m);
    await t.send("Escape");
    await t.waitFor((screen) => !screen.includes("Approval policy") && screen.includes("Ask anything"));
    await command(t, "/approvals sometimes");
    await t.waitFor("unknown approval policy sometimes: use one of untrusted, on-failure, on-request, never");
    await command(t, "/model gpt-test-mini");
    await t.waitFor("model set to gpt-test-mini (from the next turn)");
    await t.waitFor(/gpt-test-mini · sandbox workspaceWrite · approval never/);
    await command(t, "/approvals untrusted");
    await t.waitFor(/gpt-test-mini · sandbox workspaceWrite · approval untrusted/);

    await command(t, "make a file");
    const asked = await t.waitFor("Approval needed");
    expect(asked).toContain("Run touch asked.txt");
    expect(h.server.requests[1]?.body.model).toBe("gpt-test-mini");
    await t.type("n");
    await t.waitFor("after the approval");
    expect(existsSync(join(h.work, "asked.txt"))).toBe(false);
  });

  it("/resume ID reopens an earlier thread with its history", async () => {
    h.server.enqueue(turn(message("noted alpha")), turn(message("noted beta")));
    const t = await open(["remember alpha"]);
    await t.waitFor("noted alpha");
    await command(t, "/status");
    const id = /^thread (\S+)$/m.exec(await t.waitFor(/^thread \S+$/m))?.[1];
    expect(id).toBeDefined();
    await command(t, "/new");
    await t.waitFor("new thread started");
    await command(t, "remember beta");
    await t.waitFor("noted beta");
    await command(t, `/resume ${id}`);
    const screen = await t.waitFor(`resumed thread ${id}`);
    expect(screen).toContain("› remember alpha");
    expect(screen).toContain("noted alpha");
    expect(screen).not.toContain("noted beta");
    await command(t, "/resume no-such-thread");
    await t.waitFor("/resume: no saved thread found with id no-such-thread");
    expect(await t.capture()).toContain("› remember alpha");
  });

  it("/mcp lists the configured MCP servers and their tools", async () => {
    await h.writeConfig({ extra: await fixtureToml({ name: "fx" }) });
    const t = await open([]);
    await t.waitFor("approval");
    await command(t, "/mcp");
    const screen = await t.waitFor(/^fx: /m, 60_000);
    expect(screen).toMatch(/^fx: dotted\.name, echo, fail, image, loose, slow, structured, throws$/m);
  }, 90_000);

  it("/mcp says so when no server is configured", async () => {
    const t = await open([]);
    await t.waitFor("approval");
    await command(t, "/mcp");
    await t.waitFor("no MCP servers configured");
  });

  it("/init sends the AGENTS.md prompt; the agent writes the file", async () => {
    await writeFile(join(h.work, "package.json"), '{"name":"demo"}\n');
    const patch = "*** Begin Patch\n*** Add File: AGENTS.md\n+# Demo\n*** End Patch\n";
    h.server.enqueue(turn(customToolCall("apply_patch", patch, "call_p")), turn(message("wrote it")));
    const t = await open(["-s", "workspace-write", "-a", "never"]);
    await t.waitFor("approval");
    await command(t, "/init");
    await t.waitFor("wrote it");
    expect(JSON.stringify(h.server.requests[0]?.input.at(-1))).toContain("Generate a file named AGENTS.md");
    expect(existsSync(join(h.work, "AGENTS.md"))).toBe(true);
  });

  it("/review asks for a review of the uncommitted changes", async () => {
    await writeFile(join(h.work, "changed.txt"), "a change\n");
    h.server.enqueue(turn(message("No issues found in changed.txt.")));
    const t = await open([]);
    await t.waitFor("approval");
    await command(t, "/review");
    await t.waitFor(/\/review: this server has no review\/start|No issues found in changed\.txt\./);
  });

  it("/quit leaves with status 0", async () => {
    const t = await open([]);
    await t.waitFor("approval");
    await t.type("/qu");
    await t.waitFor(/\/quit\s+leave/);
    await t.send("C-u");
    await command(t, "/quit");
    expect(await t.exitCode()).toBe(0);
  });
});
