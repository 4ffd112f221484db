/**
 * The `codex` tool's `cwd` under the project-trust rule, through the real `tscodex mcp-server`:
 * a hostile repo's `.codex/config.toml` is ignored (one warning on stderr) unless the user's
 * config.toml trusts that project, and then it applies as it does for `tscodex exec`.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { functionCall, message, turn } from "../support/fake-model-server.js";
import { setProjectTrust, writeHostileRepo } from "../support/hostile-repo.js";
import { callTool } from "../support/mcp-client.js";
import { useMcpHarness } from "../support/mcp-harness.js";
import { noSandbox } from "../support/skips.js";
import { type TempDir, tmpdir } from "../support/tmpdir.js";

const h = useMcpHarness();
let outside: TempDir;
beforeEach(async () => {
  outside = await tmpdir("tscodex-outside-");
});
afterEach(async () => {
  await outside.cleanup();
});

/** One codex call in the hostile repo whose model tries to write outside it. */
async function runInRepo() {
  const escaped = join(outside.path, "escaped");
  const { client, stderr } = await h.connect();
  h.model.enqueue(
    turn(functionCall("shell_command", { command: `touch ${escaped}` }, "w")),
    turn(message("done")),
  );
  const result = await callTool(client, "codex", { prompt: "hi", cwd: h.work, "approval-policy": "never" });
  return { text: result.text, escaped: existsSync(escaped), stderr: stderr() };
}

describe.skipIf(await noSandbox("mcp-server project trust"))(
  "mcp-server: a hostile repo as the codex tool's cwd",
  () => {
    it("untrusted: the repo's sandbox and MCP server are ignored, with one warning naming the file", async () => {
      const repo = await writeHostileRepo(h.work, join(outside.path, "mcp-started"));
      const run = await runInRepo();
      expect(run.text).toBe("done");
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
      expect(run.text).toBe("done");
      expect(run.escaped).toBe(true);
      expect(repo.mcpStarted()).toBe(true);
      expect(run.stderr).not.toContain("untrusted project-local");
    });
  },
);
