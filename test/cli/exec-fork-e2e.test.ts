/**
 * `tscodex exec fork ID PROMPT` end to end (built CLI, fake model server): the fork gets a new
 * thread id, sends the first thread's history plus the new prompt, and leaves the original as
 * it was (cli-parity.md Part 1 §5).
 */
import { describe, expect, it } from "vitest";
import { useExecHarness } from "../support/exec-harness.js";
import { message, type RecordedRequest, turn } from "../support/fake-model-server.js";

const h = useExecHarness();

/** The text of every user message a request sent. */
const userTexts = (request: RecordedRequest | undefined) =>
  JSON.stringify((request?.input ?? []).filter((item) => "role" in item && item.role === "user"));

/** thread.started's id in --json output. */
const threadIdOf = (stdout: string): string => {
  const started = stdout
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { type: string; thread_id?: string })
    .find((event) => event.type === "thread.started");
  if (!started?.thread_id) throw new Error(`no thread.started in:\n${stdout}`);
  return started.thread_id;
};

describe("tscodex exec fork", () => {
  it("runs the prompt on a copy with a new id; the original keeps its own history", async () => {
    h.server.enqueue(turn(message("first answer")), turn(message("fork answer")), turn(message("later")));
    const first = await h.exec(["--json", "FIRST-PROMPT"]);
    expect(first.code, first.stderr).toBe(0);
    const original = threadIdOf(first.stdout);

    // Options may follow `fork`, as in Codex.
    const fork = await h.cli(["exec", "fork", "--json", original, "FORK-PROMPT"]);
    expect(fork.code, fork.stderr).toBe(0);
    const forked = threadIdOf(fork.stdout);
    expect(forked).not.toBe(original);
    expect(fork.stdout).toContain("fork answer");
    const forkRequest = h.server.requests[1];
    expect(userTexts(forkRequest)).toContain("FIRST-PROMPT");
    expect(userTexts(forkRequest)).toContain("FORK-PROMPT");
    expect(forkRequest?.body.prompt_cache_key).toBe(forked);

    const later = await h.exec(["resume", "--json", original, "LATER-PROMPT"]);
    expect(later.code, later.stderr).toBe(0);
    expect(threadIdOf(later.stdout)).toBe(original);
    expect(userTexts(h.server.requests[2])).toContain("FIRST-PROMPT");
    expect(userTexts(h.server.requests[2])).not.toContain("FORK-PROMPT");
  });

  it("an unknown id fails with exit 1 and no model request", async () => {
    const result = await h.cli(["exec", "fork", "0000dead-0000-0000-0000-000000000000", "hi"]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("0000dead-0000-0000-0000-000000000000");
    expect(h.server.requests).toHaveLength(0);
  });
});
