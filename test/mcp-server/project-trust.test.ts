/**
 * The `codex` tool's `cwd` under the project-trust rule, through the real `tscodex mcp-server`:
 * a hostile repo's `.codex/config.toml` is ignored (one warning on stderr) unless the user's
 * config.toml trusts that project, and then it applies as it does for `tscodex exec`; a repo
 * planted in a world-writable parent of a trusted cwd never applies.
 */
import { existsSync } from "node:fs";
import { describe } from "vitest";
import { functionCall, message, turn } from "../support/fake-model-server.js";
import { projectTrustCases, useOutsideDir } from "../support/hostile-repo.js";
import { callTool } from "../support/mcp-client.js";
import { useMcpHarness } from "../support/mcp-harness.js";
import { noSandbox } from "../support/skips.js";

const h = useMcpHarness();
const outside = useOutsideDir();

describe.skipIf(await noSandbox("mcp-server project trust"))(
  "mcp-server: a hostile repo as the codex tool's cwd",
  () => {
    projectTrustCases(h, outside, async (escaped, cwd) => {
      const { client, stderr } = await h.connect();
      h.model.enqueue(
        turn(functionCall("shell_command", { command: `touch ${escaped}` }, "w")),
        turn(message("done")),
      );
      const result = await callTool(client, "codex", {
        prompt: "hi",
        cwd,
        "approval-policy": "never",
      });
      return { finished: result.text === "done", escaped: existsSync(escaped), stderr: stderr() };
    });
  },
);
