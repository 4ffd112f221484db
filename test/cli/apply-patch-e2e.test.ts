/**
 * apply_patch end to end: the built CLI (`tscodex exec`, `tscodex apply-patch`) against the fake
 * model server. Expected outputs are Codex 0.89's (reference tool-outputs/outputs.json).
 */
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import type { ResponseItem } from "../../src/protocol/items.js";
import { readTree, zeroTiming } from "../apply-patch/support.js";
import { runCli } from "../support/cli.js";
import { callOutputs, useExecHarness } from "../support/exec-harness.js";
import {
  customToolCall,
  functionCall,
  message,
  type RecordedRequest,
  turn,
} from "../support/fake-model-server.js";

const h = useExecHarness({ execArgs: ["--full-auto"] });
beforeEach(async () => {
  await writeFile(join(h.work, "base.txt"), "alpha\nbeta\ngamma\n");
});

const ADD_HELLO = "*** Begin Patch\n*** Add File: hello.txt\n+Hello\n*** End Patch";
const UPDATE_BASE = "*** Begin Patch\n*** Update File: base.txt\n@@\n alpha\n-beta\n+BETA\n*** End Patch";
const ADD_AND_UPDATE =
  "*** Begin Patch\n*** Add File: hello.txt\n+Hello\n*** Update File: base.txt\n@@\n alpha\n-beta\n+BETA\n*** End Patch";
const BAD_CONTEXT =
  "*** Begin Patch\n*** Add File: never.txt\n+x\n*** Update File: base.txt\n@@ no_such_header\n-beta\n+B\n*** End Patch";

/** The output the model received for each call (timing zeroed), by call id, from every request. */
function outputs(): Record<string, unknown> {
  const byCall = callOutputs(h.server.requests.flatMap((request) => request.input));
  for (const [callId, output] of Object.entries(byCall)) byCall[callId] = zeroTiming(output);
  return byCall;
}

/** The apply_patch spec a request offered. */
function applyPatchSpec(request: RecordedRequest | undefined): Record<string, unknown> | undefined {
  const tools = Array.isArray(request?.body.tools) ? (request.body.tools as Record<string, unknown>[]) : [];
  return tools.find((tool) => tool.name === "apply_patch");
}

/** The work tree without .git, as printable text per file. */
async function tree(): Promise<Record<string, string>> {
  const files = await readTree(h.work);
  const out: Record<string, string> = {};
  for (const [path, bytes] of Object.entries(files)) {
    if (!path.startsWith(".git/")) out[path] = bytes.toString("utf8");
  }
  return out;
}

const success = (...lines: string[]) =>
  `Exit code: 0\nWall time: 0 seconds\nOutput:\nSuccess. Updated the following files:\n${lines.map((l) => `${l}\n`).join("")}`;

