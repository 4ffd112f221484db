/**
 * `tscodex mcp-server` over stdio, driven by the official SDK client: codex → codex-reply with
 * context, progress, errors, concurrency, and a restarted server continuing a thread.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { ResponseItem } from "../../src/protocol/items.js";
import { functionCall, hang, message, turn } from "../support/fake-model-server.js";
import { callTool } from "../support/mcp-client.js";
import { useMcpHarness } from "../support/mcp-harness.js";

const h = useMcpHarness();

/** The text of every user/assistant message the model was sent. */
function messageTexts(input: ResponseItem[]): string[] {
  const texts: string[] = [];
  for (const item of input) {
    if (item.type !== "message") continue;
    for (const part of item.content) if ("text" in part) texts.push(part.text);
  }
  return texts;
}

describe("codex and codex-reply over stdio", () => {
  it("starts a thread, then continues it with its history (threadId and conversationId)", async () => {
    const { client } = await h.connect();
    h.model.enqueue(turn(message("first done")));
    const first = await callTool(client, "codex", { prompt: "do the task", cwd: h.work });
    expect(first.result.isError).toBeFalsy();
    expect(first.text).toBe("first done");
    expect(first.threadId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-/);
    expect(first.result.structuredContent).toEqual({ threadId: first.threadId, content: "first done" });

    h.model.enqueue(turn(message("reply done")), turn(message("legacy done")));
    const reply = await callTool(client, "codex-reply", { threadId: first.threadId, prompt: "and now?" });
    expect(reply.result.structuredContent).toEqual({ threadId: first.threadId, content: "reply done" });
    const legacy = await callTool(client, "codex-reply", {
      conversationId: first.threadId,
      prompt: "legacy?",
    });
    expect(legacy.text).toBe("legacy done");

    const third = h.model.requests[2];
    expect(messageTexts(third?.input ?? [])).toEqual(
      expect.arrayContaining(["do the task", "first done", "and now?", "reply done", "legacy?"]),
    );
    expect(third?.headers.originator).toBe("tscodex_mcp_server");
  });

  it("sends progress notifications for commands and plan changes", async () => {
    const { client } = await h.connect();
    h.model.enqueue(
      turn(functionCall("shell_command", { command: "echo from-mcp > out.txt" }, "call_1")),
      turn(functionCall("update_plan", { plan: [{ step: "write file", status: "completed" }] }, "call_2")),
      turn(message("all done")),
    );
    const progress: string[] = [];
    const { text } = await callTool(
      client,
      "codex",
      { prompt: "write it", cwd: h.work, sandbox: "danger-full-access", "approval-policy": "never" },
      progress,
    );
    expect(text).toBe("all done");
    expect(existsSync(join(h.work, "out.txt"))).toBe(true);
    // Not "Turn complete": it is written just before the result, and when both arrive in one
    // read the SDK client handles the result first (notifications wait a microtask) and drops
    // the progress of a finished request.
    expect(progress).toEqual(
      expect.arrayContaining([
        "Turn started",
        "Running `echo from-mcp > out.txt`",
        "Command finished (exit 0): `echo from-mcp > out.txt`",
        "Plan: [x] write file",
      ]),
    );
  });

  it("applies a call's config overrides, model and instructions to its thread only", async () => {
    const { client } = await h.connect();
    h.model.enqueue(turn(message("instructions captured")), turn(message("plain")));
    await callTool(client, "codex", {
      prompt: "x",
      cwd: h.work,
      "base-instructions": "BASE INSTRUCTIONS OVERRIDE",
      "developer-instructions": "DEVELOPER INSTRUCTIONS HERE",
      model: "gpt-5.2",
      config: { model_reasoning_effort: "high" },
    });
    const [custom] = h.model.requests;
    expect(custom?.body).toMatchObject({
      model: "gpt-5.2",
      instructions: "BASE INSTRUCTIONS OVERRIDE",
      reasoning: { effort: "high" },
    });
    expect(JSON.stringify(custom?.input)).toContain("DEVELOPER INSTRUCTIONS HERE");
    await callTool(client, "codex", { prompt: "y", cwd: h.work });
    expect(h.model.requests[1]?.body.model).toBe("gpt-5.2-codex");
    expect(h.model.requests[1]?.body.reasoning).toMatchObject({ effort: "medium" });
  });

  it("refuses prototype keys in a call's config, and the server goes on serving", async () => {
    const { client } = await h.connect();
    for (const config of [
      { "__proto__.x": 1 },
      { "constructor.prototype.sandbox_mode": "danger-full-access" },
    ]) {
      const bad = await callTool(client, "codex", { prompt: "x", cwd: h.work, config });
      expect(bad.result.isError).toBe(true);
      expect(bad.text).toMatch(
        /^Failed to load configuration for Codex tool: .*is not allowed in configuration/,
      );
    }
    h.model.enqueue(turn(message("still serving")));
    const ok = await callTool(client, "codex", { prompt: "y", cwd: h.work });
    expect(ok.text).toBe("still serving");
    expect(h.model.requests).toHaveLength(1);
  });

  it("leaves update_plan out when include-plan-tool is false", async () => {
    const { client } = await h.connect();
    h.model.enqueue(turn(message("no plan")), turn(message("with plan")));
    await callTool(client, "codex", { prompt: "x", cwd: h.work, "include-plan-tool": false });
    await callTool(client, "codex", { prompt: "y", cwd: h.work });
    expect(h.model.requests[0]?.toolNames).not.toContain("update_plan");
    expect(h.model.requests[1]?.toolNames).toContain("update_plan");
  });

  it("answers bad calls with isError results in Codex's words", async () => {
    const { client } = await h.connect();
    const noArgs = await callTool(client, "codex", undefined);
    expect(noArgs.result.isError).toBe(true);
    expect(noArgs.text).toBe("Missing arguments for codex tool-call; the `prompt` field is required.");
    const noPrompt = await callTool(client, "codex", { cwd: h.work });
    expect(noPrompt.text).toBe("Failed to parse configuration for Codex tool: missing field `prompt`");
    const unknown = "00000000-0000-0000-0000-000000000000";
    const missing = await callTool(client, "codex-reply", { threadId: unknown, prompt: "x" });
    expect(missing.result).toMatchObject({
      isError: true,
      structuredContent: { threadId: unknown, content: `Session not found for thread_id: ${unknown}` },
    });
    const noId = await callTool(client, "codex-reply", { prompt: "x" });
    expect(noId.text).toBe("Failed to parse thread_id: either threadId or conversationId must be provided");
    const tool = await callTool(client, "nope", {});
    expect(tool.text).toBe("Unknown tool 'nope'");
    expect(h.model.requests).toHaveLength(0);
  });

  it("runs several threads at once and serializes turns of one thread", async () => {
    const { client } = await h.connect();
    h.model.enqueue(turn(message("a")), turn(message("b")), turn(message("c")));
    const results = await Promise.all(
      ["one", "two", "three"].map((prompt) => callTool(client, "codex", { prompt, cwd: h.work })),
    );
    expect(new Set(results.map((r) => r.threadId)).size).toBe(3);
    expect(results.map((r) => r.text).sort()).toEqual(["a", "b", "c"]);

    const threadId = results[0]?.threadId ?? "";
    h.model.enqueue(turn(message("r1")), turn(message("r2")));
    const replies = await Promise.all(
      ["first", "second"].map((prompt) => callTool(client, "codex-reply", { threadId, prompt })),
    );
    expect(replies.map((r) => r.text)).toEqual(["r1", "r2"]);
    // The second turn's request already holds the first turn's answer.
    expect(messageTexts(h.model.requests.at(-1)?.input ?? [])).toEqual(
      expect.arrayContaining(["first", "r1", "second"]),
    );
  });

  it("continues a thread after the server restarts", async () => {
    const first = await h.connect();
    h.model.enqueue(turn(message("remembered")));
    const started = await callTool(first.client, "codex", { prompt: "remember 42", cwd: h.work });
    await first.close();

    const second = await h.connect();
    h.model.enqueue(turn(message("it was 42")));
    const reply = await callTool(second.client, "codex-reply", {
      threadId: started.threadId,
      prompt: "what was it?",
    });
    expect(reply.result.structuredContent).toEqual({ threadId: started.threadId, content: "it was 42" });
    expect(messageTexts(h.model.requests[1]?.input ?? [])).toEqual(
      expect.arrayContaining(["remember 42", "remembered", "what was it?"]),
    );
  });

  it("continues a client-named session (sessionId) and resets it on request", async () => {
    const { client } = await h.connect();
    h.model.enqueue(turn(message("one")), turn(message("two")), turn(message("fresh")));
    const a = await callTool(client, "codex", {
      prompt: "p1",
      sessionId: "my-session",
      workingDirectory: h.work,
    });
    const b = await callTool(client, "codex", { prompt: "p2", sessionId: "my-session" });
    expect(b.threadId).toBe(a.threadId);
    expect(messageTexts(h.model.requests[1]?.input ?? [])).toEqual(
      expect.arrayContaining(["p1", "one", "p2"]),
    );
    const c = await callTool(client, "codex", { prompt: "p3", sessionId: "my-session", resetSession: true });
    expect(c.text).toBe("fresh");
    expect(messageTexts(h.model.requests[2]?.input ?? [])).not.toContain("p1");
  });

  it("interrupts the turn when the client cancels the call, and the thread goes on", async () => {
    const { client } = await h.connect();
    h.model.enqueue(turn(message("started")));
    const { threadId } = await callTool(client, "codex", { prompt: "first", cwd: h.work });
    h.model.enqueue(turn(hang()));
    const abort = new AbortController();
    const cancelled = client
      .callTool({ name: "codex-reply", arguments: { threadId, prompt: "hangs" } }, undefined, {
        signal: abort.signal,
      })
      .catch((error: unknown) => error);
    await h.model.waitForRequests(2);
    abort.abort();
    expect(await cancelled).toBeInstanceOf(Error);
    // Had the hung turn kept running, this turn would queue behind it forever.
    h.model.enqueue(turn(message("next")));
    const next = await callTool(client, "codex-reply", { threadId, prompt: "next" });
    expect(next.text).toBe("next");
  });

  it("turns a model failure into an isError result and keeps serving", async () => {
    const { client } = await h.connect({ args: ["-c", "model_providers.fake.request_max_retries=0"] });
    const failing = await callTool(client, "codex", { prompt: "x", cwd: h.work });
    expect(failing.result.isError).toBe(true);
    expect(failing.text).toMatch(/^Turn failed: /);
    h.model.enqueue(turn(message("still here")));
    const ok = await callTool(client, "codex", { prompt: "y", cwd: h.work });
    expect(ok.text).toBe("still here");
  });
});
