/**
 * MCP elicitations in the terminal UI (tmux, fake model, the MCP fixture's `ask_name` tool): the
 * server's question is shown with its field, the typed answer goes back to the MCP server, Esc
 * declines. The form logic (types, choices, required fields, URL mode) is checked directly.
 */
import { beforeAll, describe, expect, it } from "vitest";
import {
  ElicitationPrompt,
  type ElicitationResponse,
  parseElicitation,
} from "../../src/frontends/tui/elicitation.js";
import { createStyle } from "../../src/frontends/tui/style.js";
import { readServerRequest } from "../../src/frontends/tui/wire.js";
import { useExecHarness } from "../support/exec-harness.js";
import { functionCall, message, turn } from "../support/fake-model-server.js";
import { fixtureScript, fixtureToml } from "../support/mcp-fixture.js";
import { useTmuxTerminal } from "../support/tmux.js";

const h = useExecHarness();

const open = useTmuxTerminal(h);

beforeAll(async () => {
  await fixtureScript();
});

async function askName(): Promise<ReturnType<typeof open>> {
  const server = await fixtureToml({
    name: "fx",
    env: { FIXTURE_SET: "approvals" },
    extra: ['default_tools_approval_mode = "approve"'],
  });
  await h.writeConfig({ extra: server });
  h.server.enqueue(turn(functionCall("mcp__fx__ask_name", {}, "call_1")), turn(message("greeted")));
  return open(["-s", "workspace-write", "-a", "on-request", "greet me"]);
}

describe("MCP elicitation in the terminal UI", () => {
  it("shows the server's question; the typed answer reaches the MCP server", async () => {
    const t = await askName();
    const screen = await t.waitFor("What is your name?", 60_000);
    expect(screen).toContain("fx asks");
    expect(screen).toMatch(/name \(string, required, 1\/1\)/);
    await t.send("Enter");
    await t.waitFor("name is required");
    await t.type("Linus");
    await t.send("Enter");
    await t.waitFor("greeted");
    expect(h.outputOf(1, "call_1")).toContain("Hello, Linus!");
  }, 90_000);

  it("Esc declines", async () => {
    const t = await askName();
    await t.waitFor("What is your name?", 60_000);
    await t.send("Escape");
    await t.waitFor("greeted");
    expect(h.outputOf(1, "call_1")).toContain("elicitation: decline");
  }, 90_000);
});

/** Elicitation params as the UI reads them: through the wire's entry point. */
function elicitation(params: Record<string, unknown>) {
  const request = readServerRequest("mcpServer/elicitation/request", {
    threadId: "t",
    turnId: null,
    ...params,
  });
  if (request?.method !== "mcpServer/elicitation/request") throw new Error("not an elicitation");
  return request.params;
}

describe("ElicitationPrompt", () => {
  const style = createStyle(false);
  const ask = (params: Record<string, unknown>) => {
    const answers: ElicitationResponse[] = [];
    const request = parseElicitation(elicitation({ serverName: "s", message: "m", ...params }));
    if (!request) throw new Error("malformed");
    return { prompt: new ElicitationPrompt(request, (answer) => answers.push(answer)), answers };
  };

  it("converts numbers, booleans and choices, and skips optional fields left empty", () => {
    const { prompt, answers } = ask({
      mode: "form",
      requestedSchema: {
        type: "object",
        properties: {
          count: { type: "integer" },
          ok: { type: "boolean" },
          size: { type: "string", enum: ["small", "large"] },
          note: { type: "string" },
        },
        required: ["count"],
      },
    });
    expect(prompt.answer("1.5")).toBe(false);
    expect(prompt.rows(style, 80).join("\n")).toContain("count must be a whole number");
    expect(prompt.answer("3")).toBe(false);
    expect(prompt.answer("maybe")).toBe(false);
    expect(prompt.answer("y")).toBe(false);
    expect(prompt.rows(style, 80).join("\n")).toContain("2. large");
    expect(prompt.answer("2")).toBe(false);
    expect(prompt.answer("")).toBe(true);
    expect(answers).toEqual([{ action: "accept", content: { count: 3, ok: true, size: "large" } }]);
  });

  it("shows a URL and accepts on Enter; declines; refuses malformed requests", () => {
    const { prompt, answers } = ask({ mode: "url", url: "https://example.com/auth" });
    expect(prompt.rows(style, 80).join("\n")).toContain("Open https://example.com/auth");
    expect(prompt.answer("")).toBe(true);
    prompt.decline();
    expect(answers).toEqual([{ action: "accept" }, { action: "decline" }]);
    expect(parseElicitation(elicitation({ serverName: "s", message: "m", mode: "url" }))).toBeNull();
    expect(parseElicitation(elicitation({ serverName: "s", mode: "form" }))).toBeNull();
  });
});
