/**
 * The approval hook through the router: apply_patch describes its patch (changes, real paths)
 * before the gate; a denied patch writes nothing and the model gets the gate's message.
 */
import { mkdir, readdir, readFile, realpath, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { CustomToolCallItem, FunctionCallItem } from "../../src/protocol/items.js";
import {
  applyPatchFreeformTool,
  applyPatchJsonTool,
  preparePatch,
} from "../../src/tools/builtin/apply-patch.js";
import { type ApprovalGate, type ApprovalVerdict, ToolRouter } from "../../src/tools/router.js";
import type { ApprovalRequest, ToolInvocation } from "../../src/tools/types.js";
import { type FakeTurn, fakeTurn, invocation } from "./fake-turn.js";
import { makeTempDir, readTree } from "./support.js";

const DENIED = "patch rejected: writing outside of the project; rejected by user approval settings";

let dir = "";
let cleanup: () => Promise<void> = async () => undefined;
beforeEach(async () => {
  ({ dir, cleanup } = await makeTempDir());
  dir = await realpath(dir);
  await writeFile(join(dir, "base.txt"), "alpha\nbeta\ngamma\n");
  await writeFile(join(dir, "old.txt"), "remove me\n");
  await writeFile(join(dir, "tomove.txt"), "old content\n");
});
afterEach(() => cleanup());

/** A gate that records what it was asked and answers with `verdict`. */
function recordingGate(verdict: ApprovalVerdict, onCheck?: () => Promise<void>) {
  const seen: { invocation: ToolInvocation; request: ApprovalRequest | null }[] = [];
  const gate: ApprovalGate = {
    async check(invocation, request) {
      seen.push({ invocation, request });
      await onCheck?.();
      return verdict;
    },
  };
  return { gate, seen };
}

const custom = (input: string, callId = "call_1"): CustomToolCallItem => ({
  type: "custom_tool_call",
  name: "apply_patch",
  input,
  call_id: callId,
});

const PATCH = `*** Begin Patch
*** Add File: new/dir/hello.txt
+Hello
*** Update File: base.txt
@@
 alpha
-beta
+BETA
*** Delete File: old.txt
*** Update File: tomove.txt
*** Move to: moved/dest.txt
@@
-old content
+new content
*** End Patch`;

async function listAll(root: string): Promise<string[]> {
  const entries = await readdir(root, { recursive: true });
  return entries.sort();
}

describe("apply_patch approval hook", () => {
  it("a denied patch writes nothing; the model gets the gate's message", async () => {
    const before = await readTree(dir);
    const listing = await listAll(dir);
    const { gate, seen } = recordingGate({ allowed: false, message: DENIED });
    const turn = fakeTurn(dir);
    const result = await new ToolRouter([applyPatchFreeformTool()], gate).dispatch(custom(PATCH), turn);

    expect(result.output).toEqual({ type: "custom_tool_call_output", call_id: "call_1", output: DENIED });
    expect(await readTree(dir)).toEqual(before);
    expect(await listAll(dir)).toEqual(listing);
    expect(turn.events).toEqual([]);

    expect(seen).toHaveLength(1);
    const request = seen[0]?.request;
    expect(request?.kind).toBe("patch");
    if (request?.kind !== "patch") return;
    expect(Object.keys(request.changes).sort()).toEqual(
      [
        join(dir, "base.txt"),
        join(dir, "new/dir/hello.txt"),
        join(dir, "old.txt"),
        join(dir, "tomove.txt"),
      ].sort(),
    );
    expect(request.changes[join(dir, "tomove.txt")]).toMatchObject({
      type: "update",
      move_path: join(dir, "moved/dest.txt"),
    });
    expect([...request.paths].sort()).toEqual(
      [
        join(dir, "base.txt"),
        join(dir, "moved/dest.txt"),
        join(dir, "new/dir/hello.txt"),
        join(dir, "old.txt"),
        join(dir, "tomove.txt"),
      ].sort(),
    );
  });

  it("the JSON variant is denied the same way, as a function_call_output", async () => {
    const { gate } = recordingGate({ allowed: false, message: DENIED });
    const call: FunctionCallItem = {
      type: "function_call",
      name: "apply_patch",
      arguments: JSON.stringify({ input: PATCH }),
      call_id: "call_9",
    };
    const result = await new ToolRouter([applyPatchJsonTool()], gate).dispatch(call, fakeTurn(dir));
    expect(result.output).toEqual({ type: "function_call_output", call_id: "call_9", output: DENIED });
    expect(await readFile(join(dir, "base.txt"), "utf8")).toBe("alpha\nbeta\ngamma\n");
  });

  it("reports real paths through symlinked directories", async () => {
    const elsewhere = join(dir, "elsewhere");
    await mkdir(elsewhere);
    await symlink(elsewhere, join(dir, "link"));
    await writeFile(join(elsewhere, "file.txt"), "x\n");
    const { gate, seen } = recordingGate({ allowed: false, message: DENIED });
    const patch =
      "*** Begin Patch\n*** Add File: link/sub/new.txt\n+n\n*** Update File: link/file.txt\n@@\n-x\n+y\n*** End Patch";
    await new ToolRouter([applyPatchFreeformTool()], gate).dispatch(custom(patch), fakeTurn(dir));
    const request = seen[0]?.request;
    expect(request?.kind === "patch" && [...request.paths].sort()).toEqual([
      join(elsewhere, "file.txt"),
      join(elsewhere, "sub/new.txt"),
    ]);
  });

  it("a patch that does not verify reaches the model without asking the gate", async () => {
    const { gate, seen } = recordingGate({ allowed: true });
    const patch = "*** Begin Patch\n*** Update File: base.txt\n@@\n-nope\n+x\n*** End Patch";
    const result = await new ToolRouter([applyPatchFreeformTool()], gate).dispatch(
      custom(patch),
      fakeTurn(dir),
    );
    expect(result.output).toMatchObject({
      output: `apply_patch verification failed: Failed to find expected lines in ${join(dir, "base.txt")}:\nnope`,
    });
    expect(seen).toEqual([]);
  });

  it("auto_approved is false only when a human was asked", async () => {
    const run = async (verdict: ApprovalVerdict, callId: string): Promise<FakeTurn> => {
      const turn = fakeTurn(dir);
      const patch = `*** Begin Patch\n*** Add File: ${callId}.txt\n+x\n*** End Patch`;
      const result = await new ToolRouter([applyPatchFreeformTool()], recordingGate(verdict).gate).dispatch(
        custom(patch, callId),
        turn,
      );
      expect(result.output).toMatchObject({ output: expect.stringContaining(`A ${callId}.txt\n`) });
      return turn;
    };
    const asked = await run({ allowed: true, asked: true }, "asked");
    const auto = await run({ allowed: true }, "auto");
    const autoApproved = (turn: FakeTurn) =>
      turn.events.find((event) => event.type === "patch_apply_begin")?.auto_approved;
    expect(autoApproved(asked)).toBe(false);
    expect(autoApproved(auto)).toBe(true);
  });

  it("re-plans when a file changed while awaiting approval", async () => {
    const tool = applyPatchFreeformTool();

    const patch = "*** Begin Patch\n*** Update File: base.txt\n@@\n alpha\n-beta\n+BETA\n*** End Patch";
    const { gate } = recordingGate({ allowed: true, asked: true }, () =>
      writeFile(join(dir, "base.txt"), "alpha\nbeta\ngamma\ndelta\n"),
    );
    const result = await new ToolRouter([tool], gate).dispatch(custom(patch), fakeTurn(dir));
    expect(result.output).toMatchObject({ output: expect.stringContaining("M base.txt\n") });
    expect(await readFile(join(dir, "base.txt"), "utf8")).toBe("alpha\nBETA\ngamma\ndelta\n");
  });

  it("shell tools: an intercepted heredoc patch is described for the gate, then applied", async () => {
    const turn = fakeTurn(dir);
    const inv = invocation(turn, { kind: "function", arguments: "{}" });
    const patch = "*** Begin Patch\n*** Add File: via-shell.txt\n+x\n*** End Patch";
    const prepared = await preparePatch(patch, dir, inv);
    expect(prepared.approval).toEqual({
      kind: "patch",
      changes: { [join(dir, "via-shell.txt")]: { type: "add", content: "x\n" } },
      paths: [join(dir, "via-shell.txt")],
    });
    const applied = await prepared.apply({ asked: true });
    expect(applied).toMatchObject({
      exitCode: 0,
      output: "Success. Updated the following files:\nA via-shell.txt\n",
    });
    expect(turn.events.find((event) => event.type === "patch_apply_begin")).toMatchObject({
      auto_approved: false,
    });
    expect(await readFile(join(dir, "via-shell.txt"), "utf8")).toBe("x\n");
  });
});
