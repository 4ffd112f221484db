/**
 * A model stream that pings but never progresses is idle; a stream that progresses but never
 * completes runs out of its budget (stream_max_duration_ms). Both end the turn instead of hanging.
 */
import { describe, expect, it } from "vitest";
import { createModelClient } from "../../src/model/client.js";
import { BUDGET_EXCEEDED } from "../../src/model/progress-watch.js";
import {
  ModelError,
  type ProviderInfo,
  type ResponseEvent,
  type RetryNotice,
} from "../../src/model/types.js";
import { userMessage } from "../../src/protocol/items.js";
import { useExecHarness } from "../support/exec-harness.js";
import { delay, keepalive, message, type TurnPart, turn } from "../support/fake-model-server.js";

const h = useExecHarness({ execArgs: ["--skip-git-repo-check"] });

const prompt = { instructions: "x", input: [userMessage("hi")], tools: [], parallelToolCalls: true };

/** Text deltas every `everyMs`, `count` times, and no completion: progress that never ends. */
function trickle(count: number, everyMs: number): TurnPart[] {
  return Array.from({ length: count }, (_, i) => [message(`t${i}`), delay(everyMs)]).flat();
}

async function failure(overrides: Partial<ProviderInfo>, notices: RetryNotice[] = []): Promise<ModelError> {
  const client = createModelClient({
    provider: h.server.provider(overrides),
    settings: { model: "m", reasoning: null, include: [] },
    identity: { sessionId: "t", originator: "test", userAgent: "test/0" },
    retryBaseMs: 1,
  });
  const seen: ResponseEvent[] = [];
  try {
    for await (const event of client.stream(prompt, { onRetry: (notice) => notices.push(notice) }))
      seen.push(event);
  } catch (error) {
    if (error instanceof ModelError) return error;
    throw error;
  }
  throw new Error(`expected the stream to fail; got ${seen.length} events`);
}

describe("model client bounds", () => {
  it("treats a stream of keepalives as idle", async () => {
    h.server.enqueue(turn(message("partial"), keepalive(20)));
    const started = Date.now();
    const error = await failure({ streamIdleTimeoutMs: 300, streamMaxRetries: 0 });
    expect(error.message).toBe("stream disconnected before completion: idle timeout waiting for SSE");
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it("gives up on a response that outlives stream_max_duration_ms, without retrying", async () => {
    h.server.enqueue(turn(...trickle(200, 30)), turn(...trickle(200, 30)));
    const notices: RetryNotice[] = [];
    const error = await failure(
      { streamIdleTimeoutMs: 1_000, streamMaxRetries: 5, streamMaxDurationMs: 400 },
      notices,
    );
    expect(error.code).toBe(BUDGET_EXCEEDED);
    expect(error.message).toBe("model response took longer than stream_max_duration_ms (400 ms); giving up");
    expect(notices).toEqual([]);
    expect(h.server.requests).toHaveLength(1);
  });
});

describe("tscodex exec against a stream that never completes", () => {
  it("fails the turn when the server only sends keepalives", async () => {
    h.server.enqueue(turn(keepalive(20)));
    const result = await h.exec([
      "-c",
      "model_providers.fake.stream_idle_timeout_ms=400",
      "-c",
      "model_providers.fake.stream_max_retries=0",
      "go",
    ]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("idle timeout waiting for SSE");
  });

  it("fails the turn when the response outlives its budget", async () => {
    h.server.enqueue(turn(...trickle(300, 30)));
    const result = await h.exec(["-c", "model_providers.fake.stream_max_duration_ms=600", "go"]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("took longer than stream_max_duration_ms (600 ms)");
    expect(h.server.requests).toHaveLength(1);
  });
});
