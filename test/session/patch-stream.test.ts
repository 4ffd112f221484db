/**
 * PatchStreams: an apply_patch call's changes while the model streams its input, read from
 * complete lines only, reported when they change, for the app-server's patchUpdated.
 */
import { describe, expect, it } from "vitest";
import { PatchStreams } from "../../src/session/patch-stream.js";

const CALL = {
  type: "custom_tool_call" as const,
  id: "ctc_1",
  call_id: "call_1",
  name: "apply_patch",
  input: "",
};

describe("PatchStreams", () => {
  it("reports the changes of complete lines, once per change, with paths resolved against the cwd", async () => {
    const streams = new PatchStreams("/w");
    streams.added(CALL);
    // The parser loads when a call starts streaming; deltas before that only accumulate.
    await streams.ready();
    expect(streams.delta("ctc_1", "*** Begin Patch\n*** Add File: a.t")).toBeNull();
    expect(streams.delta("ctc_1", "xt\n+one\n")).toEqual({
      callId: "call_1",
      changes: { "/w/a.txt": { type: "add", content: "one\n" } },
    });
    // A line still being written changes nothing yet.
    expect(streams.delta("ctc_1", "+tw")).toBeNull();
    expect(streams.delta("ctc_1", "o\n*** Update File: b.txt\n@@\n-old\n+new\n*** End Patch\n")).toEqual({
      callId: "call_1",
      changes: {
        "/w/a.txt": { type: "add", content: "one\ntwo\n" },
        "/w/b.txt": { type: "update", unified_diff: "@@ -1 +1 @@\n-old\n+new\n", move_path: null },
      },
    });
    expect(streams.delta("ctc_1", "\n")).toBeNull();
  });

  it("ignores other calls and forgets a failed attempt's streams", () => {
    const streams = new PatchStreams("/w");
    streams.added({ ...CALL, id: "ctc_2", name: "shell" });
    expect(streams.delta("ctc_2", "*** Begin Patch\n*** Delete File: x\n")).toBeNull();
    streams.added(CALL);
    streams.clear();
    expect(streams.delta("ctc_1", "*** Begin Patch\n*** Delete File: x\n")).toBeNull();
  });
});
