import { describe, expect, it } from "vitest";
import { rawEventMessage } from "../../src/frontends/mcp-server/progress.js";

describe("codex/event messages", () => {
  it("encodes exactly an output chunk's bytes in base64, also for a view into a larger buffer", () => {
    const backing = Buffer.from("xxhello-worldyy");
    const message = rawEventMessage({
      type: "exec_command_output_delta",
      call_id: "c1",
      stream: "stdout",
      chunk: backing.subarray(2, 13),
    });
    expect(message).toEqual({
      type: "exec_command_output_delta",
      call_id: "c1",
      stream: "stdout",
      chunk: Buffer.from("hello-world").toString("base64"),
    });
  });
});
