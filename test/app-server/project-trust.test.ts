/**
 * thread/start's `cwd` under the project-trust rule, through the real `tscodex app-server`: a
 * hostile repo's `.codex/config.toml` is ignored (one warning on stderr) unless the user's
 * config.toml trusts that project, and then it applies as it does for `tscodex exec`; a repo
 * planted in a world-writable parent of a trusted cwd never applies.
 */
import { existsSync } from "node:fs";
import { describe } from "vitest";
import { useAppServerHarness } from "../support/app-server-harness.js";
import { functionCall, message, turn } from "../support/fake-model-server.js";
import { projectTrustCases, useOutsideDir } from "../support/hostile-repo.js";
import { noSandbox } from "../support/skips.js";
import { runTurn, startThread } from "./flow.js";

const h = useAppServerHarness();
const outside = useOutsideDir();

describe.skipIf(await noSandbox("app-server project trust"))(
  "app-server: a hostile repo as thread/start's cwd",
  () => {
    projectTrustCases(h, outside, async (escaped, cwd) => {
      const client = await h.stdio();
      const threadId = await startThread(client, { cwd, approvalPolicy: "never" });
      h.model.enqueue(
        turn(functionCall("shell_command", { command: `touch ${escaped}` }, "w")),
        turn(message("done")),
      );
      const { completed } = await runTurn(client, threadId, "hi");
      return {
        finished: completed.params.turn.status === "completed",
        escaped: existsSync(escaped),
        stderr: client.stderr,
      };
    });
  },
);
