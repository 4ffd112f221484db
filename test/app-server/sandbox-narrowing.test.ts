/**
 * turn/start `sandboxPolicy` through the real `tscodex app-server`, on both sandbox backends: a
 * workspaceWrite policy replaces the thread's from that turn on, as Codex does, so
 * `excludeSlashTmp` takes /tmp away (and keeps it away for later turns); a policy that cannot be
 * honoured (a relative writable root) is refused with -32602, never widened.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { useAppServerHarness } from "../support/app-server-harness.js";
import { functionCall, message, turn } from "../support/fake-model-server.js";
import { useOutsideDir } from "../support/hostile-repo.js";
import { sandboxBackends } from "../support/sandbox-probe.js";
import { missing } from "../support/skips.js";
import { runTurn, startThread } from "./flow.js";

const h = useAppServerHarness();
const backends = await sandboxBackends();
const outside = useOutsideDir();

describe.each(backends)("turn/start sandboxPolicy under $name", ({ name, status }) => {
  it.skipIf(missing(status, `sandbox narrowing under ${name}`))(
    "excludeSlashTmp: true makes /tmp unwritable for that turn and later ones; the workspace stays writable",
    async () => {
      const client = await h.stdio({ args: ["-c", `sandbox_backend="${name}"`] });
      const threadId = await startThread(client, {
        cwd: h.work,
        approvalPolicy: "never",
        sandbox: "workspace-write",
      });
      const touch = async (file: string, extra: Record<string, unknown> = {}) => {
        h.model.enqueue(
          turn(functionCall("shell_command", { command: `touch ${file}` }, "t")),
          turn(message("ok")),
        );
        const { completed } = await runTurn(client, threadId, "touch", extra);
        expect(completed.params.turn.status).toBe("completed");
        return existsSync(file);
      };
      expect(await touch(join(outside(), "before"))).toBe(true);
      const narrowed = { sandboxPolicy: { type: "workspaceWrite", excludeSlashTmp: true } };
      expect(await touch(join(outside(), "narrowed"), narrowed)).toBe(false);
      expect(await touch(join(outside(), "later"))).toBe(false);
      expect(await touch(join(h.work, "in-workspace"))).toBe(true);
    },
  );
});

describe("turn/start sandboxPolicy that cannot be honoured", () => {
  it("a relative writable root is refused with -32602 and the thread's policy is unchanged", async () => {
    const client = await h.stdio();
    const threadId = await startThread(client, {
      cwd: h.work,
      approvalPolicy: "never",
      sandbox: "read-only",
    });
    const reply = await client.request("turn/start", {
      threadId,
      input: [{ type: "text", text: "go" }],
      sandboxPolicy: { type: "workspaceWrite", writableRoots: ["relative/dir"] },
    });
    expect(reply.error).toEqual({
      code: -32602,
      message: "Invalid request: sandboxPolicy.writableRoots: 'relative/dir' is not an absolute path",
    });
    const read = await client.call("thread/resume", { threadId });
    expect(read.sandbox).toEqual({ type: "readOnly" });
  });
});
