/**
 * `notify = [argv]` under the app-server (the TUI's core too): a turn run with turn/start ends
 * with the program run once, with Codex's `agent-turn-complete` JSON as its last argument.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { useAppServerHarness } from "../support/app-server-harness.js";
import { message, turn } from "../support/fake-model-server.js";
import { waitFor } from "../support/processes.js";
import { runTurn, startThread } from "./flow.js";

// The config is written before each test: the program is fixed for the file, and writes its
// arguments to notify.log in its cwd (the thread's, a fresh work dir per test).
const scriptDir = mkdtempSync(join(tmpdir(), "tscodex-notify-"));
const script = join(scriptDir, "notify.mjs");
writeFileSync(
  script,
  'import { appendFileSync } from "node:fs";\nappendFileSync("notify.log", JSON.stringify(process.argv.slice(2)) + "\\n");\n',
);
afterAll(() => rmSync(scriptDir, { recursive: true, force: true }));

const h = useAppServerHarness({
  extraConfig: `notify = ${JSON.stringify([process.execPath, script, "fixed"])}`,
});

describe("app-server: notify", () => {
  it("runs the program once after a turn with the agent-turn-complete JSON", async () => {
    h.model.enqueue(turn(message("the answer")));
    const client = await h.stdio();
    const threadId = await startThread(client, { cwd: h.work });
    const { turnId, completed } = await runTurn(client, threadId, "APP-NOTIFY hi");
    expect(completed.params.turn.status).toBe("completed");
    const log = join(h.work, "notify.log");
    const lines = async () => (await readFile(log, "utf8").catch(() => "")).split("\n").filter(Boolean);
    await waitFor(async () => (await lines()).length >= 1, 10_000);
    const [args] = (await lines()).map((line) => JSON.parse(line) as string[]);
    expect(args?.[0]).toBe("fixed");
    expect(JSON.parse(args?.[1] ?? "{}")).toEqual({
      type: "agent-turn-complete",
      "thread-id": threadId,
      "turn-id": turnId,
      cwd: h.work,
      "input-messages": ["APP-NOTIFY hi"],
      "last-assistant-message": "the answer",
    });
  });
});
