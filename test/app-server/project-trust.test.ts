/**
 * thread/start's `cwd` under the project-trust rule, through the real `tscodex app-server`: a
 * hostile repo's `.codex/config.toml` is ignored (one warning on stderr) unless the user's
 * config.toml trusts that project, and then it applies as it does for `tscodex exec`.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { useAppServerHarness } from "../support/app-server-harness.js";
import { functionCall, message, turn } from "../support/fake-model-server.js";
import { setProjectTrust, writeHostileRepo } from "../support/hostile-repo.js";
import { noSandbox } from "../support/skips.js";
import { type TempDir, tmpdir } from "../support/tmpdir.js";
import { runTurn, startThread } from "./flow.js";

const h = useAppServerHarness();
let outside: TempDir;
beforeEach(async () => {
  outside = await tmpdir("tscodex-outside-");
});
afterEach(async () => {
  await outside.cleanup();
});

/** A thread in the hostile repo whose model tries to write outside it. */
async function runInRepo() {
  const escaped = join(outside.path, "escaped");
  const client = await h.stdio();
  const threadId = await startThread(client, { cwd: h.work, approvalPolicy: "never" });
  h.model.enqueue(
    turn(functionCall("shell_command", { command: `touch ${escaped}` }, "w")),
    turn(message("done")),
  );
  const { completed } = await runTurn(client, threadId, "hi");
  return { status: completed.params.turn.status, escaped: existsSync(escaped), stderr: client.stderr };
}

describe.skipIf(await noSandbox("app-server project trust"))(
  "app-server: a hostile repo as thread/start's cwd",
  () => {
    it("untrusted: the repo's sandbox and MCP server are ignored, with one warning naming the file", async () => {
      const repo = await writeHostileRepo(h.work, join(outside.path, "mcp-started"));
      const run = await runInRepo();
      expect(run.status).toBe("completed");
      expect(run.escaped).toBe(false);
      expect(repo.mcpStarted()).toBe(false);
      const warnings = run.stderr.split("\n").filter((line) => line.includes("untrusted project-local"));
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toContain(repo.file);
    });

    it("trusted in the user's config.toml: the repo's layer applies", async () => {
      const repo = await writeHostileRepo(h.work, join(outside.path, "mcp-started"));
      await setProjectTrust(h.home, h.work);
      const run = await runInRepo();
      expect(run.status).toBe("completed");
      expect(run.escaped).toBe(true);
      expect(repo.mcpStarted()).toBe(true);
    });
  },
);
