/**
 * exec flags and behaviour that CLI wrappers and the Codex SDK rely on (`npm run build` first):
 * top-level options before `exec`, `--experimental-json`, the stdin block, `--ephemeral`,
 * `--thread-source` / `--cyber-access-program` in the rollout, a failure on stderr with --json,
 * and SIGTERM ending the command's process tree.
 */
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { useExecHarness } from "../support/exec-harness.js";
import { functionCall, hang, httpError, message, turn } from "../support/fake-model-server.js";
import { waitFor, withMarker } from "../support/processes.js";

const h = useExecHarness();

async function rollouts(): Promise<string[]> {
  const root = join(h.home, "sessions");
  const entries = await readdir(root, { recursive: true }).catch(() => [] as string[]);
  return entries.filter((name) => name.endsWith(".jsonl")).map((name) => join(root, name));
}

describe("exec as Codex's wrappers call it", () => {
  it("top-level -C, -m and --search apply to exec; --experimental-json is --json", async () => {
    h.server.enqueue(turn(message("ok")));
    const result = await h.cli(
      ["-C", h.work, "-m", "gpt-5.1-codex", "--search", "exec", "--experimental-json", "hi"],
      { cwd: h.home },
    );
    expect(result.code).toBe(0);
    const request = h.server.requests[0];
    expect(request?.body.model).toBe("gpt-5.1-codex");
    expect(request?.toolNames).toContain("web_search");
    expect(JSON.stringify(request?.input)).toContain(`<cwd>${h.work}</cwd>`);
    expect(result.stdout.split("\n")[0]).toMatch(/^\{"type":"thread.started"/);
  });

  it("a prompt argument with piped stdin sends stdin as a <stdin> block", async () => {
    h.server.enqueue(turn(message("ok")));
    const result = await h.exec(["summarise this"], { stdin: "line one\nline two\n" });
    expect(result.code).toBe(0);
    expect(JSON.stringify(h.server.requests[0]?.input)).toContain(
      JSON.stringify("summarise this\n\n<stdin>\nline one\nline two\n</stdin>").slice(1, -1),
    );
  });

  it("--ephemeral writes no rollout; --thread-source and --cyber-access-program are recorded", async () => {
    h.server.enqueue(turn(message("one")), turn(message("two")));
    expect((await h.exec(["--ephemeral", "hi"])).code).toBe(0);
    expect(await rollouts()).toEqual([]);
    const result = await h.exec(["--thread-source", "sdk-test", "--cyber-access-program", "standard", "hi"]);
    expect(result.code).toBe(0);
    const [path] = await rollouts();
    const meta = JSON.parse((await readFile(path ?? "", "utf8")).split("\n")[0] ?? "{}");
    expect(meta.payload).toMatchObject({ thread_source: "sdk-test", cyber_access_program: "standard" });
  });

  it("with --json a model 400 is Codex's error + turn.failed, and is also reported on stderr", async () => {
    const body = {
      error: { message: "Invalid request: mock says no", type: "invalid_request_error", code: "bad" },
    };
    h.server.enqueue(httpError(400, body));
    const result = await h.exec(["--json", "hi"]);
    expect(result.code).toBe(1);
    const reference = await readFile(
      fileURLToPath(new URL("../fixtures/reference/exec-json/exec-json-http400.jsonl", import.meta.url)),
      "utf8",
    );
    const shape = (text: string) =>
      text
        .trim()
        .split("\n")
        .map((line) => {
          const event = JSON.parse(line) as { type: string; message?: string; error?: { message: string } };
          return {
            type: event.type,
            mentionsBody: (event.message ?? event.error?.message ?? "").includes("mock says no"),
          };
        });
    expect(shape(result.stdout)).toEqual(shape(reference));
    // SDK errors quote stderr.
    expect(result.stderr).toContain("mock says no");
  });

  it("SIGTERM stops the turn and kills the running command's whole tree before exiting", async () => {
    const seconds = `${32_000 + Math.floor(Math.random() * 1000)}`;
    // /proc cmdlines separate arguments with NULs: this matches the sleep processes themselves.
    const marker = `sleep\0${seconds}`;
    h.server.enqueue(
      turn(
        functionCall(
          "shell_command",
          { command: `bash -c 'sleep ${seconds} & sleep ${seconds}; wait'` },
          "call_1",
        ),
      ),
      turn(hang()),
    );
    let pid = 0;
    const run = h.exec(["-s", "danger-full-access", "--json", "go"], {
      onSpawn: (child) => {
        pid = child.pid ?? 0;
      },
    });
    await waitFor(async () => (await withMarker(marker)).length >= 2, 10_000);
    process.kill(pid, "SIGTERM");
    const result = await run;
    expect(result.stderr).not.toContain("Error");
    expect(result.code).toBe(143);
    expect(await withMarker(marker)).toEqual([]);
  });
});
