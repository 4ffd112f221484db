/**
 * The stdio server's first `codex` call is checked without zod (codex-plain-args.ts,
 * stdio-quick-call.ts): what passes must be what codexArgs parses, and whatever codexArgs
 * refuses, or anything in doubt, must go to the SDK server (null) to get its error there.
 */
import { describe, expect, it } from "vitest";
import { plainCodexArgs } from "../../src/frontends/mcp-server/codex-plain-args.js";
import { codexArgs } from "../../src/frontends/mcp-server/codex-schema.js";
import { plainCodexCall } from "../../src/frontends/mcp-server/stdio-quick-call.js";

const VALID: Record<string, unknown>[] = [
  {},
  { prompt: "hi" },
  { prompt: "hi", cwd: "/tmp", sandbox: "read-only", "approval-policy": "never" },
  {
    prompt: "all",
    "approval-policy": "on-request",
    sandbox: "workspace-write",
    config: { model_reasoning_effort: "high", nested: { a: [1] } },
    cwd: "/w",
    model: "m",
    profile: "p",
    "base-instructions": "b",
    "developer-instructions": "d",
    "compact-prompt": "c",
    "include-plan-tool": false,
    sessionId: "s",
    resetSession: true,
    image: ["a.png", "b.png"],
    pageSize: 1000,
    pageToken: "t",
    background: true,
    approvalPolicy: "untrusted",
    workingDirectory: "/w",
    baseInstructions: "b",
  },
  { pageToken: "t", image: "one.png", pageSize: 2 ** 40 },
];

const DOUBTFUL: unknown[] = [
  null,
  [],
  "prompt",
  { prompt: 1 },
  { prompt: null },
  { prompt: "x", sandbox: "everything" },
  { prompt: "x", "approval-policy": "always" },
  { prompt: "x", approvalPolicy: "sometimes" },
  { prompt: "x", config: [] },
  { prompt: "x", config: null },
  { prompt: "x", config: JSON.parse('{"__proto__": {"polluted": true}}') },
  { prompt: "x", image: [1] },
  { prompt: "x", pageSize: 0 },
  { prompt: "x", pageSize: 1.5 },
  { prompt: "x", pageSize: -3 },
  { prompt: "x", pageSize: 2 ** 60 },
  { prompt: "x", "include-plan-tool": "no" },
  { prompt: "x", unknown: "field" },
  JSON.parse('{"prompt": "x", "__proto__": {}}'),
];

describe("plainCodexArgs", () => {
  it.each(VALID.map((args) => [JSON.stringify(args), args]))(
    "passes %s as codexArgs parses it",
    (_, args) => {
      expect(plainCodexArgs(args)).toStrictEqual(codexArgs.parse(args));
    },
  );

  // What zod refuses, and what is merely unusual (unknown keys, `__proto__`): zod answers it.
  it.each(DOUBTFUL.map((args) => [JSON.stringify(args), args]))("leaves %s to zod", (_, args) => {
    expect(plainCodexArgs(args)).toBeNull();
  });
});

describe("plainCodexCall", () => {
  const call = (message: Record<string, unknown>) =>
    plainCodexCall({ jsonrpc: "2.0", id: 7, method: "tools/call", ...message });

  it("takes a plain codex call, with or without a progress token", () => {
    expect(call({ params: { name: "codex", arguments: { prompt: "hi" } } })).toEqual({
      id: 7,
      args: { prompt: "hi" },
    });
    expect(
      call({ params: { name: "codex", arguments: { prompt: "hi" }, _meta: { progressToken: "p" } } }),
    ).toEqual({ id: 7, args: { prompt: "hi" }, progressToken: "p" });
  });

  it("leaves everything else to the SDK server", () => {
    const plain = { name: "codex", arguments: { prompt: "hi" } };
    expect(call({ params: { ...plain, name: "codex-reply" } })).toBeNull();
    expect(call({ params: { name: "codex" } })).toBeNull();
    expect(call({ params: { ...plain, _meta: { "idempotency-key": "k" } } })).toBeNull();
    expect(call({ params: { ...plain, _meta: { progressToken: 1.5 } } })).toBeNull();
    expect(call({ params: { ...plain, task: {} } })).toBeNull();
    expect(call({ params: plain, id: null })).toBeNull();
    expect(call({ params: plain, id: 0.5 })).toBeNull();
    expect(call({ params: plain, extra: 1 })).toBeNull();
    expect(call({ params: plain, jsonrpc: "1.0" })).toBeNull();
  });
});
