/**
 * Shared by the file tool tests: invocations with a real turn context, the reference's
 * recorded calls (tool-outputs/outputs.json), and the oracle's `exp-tools` workspace rebuilt
 * in a temp dir so those calls can be replayed with their paths rewritten.
 */

import { mkdir, readFile, utimes, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { expect } from "vitest";
import type { ToolDefinition, ToolInvocation, ToolOutput, TurnContext } from "../../src/tools/types.js";
import { ToolError } from "../../src/tools/types.js";
import { referencePath } from "../support/reference.js";
import { runHandler, testTurnContext } from "../support/turn-context.js";

const OUTPUTS = referencePath("tool-outputs/outputs.json");

export interface RecordedCall {
  run: string;
  call_id: string;
  tool: string;
  arguments: string;
  output: string;
  followed_by_user_message?: { type: string; text?: string; image_url?: string };
}

/** The reference calls of one tool. */
export async function recordedCalls(tool: string): Promise<RecordedCall[]> {
  const all = JSON.parse(await readFile(OUTPUTS, "utf8")) as RecordedCall[];
  return all.filter((call) => call.tool === tool);
}

export function turnContext(cwd: string, overrides: Partial<TurnContext> = {}): TurnContext {
  return testTurnContext({
    cwd,
    sandboxMode: "read-only",
    truncation: { mode: "tokens", limit: 10_000 },
    ...overrides,
  });
}

/** Call a function tool with JSON arguments; a `respond` ToolError becomes its text. */
export async function callTool(
  tool: ToolDefinition,
  args: object | string,
  cwd: string,
  overrides: Partial<TurnContext> = {},
): Promise<{ text: string; output?: ToolOutput }> {
  const invocation: ToolInvocation = {
    callId: "call_1",
    toolName: tool.spec.type === "function" ? tool.spec.name : tool.spec.type,
    payload: { kind: "function", arguments: typeof args === "string" ? args : JSON.stringify(args) },
    turn: turnContext(cwd, overrides),
  };
  try {
    const output = await runHandler(tool.handler, invocation);
    expect(typeof output.content).toBe("string");
    return { text: output.content as string, output };
  } catch (error) {
    if (error instanceof ToolError && error.kind === "respond") return { text: error.message };
    throw error;
  }
}

/** The oracle's workspace for the `exp-tools` run. */
export const ORACLE_ROOT = "/tmp/oracle-work/exp-tools";

export const MAIN_PY = [
  "import os",
  "",
  "# helper docs",
  "def outer():",
  "    x = 1",
  "    def inner():",
  "        return x",
  "    return inner()",
  "",
  "def other():",
  "    pass",
  "",
].join("\n");

/**
 * Rebuild the `exp-tools` workspace under `root`. The grep matches get distinct mtimes,
 * a.rs the newest, as the reference lists it first.
 */
export async function buildExpTools(root: string): Promise<void> {
  await mkdir(join(root, "docs"), { recursive: true });
  await mkdir(join(root, "src/nested/deeper"), { recursive: true });
  await writeFile(join(root, "docs/readme.md"), "# docs\n");
  await writeFile(join(root, "five.txt"), "line1\nline2\nline3\nline4\nline5\n");
  await writeFile(join(root, "longline.txt"), `${"long ".repeat(200)}\n`);
  await writeFile(join(root, "src/main.py"), MAIN_PY);
  await writeFile(join(root, "src/nested/a.rs"), "fn main() { let needle = 1; }\n");
  await writeFile(join(root, "src/nested/deeper/b.ts"), "export const needle = 2;\n");
  await utimes(join(root, "src/nested/deeper/b.ts"), 1_700_000_000, 1_700_000_000);
  await utimes(join(root, "src/nested/a.rs"), 1_700_000_100, 1_700_000_100);
}

/** Replace the oracle's root with `root` everywhere in `text`. */
export function relocate(text: string, root: string): string {
  return text.split(ORACLE_ROOT).join(root);
}
