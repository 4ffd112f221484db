import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  applyPatchFreeformTool,
  applyPatchJsonTool,
  preparePatch,
} from "../../src/tools/builtin/apply-patch.js";
import { ToolError } from "../../src/tools/types.js";
import { readReference } from "../support/reference.js";
import { runHandler } from "../support/turn-context.js";
import { fakeTurn, invocation } from "./fake-turn.js";
import { makeTempDir, zeroTiming } from "./support.js";

/** The grammar exactly as the real Codex sends it (reference capture). */
const GRAMMAR = readReference("apply_patch.lark");

let dir = "";
let cleanup: () => Promise<void> = async () => undefined;
beforeEach(async () => {
  ({ dir, cleanup } = await makeTempDir());
});
afterEach(() => cleanup());

async function rejection(promise: Promise<unknown>): Promise<ToolError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ToolError) return error;
    throw error;
  }
  throw new Error("expected a ToolError");
}

describe("apply_patch tool specs", () => {
  it("freeform: custom tool with the exact Lark grammar", () => {
    const tool = applyPatchFreeformTool();
    expect(tool.supportsParallel).toBe(false);
    expect(tool.spec).toMatchObject({
      type: "custom",
      name: "apply_patch",
      format: { type: "grammar", syntax: "lark", definition: GRAMMAR },
    });
    expect(tool.spec.type === "custom" && tool.spec.description).toContain("*** Begin Patch");
  });

  it("json: function apply_patch {input}", async () => {
    const tool = applyPatchJsonTool();
    expect(tool.spec).toMatchObject({
      type: "function",
      name: "apply_patch",
      strict: false,
      parameters: {
        type: "object",
        properties: { input: { type: "string" } },
        required: ["input"],
        additionalProperties: false,
      },
    });
    await expect(
      tool.handler.prepare(invocation(fakeTurn(dir), { kind: "function", arguments: "{}" })),
    ).rejects.toThrow("failed to parse function arguments: missing field `input` at line 1 column 2");
  });
});

