/**
 * Threads that last, through the built CLI: a kill -9 mid-turn then `exec resume`, sessions
 * list/show/fork/delete, and auto-compaction triggered by reported usage.
 */
import { appendFile, readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { messageText, type ResponseItem } from "../../src/protocol/items.js";
import { rolloutFiles } from "../../src/store/rollout-store.js";
import { useExecHarness } from "../support/exec-harness.js";
import { functionCall, hang, message, turn, usage } from "../support/fake-model-server.js";
import { waitFor } from "../support/processes.js";

const h = useExecHarness();

const texts = (input: ResponseItem[]) =>
  input.map((item) => (item.type === "message" ? `${item.role}: ${messageText(item)}` : item.type));

/** Run one exec turn that answers `answer`; returns the new thread's id. */
async function execOnce(prompt: string, answer: string): Promise<string> {
  h.server.enqueue(turn(message(answer), usage({ input: 100, output: 10 })));
  const result = await h.cli(["exec", "--json", prompt]);
  expect(result.code, result.stderr).toBe(0);
  const started = JSON.parse(result.stdout.split("\n")[0] ?? "{}") as { thread_id: string };
  return started.thread_id;
}

describe("tscodex exec resume", () => {
  it("after kill -9 mid-turn, resume sends the full prior history", async () => {
    h.server.enqueue(
      turn(
        functionCall("shell_command", { command: "echo step-one" }, "call_a"),
        usage({ input: 50, output: 5 }),
      ),
      turn(hang()),
    );
    let rolloutText = "";
    const killed = await h.cli(["exec", "--full-auto", "do the thing"], {
      onSpawn: (child) => {
        void waitFor(async () => {
          const [file] = await rolloutFiles(h.home);
          rolloutText = file ? await readFile(file, "utf8") : "";
          return rolloutText.includes('"function_call_output"');
        }, 10_000).then(
          () => child.kill("SIGKILL"),
          // Never recorded: kill anyway; the assertions below report what is missing.
          () => child.kill("SIGKILL"),
        );
      },
    });
    expect(killed.signal).toBe("SIGKILL");
    const [file] = await rolloutFiles(h.home);
    const id = /-([0-9a-f-]{36})\.jsonl$/.exec(file ?? "")?.[1] ?? "";
    expect(id).not.toBe("");

    h.server.enqueue(turn(message("resumed fine")));
    const resumed = await h.cli(["exec", "resume", id, "continue"]);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stdout).toContain("resumed fine");
    const request = h.server.requests.at(-1);
    const input = request?.input ?? [];
    const summary = texts(input);
    expect(summary.filter((line) => line.startsWith("user: do the thing"))).toHaveLength(1);
    const callIndex = input.findIndex((item) => item.type === "function_call" && item.call_id === "call_a");
    const output = input.find((item) => item.type === "function_call_output" && item.call_id === "call_a");
    expect(callIndex).toBeGreaterThan(0);
    expect(JSON.stringify(output)).toContain("step-one");
    expect(summary.at(-1)).toBe("user: continue");
    // Context items are not repeated: one environment context in the whole input.
    expect(summary.filter((line) => line.includes("<environment_context>"))).toHaveLength(1);
    // The resumed turn was appended to the same rollout.
    expect(await rolloutFiles(h.home)).toHaveLength(1);
    expect(await readFile(file ?? "", "utf8")).toContain("resumed fine");
  });

  it("--last resumes the newest thread, and a torn last line is tolerated", async () => {
    await execOnce("first thread", "one");
    const second = await execOnce("second thread", "two");
    const [newest] = await rolloutFiles(h.home);
    await appendFile(newest ?? "", '{"timestamp":"2025-01-01T00:00:00Z","type":"response_it');
    h.server.enqueue(turn(message("three")));
    const resumed = await h.cli(["exec", "resume", "--last", "and again"]);
    expect(resumed.code, resumed.stderr).toBe(0);
    const summary = texts(h.server.requests.at(-1)?.input ?? []);
    expect(summary).toContain("user: second thread");
    expect(summary).toContain("assistant: two");
    expect(summary).not.toContain("user: first thread");
    const shown = await h.cli(["sessions", "show", second, "--json"]);
    const parsed = JSON.parse(shown.stdout) as { turns: number; skipped_lines: number };
    expect(parsed.turns).toBe(2);
    expect(parsed.skipped_lines).toBe(1);
  });

  it("fails clearly for an unknown id", async () => {
    const result = await h.cli(["exec", "resume", "0190aaaa-0000-7000-8000-000000000000", "hi"]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("no stored thread with id");
  });
});

describe("tscodex sessions", () => {
  it("lists newest first, shows, forks and deletes", async () => {
    const first = await execOnce("write the parser", "parser written");
    const second = await execOnce("now the tests", "tests written");

    const list = await h.cli(["sessions", "list", "--json"]);
    expect(list.code, list.stderr).toBe(0);
    const threads = JSON.parse(list.stdout) as {
      id: string;
      turns: number;
      firstPrompt: string;
      usage: { total_tokens: number };
      cwd: string;
    }[];
    expect(threads.map((thread) => thread.id)).toEqual([second, first]);
    expect(threads[1]).toMatchObject({ turns: 1, firstPrompt: "write the parser", cwd: h.work });
    expect(threads[1]?.usage.total_tokens).toBe(110);

    const table = await h.cli(["sessions", "list"]);
    expect(table.stdout).toMatch(/^ID\s+AGE\s+TURNS\s+TOKENS\s+CWD\s+FIRST PROMPT/);
    expect(table.stdout).toContain("now the tests");

    const shown = await h.cli(["sessions", "show", first.slice(0, 18)]);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toContain(`thread   ${first}`);
    expect(shown.stdout).toContain("user: write the parser");
    expect(shown.stdout).toContain("assistant: parser written");

    // Resume the first thread once more so it has two turns, then fork its first turn only.
    h.server.enqueue(turn(message("second answer")));
    expect((await h.cli(["exec", "resume", first, "more"])).code).toBe(0);
    const forked = await h.cli(["sessions", "fork", first, "--turns", "1"]);
    expect(forked.code, forked.stderr).toBe(0);
    const forkId = forked.stdout.trim();
    const forkShown = JSON.parse((await h.cli(["sessions", "show", forkId, "--json"])).stdout) as {
      meta: { forked_from: string };
      turns: number;
      history: ResponseItem[];
    };
    expect(forkShown.meta.forked_from).toBe(first);
    expect(forkShown.turns).toBe(1);
    expect(texts(forkShown.history)).not.toContain("user: more");

    h.server.enqueue(turn(message("fork answer")));
    expect((await h.cli(["exec", "resume", forkId, "branch"])).code).toBe(0);
    const forkInput = texts(h.server.requests.at(-1)?.input ?? []);
    expect(forkInput).toContain("assistant: parser written");
    expect(forkInput).not.toContain("user: more");

    const deleted = await h.cli(["sessions", "delete", second]);
    expect(deleted.code, deleted.stderr).toBe(0);
    const after = JSON.parse((await h.cli(["sessions", "list", "--json"])).stdout) as { id: string }[];
    expect(after.map((thread) => thread.id).sort()).toEqual([first, forkId].sort());
    expect((await h.cli(["sessions", "delete", second])).code).toBe(1);
  });
});

describe("auto-compaction through exec", () => {
  it("compacts once usage nears the window; the next request carries the summary, not the old items", async () => {
    h.server.enqueue(
      turn(
        functionCall("shell_command", { command: "echo big-output" }, "call_big"),
        usage({ input: 950, output: 20 }),
      ),
      turn(message("- ran echo big-output\n- next: report")),
      turn(message("done after compaction"), usage({ input: 120, output: 5 })),
    );
    const result = await h.cli(["exec", "--full-auto", "-c", "model_context_window=1000", "long task"]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain("done after compaction");
    expect(h.server.requests).toHaveLength(3);
    const compactRequest = h.server.requests[1];
    expect(compactRequest?.toolNames).toEqual([]);
    expect(texts(compactRequest?.input ?? []).at(-1)).toMatch(
      /^user: The conversation is about to be shortened/,
    );

    const next = h.server.requests[2]?.input ?? [];
    const summary = texts(next);
    expect(summary.at(-1)).toBe(
      "user: Summary of the conversation so far:\n- ran echo big-output\n- next: report",
    );
    expect(summary).toContain("user: long task");
    expect(next.some((item) => item.type === "function_call" || item.type === "function_call_output")).toBe(
      false,
    );
    expect(summary.filter((line) => line.includes("<environment_context>"))).toHaveLength(1);

    // Resume rebuilds the compacted history from the rollout.
    const [file] = await rolloutFiles(h.home);
    expect(await readFile(file ?? "", "utf8")).toContain('"type":"compacted"');
    const id = /-([0-9a-f-]{36})\.jsonl$/.exec(file ?? "")?.[1] ?? "";
    h.server.enqueue(turn(message("ok")));
    expect((await h.cli(["exec", "resume", id, "go on"])).code).toBe(0);
    const resumed = h.server.requests.at(-1)?.input ?? [];
    expect(resumed.some((item) => item.type === "function_call")).toBe(false);
    expect(texts(resumed)).toContain(
      "user: Summary of the conversation so far:\n- ran echo big-output\n- next: report",
    );
    expect(texts(resumed)).toContain("assistant: done after compaction");
  });
});
