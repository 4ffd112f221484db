/**
 * The transcript reducer on review mode items (the app-server's review/start sends them): they
 * become a notice and the review as an agent message.
 */
import { describe, expect, it } from "vitest";
import { Transcript } from "../../src/frontends/tui/transcript.js";

describe("Transcript", () => {
  it("shows a review's start and its findings", () => {
    const transcript = new Transcript();
    transcript.apply("item/completed", {
      item: { type: "enteredReviewMode", id: "r1", review: "current changes" },
    });
    transcript.apply("item/completed", {
      item: { type: "exitedReviewMode", id: "r2", review: "- **P1** off by one in loop.ts" },
    });
    expect(transcript.blocks.map(({ kind, ...rest }) => [kind, "text" in rest ? rest.text : ""])).toEqual([
      ["notice", "reviewing current changes"],
      ["agent", "- **P1** off by one in loop.ts"],
    ]);
  });
});