describe("apply_patch handler", () => {
  const { handler } = applyPatchFreeformTool();

  it("applies a custom call: output, begin/end events and the turn diff", async () => {
    const turn = fakeTurn(dir);
    const out = await runHandler(
      handler,
      invocation(turn, {
        kind: "custom",
        input: "*** Begin Patch\n*** Add File: app.txt\n+from app-server\n*** End Patch",
      }),
    );
    expect(zeroTiming(out.content)).toBe(
      "Exit code: 0\nWall time: 0 seconds\nOutput:\nSuccess. Updated the following files:\nA app.txt\n",
    );
    const path = join(dir, "app.txt");
    const changes = { [path]: { type: "add", content: "from app-server\n" } };
    expect(turn.events).toEqual([
      { type: "patch_apply_begin", call_id: "call_1", turn_id: "turn-1", auto_approved: true, changes },
      {
        type: "patch_apply_end",
        call_id: "call_1",
        turn_id: "turn-1",
        stdout: "Success. Updated the following files:\nA app.txt\n",
        stderr: "",
        success: true,
        changes,
      },
      {
        type: "turn_diff",
        // Codex's exact text for the same change (blob id included).
        unified_diff: `diff --git a/${path} b/${path}\nnew file mode 100644\nindex 0000000000000000000000000000000000000000..2df2f819fc8250c2671d8cd12049f4b3aaed5376\n--- /dev/null\n+++ b/${path}\n@@ -0,0 +1 @@\n+from app-server\n`,
      },
    ]);
  });

  it("accepts a function-style call on the custom tool", async () => {
    const turn = fakeTurn(dir);
    const args = JSON.stringify({ input: "*** Begin Patch\n*** Add File: fn.txt\n+fn\n*** End Patch" });
    const out = await runHandler(handler, invocation(turn, { kind: "function", arguments: args }));
    expect(zeroTiming(out.content)).toBe(
      "Exit code: 0\nWall time: 0 seconds\nOutput:\nSuccess. Updated the following files:\nA fn.txt\n",
    );
    expect(await readFile(join(dir, "fn.txt"), "utf8")).toBe("fn\n");
  });

  it("answers bad JSON arguments with the parse error", async () => {
    const error = await rejection(
      runHandler(handler, invocation(fakeTurn(dir), { kind: "function", arguments: "{}" })),
    );
    expect(error.kind).toBe("respond");
    expect(error.message).toMatch(/^failed to parse function arguments: /);
  });

  it("returns verification failures as bare text, with no events and no writes", async () => {
    await writeFile(join(dir, "base.txt"), "alpha\nbeta\n");
    const turn = fakeTurn(dir);
    const error = await rejection(
      runHandler(
        handler,
        invocation(turn, {
          kind: "custom",
          input:
            "*** Begin Patch\n*** Add File: new.txt\n+n\n*** Update File: base.txt\n@@\n-nope\n+x\n*** End Patch",
        }),
      ),
    );
    expect(error.kind).toBe("respond");
    expect(error.message).toBe(
      `apply_patch verification failed: Failed to find expected lines in ${join(dir, "base.txt")}:\nnope`,
    );
    expect(turn.events).toEqual([]);
    await expect(readFile(join(dir, "new.txt"))).rejects.toThrow();
  });

  it("rejects an empty patch without the verification prefix", async () => {
    const error = await rejection(
      runHandler(
        handler,
        invocation(fakeTurn(dir), { kind: "custom", input: "*** Begin Patch\n*** End Patch" }),
      ),
    );
    expect(error.message).toBe("patch rejected: empty patch");
  });

  it("reports a write failure as exit code 1 with patch_apply_end success false", async () => {
    await writeFile(join(dir, "plain"), "p\n");
    const turn = fakeTurn(dir);
    const out = await runHandler(
      handler,
      invocation(turn, {
        kind: "custom",
        input: "*** Begin Patch\n*** Delete File: plain\n*** Add File: plain/child.txt\n+c\n*** End Patch",
      }),
    );
    const message = `Failed to create parent directories for ${join(dir, "plain/child.txt")}`;
    expect(zeroTiming(out.content)).toBe(`Exit code: 1\nWall time: 0 seconds\nOutput:\n${message}\n`);
    expect(out.success).toBe(false);
    expect(turn.events.map((e) => e.type)).toEqual(["patch_apply_begin", "patch_apply_end"]);
    expect(turn.events[1]).toMatchObject({ success: false, stdout: "", stderr: `${message}\n` });
    expect(await readFile(join(dir, "plain"), "utf8")).toBe("p\n");
  });

  it("keeps one turn diff across patches, relative to the start of the turn", async () => {
    await writeFile(join(dir, "f.txt"), "one\ntwo\nthree\n");
    const turn = fakeTurn(dir);
    const run = (input: string) => runHandler(handler, invocation(turn, { kind: "custom", input }));
    await run("*** Begin Patch\n*** Update File: f.txt\n@@\n-one\n+ONE\n*** End Patch");
    await run(
      "*** Begin Patch\n*** Update File: f.txt\n@@\n-three\n+THREE\n*** Add File: g.txt\n+g\n*** End Patch",
    );
    const diffs = turn.events.filter((e) => e.type === "turn_diff");
    expect(diffs).toHaveLength(2);
    const last = diffs[1]!.type === "turn_diff" ? diffs[1]!.unified_diff : "";
    const f = join(dir, "f.txt");
    expect(last).toContain(`diff --git a/${f} b/${f}\nindex `);
    expect(last).toContain(`--- a/${f}\n+++ b/${f}\n@@ -1,3 +1,3 @@\n-one\n+ONE\n two\n-three\n+THREE\n`);
    expect(last).toContain(`new file mode 100644`);
    expect(turn.diffTracker.unifiedDiff()).toBe(last);
    // Reverting everything empties the diff (and it is still published).
    await run(
      "*** Begin Patch\n*** Update File: f.txt\n@@\n-ONE\n+one\n@@\n-THREE\n+three\n*** Delete File: g.txt\n*** End Patch",
    );
    expect(turn.events.at(-1)).toEqual({ type: "turn_diff", unified_diff: "" });
  });
});

describe("preparePatch (the shell tools' heredoc patches)", () => {
  it("returns the plain summary for the shell envelope and emits events", async () => {
    const turn = fakeTurn(dir);
    const prepared = await preparePatch(
      "*** Begin Patch\n*** Add File: via-shell.txt\n+via shell\n*** End Patch\n",
      dir,
      invocation(turn, { kind: "function", arguments: "{}" }),
    );
    const result = await prepared.apply({ asked: false });
    expect(result.output).toBe("Success. Updated the following files:\nA via-shell.txt\n");
    expect(result.exitCode).toBe(0);
    expect(turn.events.map((e) => e.type)).toEqual(["patch_apply_begin", "patch_apply_end", "turn_diff"]);
  });

  it("throws the bare verification text", async () => {
    const error = await rejection(
      preparePatch(
        "*** Begin Patch\n*** Delete File: ghost.txt\n*** End Patch",
        dir,
        invocation(fakeTurn(dir), { kind: "function", arguments: "{}" }),
      ),
    );
    expect(error.message).toBe(
      `apply_patch verification failed: Failed to read ${join(dir, "ghost.txt")}: No such file or directory (os error 2)`,
    );
  });
});
