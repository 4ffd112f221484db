/**
 * thread/start's `sessionStartSource` (Codex 0.169's ThreadStartSource) through the real
 * app-server: a SessionStart command hook hears "clear" when the client says the thread
 * replaces a cleared one (the TUI's /clear), "startup" otherwise; any other value is -32602.
 */
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { recorded, recorder, writeHooksJson } from "../hooks/hook-fixtures.js";
import { useAppServerHarness } from "../support/app-server-harness.js";
import { referenceSchemaFailures } from "../support/app-server-schemas.js";
import { runCli } from "../support/cli.js";
import { message, turn } from "../support/fake-model-server.js";
import { runTurn, startThread } from "./flow.js";

const h = useAppServerHarness();

describe("app-server: thread/start sessionStartSource", () => {
  it("gives SessionStart hooks source clear or startup, and refuses other values", async () => {
    const log = join(h.home, "hook-log");
    await mkdir(log);
    await writeHooksJson(h.home, { SessionStart: [{ command: recorder(log, "SessionStart") }] });
    expect((await runCli(["hooks", "trust", "--all"], { cwd: h.work, home: h.home })).code).toBe(0);
    const client = await h.stdio();

    const cleared = await startThread(client, { cwd: h.work, sessionStartSource: "clear" });
    h.model.enqueue(turn(message("one")));
    await runTurn(client, cleared, "first");
    const plain = await startThread(client, { cwd: h.work });
    h.model.enqueue(turn(message("two")));
    await runTurn(client, plain, "second");
    const named = await startThread(client, { cwd: h.work, sessionStartSource: "startup" });
    h.model.enqueue(turn(message("three")));
    await runTurn(client, named, "third");

    const sources = Object.fromEntries(
      (await recorded(log, "SessionStart")).map((payload) => [payload.session_id, payload.source]),
    );
    expect(sources).toEqual({ [cleared]: "clear", [plain]: "startup", [named]: "startup" });
    expect(referenceSchemaFailures(client)).toEqual([]);

    // A bad value is refused like any bad param, by a client whose messages are not schema-checked.
    const other = await h.stdio();
    for (const value of ["resume", "CLEAR", 1]) {
      const refused = await other.request("thread/start", { cwd: h.work, sessionStartSource: value });
      expect(refused.error?.code).toBe(-32602);
      expect(refused.error?.message).toContain("sessionStartSource");
    }
  }, 90_000); // the schema check compiles the 0.169 schemas (about 11 s on a loaded machine)
});
