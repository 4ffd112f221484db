/**
 * A turn's EditorFiles (an ACP client's buffers) through a real Thread with the policy gate:
 * apply_patch reads files to update from the editor and writes added/updated files through it,
 * deletes stay on disk, refused paths never reach the editor, a refusal by the editor is the
 * model's failed patch; read_file reads the editor's text; a turn without it sees the disk.
 */
import { existsSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { commitPatch, parsePatch, planPatch } from "../../src/apply-patch/index.js";
import { PATCH_REJECTED_BY_SETTINGS } from "../../src/policy/approval.js";
import { ApprovalStore } from "../../src/policy/approval-store.js";
import { PolicyGate } from "../../src/policy/gate.js";
import type { EditorFiles } from "../../src/protocol/editor-files.js";
import type { Event } from "../../src/protocol/events.js";
import type { ResponseItem } from "../../src/protocol/items.js";
import { NO_EXTENT, permissionsFromSandboxMode } from "../../src/protocol/permissions-legacy.js";
import { Thread } from "../../src/session/thread.js";
import { applyPatchJsonTool } from "../../src/tools/builtin/apply-patch.js";
import { readFileTool } from "../../src/tools/builtin/read-file.js";
import { call, completed, message, scriptedClient } from "../support/scripted-model.js";
import { testThreadServices } from "../support/thread-services.js";
import { type TempDir, tmpdir } from "../support/tmpdir.js";

/** An editor holding some buffers in memory; every call is recorded. */
class FakeEditor implements EditorFiles {
  readonly buffers = new Map<string, string>();
  readonly calls: string[] = [];
  readonly writes: [string, string][] = [];
  /** Paths whose writes the editor refuses. */
  readonly readOnly = new Set<string>();

  async read(path: string): Promise<string | null> {
    this.calls.push(`read ${path}`);
    return this.buffers.get(path) ?? null;
  }

  async write(path: string, text: string): Promise<void> {
    this.calls.push(`write ${path}`);
    if (this.readOnly.has(path)) throw new Error("buffer is read-only");
    this.buffers.set(path, text);
    this.writes.push([path, text]);
  }
}

// Only the workspace is writable: not /tmp, where the test's directories are.
const EXTENT = { ...NO_EXTENT, excludeSlashTmp: true, excludeTmpdirEnvVar: true };

let temp: TempDir;
let ws = "";
beforeEach(async () => {
  temp = await tmpdir("tscodex-editor-files-");
  ws = join(temp.path, "ws");
  await mkdir(ws);
  await mkdir(join(temp.path, "outside"));
  await writeFile(join(ws, "a.txt"), "one\ntwo\nthree\n");
  await writeFile(join(ws, "b.txt"), "alpha\nbeta\n");
  await writeFile(join(ws, "c.txt"), "to delete\n");
});
afterEach(() => temp.cleanup());

/** A thread in workspace-write/never; each turn the model calls one tool, then answers "done". */
function setup(toolCalls: [string, unknown][]) {
  const client = scriptedClient(
    toolCalls.flatMap(([name, args], i) => [
      () => [call(name, args, `c${i}`), completed()],
      () => [message("done"), completed()],
    ]),
  );
  const services = testThreadServices(client, [applyPatchJsonTool(), readFileTool()], {
    gate: new PolicyGate(new ApprovalStore()),
  });
  const thread = new Thread("t-1", services, {
    cwd: ws,
    approvalPolicy: "never",
    permissions: permissionsFromSandboxMode("workspace-write", EXTENT),
    configuredExtent: EXTENT,
  });
  const events: Event[] = [];
  thread.subscribe((event) => events.push(event));
  /** Run one turn; the output the model got for its call. */
  const turn = async (editorFiles?: EditorFiles): Promise<string> => {
    const result = await thread
      .runStreamed({ text: "go" }, editorFiles ? { editorFiles } : undefined)
      .result();
    expect(result.status).toBe("completed");
    const output = client.prompts.at(-1)?.input.findLast(isToolOutput);
    return typeof output?.output === "string" ? output.output : JSON.stringify(output?.output);
  };
  return { thread, events, turn };
}

const isToolOutput = (item: ResponseItem) => item.type === "function_call_output";

const patch = (...lines: string[]) => ({ input: ["*** Begin Patch", ...lines, "*** End Patch"].join("\n") });

const disk = (name: string) => readFile(join(ws, name), "utf8");

describe("apply_patch with the turn's editor files", () => {
  it("updates the buffer's text and adds through the editor; deletes on disk; the diff and events follow the buffer", async () => {
    const editor = new FakeEditor();
    const a = join(ws, "a.txt");
    editor.buffers.set(a, "one\nTWO unsaved\nthree\n");
    const { events, turn } = setup([
      [
        "apply_patch",
        patch(
          "*** Update File: a.txt",
          "@@",
          " one",
          "-TWO unsaved",
          "+two edited",
          "*** Add File: new/d.txt",
          "+fresh",
          "*** Delete File: c.txt",
        ),
      ],
    ]);
    const output = await turn(editor);
    expect(output).toContain("Exit code: 0");
    expect(output).toContain("M a.txt");
    const d = join(ws, "new", "d.txt");
    expect(editor.writes).toEqual([
      [a, "one\ntwo edited\nthree\n"],
      [d, "fresh\n"],
    ]);
    // The editor wrote them: the disk's a.txt is as it was, d.txt is not on disk; c.txt is gone.
    expect(await disk("a.txt")).toBe("one\ntwo\nthree\n");
    expect(existsSync(d)).toBe(false);
    expect(existsSync(join(ws, "c.txt"))).toBe(false);
    const begin = events.find((event) => event.type === "patch_apply_begin");
    expect(begin?.type === "patch_apply_begin" && begin.changes[a]).toMatchObject({
      type: "update",
      unified_diff: expect.stringContaining("-TWO unsaved\n+two edited"),
    });
    expect(events.find((event) => event.type === "patch_apply_end")).toMatchObject({ success: true });
    const diff = events.findLast((event) => event.type === "turn_diff");
    expect(diff?.type === "turn_diff" && diff.unified_diff).toContain("-TWO unsaved\n+two edited");
    expect(diff?.type === "turn_diff" && diff.unified_diff).toContain("+fresh");
    expect(diff?.type === "turn_diff" && diff.unified_diff).toContain("-to delete");
  });

  it("a move patches the buffer's text but renames on disk", async () => {
    const editor = new FakeEditor();
    editor.buffers.set(join(ws, "a.txt"), "one\nTWO unsaved\nthree\n");
    const { turn } = setup([
      ["apply_patch", patch("*** Update File: a.txt", "*** Move to: e.txt", "@@", "-TWO unsaved", "+two")],
    ]);
    expect(await turn(editor)).toContain("Exit code: 0");
    expect(editor.writes).toEqual([]);
    expect(await disk("e.txt")).toBe("one\ntwo\nthree\n");
    expect(existsSync(join(ws, "a.txt"))).toBe(false);
  });

  it("never sends the editor a path the policy refuses (outside the roots, .git)", async () => {
    const editor = new FakeEditor();
    const { events, turn } = setup([
      ["apply_patch", patch("*** Add File: ../outside/x.txt", "+escape", "*** Add File: b2.txt", "+fine")],
      ["apply_patch", patch("*** Add File: .git/hooks/pre-commit", "+evil")],
      ["apply_patch", patch("*** Add File: b2.txt", "+fine")],
    ]);
    expect(await turn(editor)).toContain(PATCH_REJECTED_BY_SETTINGS);
    expect(await turn(editor)).toContain(PATCH_REJECTED_BY_SETTINGS);
    expect(editor.calls).toEqual([]);
    expect(existsSync(join(temp.path, "outside", "x.txt"))).toBe(false);
    expect(existsSync(join(ws, ".git"))).toBe(false);
    expect(events.some((event) => event.type === "patch_apply_begin")).toBe(false);
    // The same thread's allowed patch does go to the editor.
    expect(await turn(editor)).toContain("Exit code: 0");
    expect(editor.calls).toEqual([`write ${join(ws, "b2.txt")}`]);
  });

  it("a write the editor refuses fails the patch: what it already took is named and in the diff; disk steps are not run", async () => {
    const editor = new FakeEditor();
    const a = join(ws, "a.txt");
    const b = join(ws, "b.txt");
    editor.readOnly.add(b);
    const { events, turn } = setup([
      [
        "apply_patch",
        patch(
          "*** Update File: a.txt",
          "@@",
          "-two",
          "+TWO",
          "*** Update File: b.txt",
          "@@",
          "-beta",
          "+BETA",
          "*** Delete File: c.txt",
        ),
      ],
    ]);
    const output = await turn(editor);
    expect(output).toContain("Exit code: 1");
    expect(output).toContain(`Failed to write file ${b}: buffer is read-only`);
    expect(output).toContain(`already written through the editor and keep their new contents:\nM ${a}`);
    expect(editor.writes).toEqual([[a, "one\nTWO\nthree\n"]]);
    expect(await disk("b.txt")).toBe("alpha\nbeta\n");
    expect(await disk("c.txt")).toBe("to delete\n");
    expect(events.find((event) => event.type === "patch_apply_end")).toMatchObject({ success: false });
    const diff = events.findLast((event) => event.type === "turn_diff");
    expect(diff?.type === "turn_diff" && diff.unified_diff).toContain("-two\n+TWO");
    expect(diff?.type === "turn_diff" && diff.unified_diff).not.toContain("BETA");
  });

  it("is for its turn only: the next turn without it patches the disk and never calls the editor", async () => {
    const editor = new FakeEditor();
    const { turn } = setup([
      ["read_file", { file_path: join(ws, "a.txt") }],
      ["apply_patch", patch("*** Update File: a.txt", "@@", "-two", "+2")],
    ]);
    await turn(editor);
    const calls = editor.calls.length;
    expect(calls).toBe(1);
    expect(await turn()).toContain("Exit code: 0");
    expect(editor.calls.length).toBe(calls);
    expect(await disk("a.txt")).toBe("one\n2\nthree\n");
  });

  it("set with overrideSettings, it is dropped: editor files come with a turn only", async () => {
    const editor = new FakeEditor();
    const { thread, turn } = setup([["read_file", { file_path: join(ws, "a.txt") }]]);
    thread.overrideSettings({ editorFiles: editor });
    expect(await turn()).toBe("L1: one\nL2: two\nL3: three");
    expect(editor.calls).toEqual([]);
  });

  it("re-plans against the buffer when it changed while the patch awaited approval", async () => {
    const editor = new FakeEditor();
    const a = join(ws, "a.txt");
    editor.buffers.set(a, "one\ntwo\nthree\n");
    const plan = await planPatch(
      parsePatch(patch("*** Update File: a.txt", "@@", "-two", "+2").input),
      ws,
      editor,
    );
    editor.buffers.set(a, "zero\none\ntwo\nthree\n");
    const written = await commitPatch(plan, { editorFiles: editor });
    expect(editor.writes).toEqual([[a, "zero\none\n2\nthree\n"]]);
    expect(written).not.toBe(plan);
  });
});

describe("read_file with the turn's editor files", () => {
  it("reads the buffer's text with the usual numbering and limits; the disk when the editor has nothing", async () => {
    const editor = new FakeEditor();
    editor.buffers.set(join(ws, "a.txt"), "one\nTWO unsaved\nthree\n");
    const { turn } = setup([
      ["read_file", { file_path: join(ws, "a.txt"), offset: 2, limit: 1 }],
      ["read_file", { file_path: join(ws, "b.txt") }],
    ]);
    expect(await turn(editor)).toBe("L2: TWO unsaved");
    expect(await turn(editor)).toBe("L1: alpha\nL2: beta");
    expect(editor.calls).toEqual([`read ${join(ws, "a.txt")}`, `read ${join(ws, "b.txt")}`]);
  });
});