describe("apply_patch through tscodex exec", () => {
  it("freeform: adds and updates files; the model gets Codex's output", async () => {
    h.server.enqueue(
      turn(customToolCall("apply_patch", ADD_HELLO, "call_1")),
      turn(customToolCall("apply_patch", UPDATE_BASE, "call_2")),
      turn(message("done")),
    );
    const result = await h.exec(["edit the files"]);
    expect(result.code).toBe(0);
    expect(h.server.errors).toEqual([]);
    expect(applyPatchSpec(h.server.requests[0])).toMatchObject({
      type: "custom",
      format: { syntax: "lark" },
    });
    expect(outputs()).toEqual({ call_1: success("A hello.txt"), call_2: success("M base.txt") });
    const item = h.server.requests[1]?.input.find((i: ResponseItem) => i.type === "custom_tool_call_output");
    expect(item).toMatchObject({ type: "custom_tool_call_output", call_id: "call_1" });
    expect(await tree()).toEqual({ "base.txt": "alpha\nBETA\ngamma\n", "hello.txt": "Hello\n" });
  });

  it("JSON: a function-style call works even when the tool offered is freeform", async () => {
    h.server.enqueue(
      turn(functionCall("apply_patch", { input: ADD_HELLO }, "call_1")),
      turn(message("done")),
    );
    const result = await h.exec(["add it"]);
    expect(result.code).toBe(0);
    expect(h.server.requests[1]?.input.at(-1)).toMatchObject({
      type: "function_call_output",
      call_id: "call_1",
    });
    expect(outputs()).toEqual({ call_1: success("A hello.txt") });
    expect(await readFile(join(h.work, "hello.txt"), "utf8")).toBe("Hello\n");
  });

  it.each([
    { how: "-c tools.apply_patch", args: ["-c", 'tools.apply_patch="function"'], shell: "shell_command" },
    { how: "model gpt-oss-120b", args: ["-m", "gpt-oss-120b"], shell: "shell" },
  ])("JSON: tool selection offers the function variant ($how)", async ({ args, shell }) => {
    h.server.enqueue(
      turn(functionCall("apply_patch", { input: UPDATE_BASE }, "call_1")),
      turn(message("done")),
    );
    const result = await h.exec([...args, "edit it"]);
    expect(result.code).toBe(0);
    expect(h.server.requests[0]?.toolNames).toEqual(expect.arrayContaining([shell, "apply_patch"]));
    expect(applyPatchSpec(h.server.requests[0])).toMatchObject({
      type: "function",
      parameters: { required: ["input"] },
    });
    expect(outputs()).toEqual({ call_1: success("M base.txt") });
    expect(await readFile(join(h.work, "base.txt"), "utf8")).toBe("alpha\nBETA\ngamma\n");
  });

  it("chat wire: the function variant replaces the freeform one", async () => {
    await h.writeConfig({ wireApi: "chat" });
    h.server.enqueue(
      turn(functionCall("apply_patch", { input: ADD_HELLO }, "call_1")),
      turn(message("done")),
    );
    const result = await h.exec(["add it"]);
    expect(result.code).toBe(0);
    const tools = h.server.requests[0]?.body.tools as { type: string; function?: { name: string } }[];
    expect(tools.find((tool) => tool.function?.name === "apply_patch")?.type).toBe("function");
    const answer = h.server.requests[1]?.messages.at(-1);
    expect(answer).toMatchObject({ role: "tool", tool_call_id: "call_1" });
    expect(zeroTiming(answer?.content)).toBe(success("A hello.txt"));
    expect(await readFile(join(h.work, "hello.txt"), "utf8")).toBe("Hello\n");
  });

  it("a heredoc in shell_command is applied natively, answered in the legacy JSON envelope", async () => {
    const command =
      "apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: via-shell.txt\n+via shell\n*** End Patch\nEOF\n";
    h.server.enqueue(turn(functionCall("shell_command", { command }, "call_1")), turn(message("done")));
    const result = await h.exec(["patch via shell"]);
    expect(result.code).toBe(0);
    expect(outputs()).toEqual({
      call_1:
        '{"output":"Success. Updated the following files:\\nA via-shell.txt\\n","metadata":{"exit_code":0,"duration_seconds":0.0}}',
    });
    expect(await readFile(join(h.work, "via-shell.txt"), "utf8")).toBe("via shell\n");
  });

  it("a failing patch: the model gets the exact error and the tree is unchanged", async () => {
    const before = await readTree(h.work);
    h.server.enqueue(turn(customToolCall("apply_patch", BAD_CONTEXT, "call_1")), turn(message("sorry")));
    const result = await h.exec(["break it"]);
    expect(result.code).toBe(0);
    expect(outputs()).toEqual({
      call_1: `apply_patch verification failed: Failed to find context 'no_such_header' in ${join(h.work, "base.txt")}`,
    });
    expect(await readTree(h.work)).toEqual(before);
  });

  it("--json: a file_change item for the applied patch, none for the failed one", async () => {
    h.server.enqueue(
      turn(customToolCall("apply_patch", ADD_AND_UPDATE, "call_3")),
      turn(customToolCall("apply_patch", BAD_CONTEXT, "call_5")),
      turn(message("All done.")),
    );
    const result = await h.exec(["--json", "edit"]);
    expect(result.code).toBe(0);
    expect(outputs()).toMatchObject({ call_3: success("A hello.txt", "M base.txt") });
    const events = result.stdout
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { type: string; item?: { type: string } });
    const fileChanges = events.filter((event) => event.item?.type === "file_change");
    // Started (as current SDK clients expect) and completed, one item id; nothing for the failed patch.
    const item = (status: string) => ({
      id: "item_0",
      type: "file_change",
      changes: [
        { path: join(h.work, "hello.txt"), kind: "add" },
        { path: join(h.work, "base.txt"), kind: "update" },
      ],
      status,
    });
    expect(fileChanges).toEqual([
      { type: "item.started", item: item("in_progress") },
      { type: "item.completed", item: item("completed") },
    ]);
    expect(events.at(-1)?.type).toBe("turn.completed");
  });
});

describe("tscodex apply-patch", () => {
  const applyPatch = (stdin: string, args: string[] = []) =>
    runCli(["apply-patch", ...args], { cwd: h.work, home: h.home, stdin });

  it("applies a patch from stdin and prints the summary", async () => {
    const result = await applyPatch(`${ADD_HELLO}\n`);
    expect(result).toMatchObject({ code: 0, stdout: "Success. Updated the following files:\nA hello.txt\n" });
    expect(await readFile(join(h.work, "hello.txt"), "utf8")).toBe("Hello\n");
  });

  it("exits non-zero with the error, tree unchanged", async () => {
    const before = await readTree(h.work);
    const result = await applyPatch(BAD_CONTEXT);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe("");
    expect(result.stderr).toBe(
      `apply_patch verification failed: Failed to find context 'no_such_header' in ${join(h.work, "base.txt")}\n`,
    );
    expect(await readTree(h.work)).toEqual(before);
  });

  it("--cd: paths are relative to the given directory", async () => {
    await mkdir(join(h.work, "sub"));
    await writeFile(join(h.work, "sub/base.txt"), "alpha\nbeta\n");
    const result = await applyPatch(UPDATE_BASE, ["--cd", "sub"]);
    expect(result).toMatchObject({ code: 0, stdout: "Success. Updated the following files:\nM base.txt\n" });
    expect(await readFile(join(h.work, "sub/base.txt"), "utf8")).toBe("alpha\nBETA\n");
    expect(await readFile(join(h.work, "base.txt"), "utf8")).toBe("alpha\nbeta\ngamma\n");
  });
});
