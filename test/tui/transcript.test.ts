/**
 * The transcript reducer on review mode items (the app-server's review/start sends them): they
 * become a notice and the review as an agent message. A model error is shown once, although
 * both the error notification and the failed turn carry it.
 */
import { describe, expect, it } from "vitest";
import { Transcript } from "../../src/frontends/tui/transcript.js";
import { apply } from "./notify.js";

describe("Transcript", () => {
  it("shows a review's start and its findings", () => {
    const transcript = new Transcript();
    apply(transcript, "item/completed", {
      item: { type: "enteredReviewMode", id: "r1", review: "current changes" },
    });
    apply(transcript, "item/completed", {
      item: { type: "exitedReviewMode", id: "r2", review: "- **P1** off by one in loop.ts" },
    });
    expect(transcript.blocks.map(({ kind, ...rest }) => [kind, "text" in rest ? rest.text : ""])).toEqual([
      ["notice", "reviewing current changes"],
      ["agent", "- **P1** off by one in loop.ts"],
    ]);
  });

  it("shows a turn's error once, not again when the failed turn repeats it", () => {
    const transcript = new Transcript();
    const message = "model provider 'mock' refused the request (401); check its API key";
    apply(transcript, "turn/started", { turn: { id: "u1" } });
    apply(transcript, "error", { error: { message }, willRetry: false });
    apply(transcript, "turn/completed", { turn: { id: "u1", status: "failed", error: { message } } });
    apply(transcript, "turn/started", { turn: { id: "u2" } });
    apply(transcript, "turn/completed", {
      turn: { id: "u2", status: "failed", error: { message: "other" } },
    });
    const notices = transcript.blocks.flatMap((block) => (block.kind === "notice" ? [block.text] : []));
    expect(notices).toEqual([`■ ${message}`, "■ other"]);
  });
});
