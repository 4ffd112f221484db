/**
 * kill -9 during a tool call leaves the call without an output in the rollout; a resumed thread
 * closes it with an "aborted" output so the next request is one the Responses API accepts.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { ResponseItem } from "../../src/protocol/items.js";
import { rolloutFiles } from "../../src/store/rollout-store.js";
import { ABORTED_CALL_OUTPUT, closeUnpairedCalls } from "../../src/store/unpaired-calls.js";
import { useExecHarness } from "../support/exec-harness.js";
import { functionCall, message, turn } from "../support/fake-model-server.js";
import { gone, readPid, waitFor } from "../support/processes.js";
import { noContainment } from "../support/skips.js";

const h = useExecHarness({ execArgs: ["-s", "danger-full-access"] });
const uncontained = await noContainment("the kill -9 check");

describe("resume after kill -9 mid-call", () => {
  // exec's kill -9 ends the command only through the helper's keeper.
  it.skipIf(uncontained)("sends the interrupted call with an aborted output", async () => {
    h.server.enqueue(
      turn(functionCall("shell_command", { command: "echo $$ > cmd.pid; exec sleep 30" }, "call_k")),
    );
    let commandPid = 0;
    const killed = await h.exec(["--json", "start"], {
      onSpawn: (child) => {
        void (async () => {
          commandPid = await readPid(join(h.work, "cmd.pid"), 10_000);
          await waitFor(async () => {
            const [file] = await rolloutFiles(h.home);
            return (file ? await readFile(file, "utf8") : "").includes('"call_k"');
          }, 10_000);
        })().finally(() => child.kill("SIGKILL"));
      },
    });
    expect(killed.signal).toBe("SIGKILL");
    // exec's kill -9 takes the command along (the helper's keeper ends it).
    expect(commandPid).toBeGreaterThan(0);
    const commandGone = await gone(commandPid);
    if (!commandGone) process.kill(commandPid, "SIGKILL");
    expect(commandGone).toBe(true);
    const threadId = (JSON.parse(killed.stdout.split("\n")[0] ?? "{}") as { thread_id?: string }).thread_id;
    expect(threadId).toBeDefined();

    h.server.enqueue(turn(message("resumed")));
    const resumed = await h.exec(["resume", threadId ?? "", "go on"]);
    expect(resumed.code, resumed.stderr).toBe(0);
    const input = h.server.requests.at(-1)?.input ?? [];
    const callAt = input.findIndex((item) => item.type === "function_call" && item.call_id === "call_k");
    expect(callAt).toBeGreaterThan(0);
    expect(input[callAt + 1]).toEqual({
      type: "function_call_output",
      call_id: "call_k",
      output: ABORTED_CALL_OUTPUT,
    });
    expect(input.filter((item) => "call_id" in item && item.call_id === "call_k")).toHaveLength(2);
  });
});

describe("closeUnpairedCalls", () => {
  const call = (id: string): ResponseItem => ({
    type: "function_call",
    name: "shell",
    arguments: "{}",
    call_id: id,
  });
  const out = (id: string): ResponseItem => ({ type: "function_call_output", call_id: id, output: "ok" });

  it("closes each kind of unanswered call right after it, and leaves answered and kept ones", () => {
    const custom: ResponseItem = { type: "custom_tool_call", name: "apply_patch", input: "x", call_id: "c" };
    const shell: ResponseItem = {
      type: "local_shell_call",
      call_id: "l",
      status: "in_progress",
      action: { type: "exec", command: ["ls"] },
    };
    const history = [call("a"), call("b"), out("a"), custom, shell, call("p")];
    expect(closeUnpairedCalls(history, new Set(["p"]))).toEqual([
      call("a"),
      call("b"),
      { type: "function_call_output", call_id: "b", output: ABORTED_CALL_OUTPUT },
      out("a"),
      custom,
      { type: "custom_tool_call_output", call_id: "c", output: ABORTED_CALL_OUTPUT },
      shell,
      { type: "function_call_output", call_id: "l", output: ABORTED_CALL_OUTPUT },
      call("p"),
    ]);
    const paired = [call("a"), out("a")];
    expect(closeUnpairedCalls(paired)).toEqual(paired);
  });
});
