/**
 * apply_patch events through the library API: patch_apply_begin/end per patch and a turn diff
 * that covers every patch of the turn, relative to the start of the turn. The expected diff is
 * git's own (`git diff --full-index` against the state at turn start).
 */
import { execFileSync } from "node:child_process";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import { type Event, Tscodex } from "../../src/index.js";
import { useExecHarness } from "../support/exec-harness.js";
import { customToolCall, message, turn } from "../support/fake-model-server.js";

const h = useExecHarness({ git: false, key: "lib-key" });
beforeEach(async () => {
  await writeFile(join(h.work, "base.txt"), "alpha\nbeta\ngamma\ndelta\n");
  await writeFile(join(h.work, "old.txt"), "to be removed\n");
  git("init", "-q");
  snapshot();
});

function git(...args: string[]): string {
  return execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@example.com", ...args], {
    cwd: h.work,
    encoding: "utf8",
  });
}

/** Make the current tree git's baseline (the state at the start of the next turn). */
function snapshot(): void {
  git("add", "-A");
  git("commit", "-q", "--allow-empty", "-m", "baseline");
}

/**
 * What git says changed since the baseline, new files included. Codex's index lines carry no
 * mode (its turn_diff_tracker), so git's ` 100644` suffix is dropped.
 */
function gitDiff(): string {
  const untracked = git("ls-files", "--others", "--exclude-standard").split("\n").filter(Boolean);
  if (untracked.length > 0) git("add", "--intent-to-add", "--", ...untracked);
  return git("diff", "--full-index").replace(/^(index [0-9a-f]+\.\.[0-9a-f]+) \d{6}$/gm, "$1");
}

const agent = () => new Tscodex({ home: h.home, env: h.libraryEnv() });

async function collect(stream: AsyncIterable<Event>): Promise<Event[]> {
  const events: Event[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

const PATCH_1 =
  "*** Begin Patch\n*** Add File: hello.txt\n+Hello\n*** Update File: base.txt\n@@\n alpha\n-beta\n+BETA\n*** End Patch";
const PATCH_2 =
  "*** Begin Patch\n*** Update File: base.txt\n@@\n-delta\n+DELTA\n*** Update File: hello.txt\n@@\n Hello\n+World\n*** Delete File: old.txt\n*** End Patch";

describe("apply_patch events through the library", () => {
  it("emits begin/end per patch and a turn diff of both patches since turn start", async () => {
    h.server.enqueue(
      turn(customToolCall("apply_patch", PATCH_1, "call_1")),
      turn(customToolCall("apply_patch", PATCH_2, "call_2")),
      turn(message("patched")),
    );
    const thread = agent().startThread({ cwd: h.work, sandboxMode: "workspace-write" });
    const stream = thread.runStreamed("patch twice");
    const events = await collect(stream);
    expect((await stream.result()).status).toBe("completed");

    const patchEvents = events.filter(
      (event) => event.type === "patch_apply_begin" || event.type === "patch_apply_end",
    );
    const path = (name: string) => join(h.work, name);
    expect(patchEvents).toMatchObject([
      {
        type: "patch_apply_begin",
        call_id: "call_1",
        auto_approved: true,
        changes: {
          [path("hello.txt")]: { type: "add", content: "Hello\n" },
          [path("base.txt")]: { type: "update", move_path: null },
        },
      },
      {
        type: "patch_apply_end",
        call_id: "call_1",
        success: true,
        stdout: "Success. Updated the following files:\nA hello.txt\nM base.txt\n",
        stderr: "",
      },
      { type: "patch_apply_begin", call_id: "call_2", auto_approved: true },
      {
        type: "patch_apply_end",
        call_id: "call_2",
        success: true,
        stdout: "Success. Updated the following files:\nM base.txt\nM hello.txt\nD old.txt\n",
        changes: {
          [path("old.txt")]: { type: "delete", content: "to be removed\n" },
          [path("hello.txt")]: { type: "update", unified_diff: "@@ -1 +1,2 @@\n Hello\n+World\n" },
        },
      },
    ]);
    // Each end is followed by the turn diff so far (the streamed patch_apply_updated come before
    // their begin: session/patch-stream.ts).
    const order = events
      .map((event) => event.type)
      .filter((type) => type === "patch_apply_begin" || type === "patch_apply_end" || type === "turn_diff");
    expect(order).toEqual([
      "patch_apply_begin",
      "patch_apply_end",
      "turn_diff",
      "patch_apply_begin",
      "patch_apply_end",
      "turn_diff",
    ]);

    const diffs = events.flatMap((event) => (event.type === "turn_diff" ? [event.unified_diff] : []));
    expect(diffs.at(-1)).toBe(gitDiff());
    expect(diffs.at(-1)).toContain("+BETA\n");
    expect(diffs.at(-1)).toContain("+DELTA\n");
    expect(diffs.at(-1)).toContain("deleted file mode 100644\n");
  });

  it("starts the next turn's diff from that turn's start", async () => {
    h.server.enqueue(
      turn(customToolCall("apply_patch", PATCH_1, "call_1")),
      turn(message("first")),
      turn(customToolCall("apply_patch", PATCH_2, "call_2")),
      turn(message("second")),
    );
    const thread = agent().startThread({ cwd: h.work, sandboxMode: "workspace-write" });
    await collect(thread.runStreamed("one"));
    snapshot();
    const events = await collect(thread.runStreamed("two"));
    const diffs = events.flatMap((event) => (event.type === "turn_diff" ? [event.unified_diff] : []));
    expect(diffs).toHaveLength(1);
    expect(diffs[0]).toBe(gitDiff());
    expect(diffs[0]).not.toContain("+BETA");
  });
});
