/**
 * The approval matrix through the real CLI (`tscodex exec --json`) and the fake model server,
 * with the real sandbox: every approval policy × {safe command, unsafe command inside the
 * workspace, unsafe command outside it, escalation request, patch inside the writable roots,
 * patch outside them, forbidden rule}, with exec's declared outcome `deny` (default) and
 * `approve` (`-c approvals.exec_outcome="approve"`). Asserts which approval questions were
 * asked (the `approval_request` JSON items, our extension) and what the model received.
 *
 * The workspace is under /tmp; "outside" is under /var/tmp, because /tmp is itself a writable
 * root in workspace-write.
 */
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  EXEC_REJECTED_BY_USER,
  NEVER_ESCALATION_EXEC_COMMAND,
  NEVER_ESCALATION_SHELL,
  PATCH_REJECTED_BY_SETTINGS,
  PATCH_REJECTED_BY_USER,
  RETRY_WITHOUT_SANDBOX_REASON,
} from "../../src/policy/approval.js";
import { detectSandboxBackend, landlockBackendStatus } from "../../src/policy/sandbox/index.js";
import { useExecHarness } from "../support/exec-harness.js";
import { customToolCall, functionCall, message, turn } from "../support/fake-model-server.js";
import { missing, noSandbox } from "../support/skips.js";

const backend = await detectSandboxBackend();
const landlock = await landlockBackendStatus();
const sandboxUnavailable = await noSandbox("the approval checks through a real sandbox");
const h = useExecHarness({ git: false });
let outside: string;

beforeEach(async () => {
  outside = await mkdtemp(join(existsSync("/var/tmp") ? "/var/tmp" : process.cwd(), ".tscodex-matrix-"));
  await mkdir(join(h.home, "rules"));
  await writeFile(
    join(h.home, "rules", "ci.rules"),
    'prefix_rule(pattern = ["git", "push"], decision = "forbidden", justification = "pushes go through CI")\n',
  );
  await writeFile(join(h.work, "base.txt"), "alpha\n");
});
afterEach(async () => {
  await rm(outside, { recursive: true, force: true });
});

const POLICIES = ["untrusted", "on-failure", "on-request", "never"] as const;
type Policy = (typeof POLICIES)[number];
type Outcome = "deny" | "approve";

const shell = (command: string, extra: object = {}) => ({ command, ...extra });
const addFile = (path: string) => `*** Begin Patch\n*** Add File: ${path}\n+x\n*** End Patch`;

/** One model turn per scenario, in this order, then a final message. */
function enqueueScenarios(): void {
  h.server.enqueue(
    turn(functionCall("shell_command", shell("cat base.txt"), "safe")),
    turn(functionCall("shell_command", shell("touch inside.txt && echo made"), "unsafe_in")),
    turn(functionCall("shell_command", shell(`touch ${outside}/unsafe.txt`), "unsafe_out")),
    turn(
      functionCall(
        "shell_command",
        shell(`touch ${outside}/esc.txt && echo esc`, {
          sandbox_permissions: "require_escalated",
          justification: "need it",
        }),
        "escalate",
      ),
    ),
    turn(customToolCall("apply_patch", addFile("patch-in.txt"), "patch_in")),
    turn(customToolCall("apply_patch", addFile(`${outside}/patch-out.txt`), "patch_out")),
    turn(functionCall("shell_command", shell("git push origin main"), "forbidden")),
    turn(message("done")),
  );
}

async function runMatrix(policy: Policy | null, outcome: Outcome, extra: string[] = []) {
  enqueueScenarios();
  // approval_request items are our extension: shown only when the config asks for them.
  const args = ["exec", "--json", "--skip-git-repo-check", "-c", "approvals.exec_json_items=true", ...extra];
  if (policy) args.push("-a", policy);
  if (outcome === "approve") args.push("-c", 'approvals.exec_outcome="approve"');
  const result = await h.cli([...args, "run the scenarios"]);
  expect(h.server.errors).toEqual([]);
  expect(result.code).toBe(0);
  const events = result.stdout
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { type: string; item?: Record<string, unknown> });
  const asked = events
    .filter((event) => event.type === "item.completed" && event.item?.type === "approval_request")
    .map((event) => {
      const item = event.item ?? {};
      return `${item.call_id} ${item.kind}(${item.reason ?? ""}) → ${item.decision}`;
    });
  return { asked, outputs: modelOutputs() };
}

/** What the model received per call id (from the last request), wall times normalised. */
function modelOutputs(): Record<string, string> {
  const outputs: Record<string, string> = {};
  for (const [callId, output] of Object.entries(h.outputs())) {
    const text = typeof output === "string" ? output : JSON.stringify(output);
    outputs[callId] = text.replace(/Wall time: [\d.]+ seconds/, "Wall time: T seconds");
  }
  return outputs;
}

const ran = (output: string) => `Exit code: 0\nWall time: T seconds\nOutput:\n${output}`;
const patched = (line: string) => ran(`Success. Updated the following files:\n${line}\n`);
const FORBIDDEN = "command rejected: the exec policy forbids `git push`: pushes go through CI";
const sandboxDenied = () =>
  new RegExp(
    `^Exit code: 1\\nWall time: T seconds\\nOutput:\\ntouch: cannot touch '${outside}/unsafe.txt': (Read-only file system|Permission denied)\\n$`,
  );

describe.skipIf(sandboxUnavailable)(
  `approval matrix through tscodex exec (workspace-write, ${backend})`,
  () => {
    it.each(POLICIES)("%s, declared outcome deny", async (policy) => {
      const { asked, outputs } = await runMatrix(policy, "deny", ["-s", "workspace-write"]);
      const expected: Record<Policy, string[]> = {
        untrusted: [
          "unsafe_in exec() → denied",
          "unsafe_out exec() → denied",
          "escalate exec(need it) → denied",
          "patch_in patch() → denied",
          `patch_out patch(the patch writes outside the writable roots: ${outside}/patch-out.txt) → denied`,
        ],
        "on-failure": [
          `unsafe_out exec(${RETRY_WITHOUT_SANDBOX_REASON}) → denied`,
          "escalate exec(need it) → denied",
          `patch_out patch(the patch writes outside the writable roots: ${outside}/patch-out.txt) → denied`,
        ],
        "on-request": [
          "escalate exec(need it) → denied",
          `patch_out patch(the patch writes outside the writable roots: ${outside}/patch-out.txt) → denied`,
        ],
        never: [],
      };
      expect(asked).toEqual(expected[policy]);

      expect(outputs.safe).toBe(ran("alpha\n"));
      expect(outputs.forbidden).toBe(FORBIDDEN);
      if (policy === "untrusted") {
        expect(outputs.unsafe_in).toBe(EXEC_REJECTED_BY_USER);
        expect(outputs.unsafe_out).toBe(EXEC_REJECTED_BY_USER);
        expect(outputs.patch_in).toBe(PATCH_REJECTED_BY_USER);
      } else {
        expect(outputs.unsafe_in).toBe(ran("made\n"));
        expect(outputs.patch_in).toBe(patched("A patch-in.txt"));
      }
      if (policy === "on-failure") expect(outputs.unsafe_out).toBe(EXEC_REJECTED_BY_USER);
      if (policy === "on-request" || policy === "never") expect(outputs.unsafe_out).toMatch(sandboxDenied());
      expect(outputs.escalate).toBe(policy === "never" ? NEVER_ESCALATION_SHELL : EXEC_REJECTED_BY_USER);
      expect(outputs.patch_out).toBe(
        policy === "never" ? PATCH_REJECTED_BY_SETTINGS : PATCH_REJECTED_BY_USER,
      );
      // Nothing reached outside the workspace.
      for (const name of ["unsafe.txt", "esc.txt", "patch-out.txt"])
        expect(existsSync(join(outside, name))).toBe(false);
    });

    it.each(POLICIES)("%s, declared outcome approve", async (policy) => {
      const { asked, outputs } = await runMatrix(policy, "approve", ["-s", "workspace-write"]);
      const patchOut = `patch_out patch(the patch writes outside the writable roots: ${outside}/patch-out.txt) → approved`;
      const expected: Record<Policy, string[]> = {
        untrusted: [
          "unsafe_in exec() → approved",
          "unsafe_out exec() → approved",
          `unsafe_out exec(${RETRY_WITHOUT_SANDBOX_REASON}) → approved`,
          "escalate exec(need it) → approved",
          "patch_in patch() → approved",
          patchOut,
        ],
        "on-failure": [
          `unsafe_out exec(${RETRY_WITHOUT_SANDBOX_REASON}) → approved`,
          "escalate exec(need it) → approved",
          patchOut,
        ],
        "on-request": ["escalate exec(need it) → approved", patchOut],
        never: [],
      };
      expect(asked).toEqual(expected[policy]);

      expect(outputs.safe).toBe(ran("alpha\n"));
      expect(outputs.unsafe_in).toBe(ran("made\n"));
      expect(outputs.patch_in).toBe(patched("A patch-in.txt"));
      expect(outputs.forbidden).toBe(FORBIDDEN);
      if (policy === "never") {
        expect(outputs.unsafe_out).toMatch(sandboxDenied());
        expect(outputs.escalate).toBe(NEVER_ESCALATION_SHELL);
        expect(outputs.patch_out).toBe(PATCH_REJECTED_BY_SETTINGS);
        return;
      }
      // The retry ran unsandboxed and the model saw only its result (on-request offers no retry).
      if (policy === "on-request") expect(outputs.unsafe_out).toMatch(sandboxDenied());
      else expect(outputs.unsafe_out).toBe(ran(""));
      expect(existsSync(join(outside, "unsafe.txt"))).toBe(policy !== "on-request");
      expect(outputs.escalate).toBe(ran("esc\n"));
      expect(outputs.patch_out).toBe(patched(`A ${outside}/patch-out.txt`));
      expect(existsSync(join(outside, "patch-out.txt"))).toBe(true);
    });
  },
);

describe.skipIf(sandboxUnavailable)("exec_command goes through the same policy", () => {
  const unified = (policy: Policy, outcome: Outcome) =>
    h.cli([
      "exec",
      "--json",
      "--skip-git-repo-check",
      "-s",
      "workspace-write",
      "-a",
      policy,
      "-c",
      "features.unified_exec=true",
      "-c",
      "approvals.exec_json_items=true",
      "-c",
      `approvals.exec_outcome="${outcome}"`,
      "go",
    ]);
  const script = () =>
    h.server.enqueue(
      turn(
        functionCall(
          "exec_command",
          { cmd: `touch ${outside}/u.txt && echo ok`, yield_time_ms: 5000 },
          "denial",
        ),
      ),
      turn(
        functionCall(
          "exec_command",
          { cmd: "echo esc", sandbox_permissions: "require_escalated", justification: "x" },
          "escalate",
        ),
      ),
      turn(message("done")),
    );
  const body = (text: string) => text.slice(text.indexOf("Output:\n") + 8);

  it("never: escalation rejected with exec_command's wording; a denial reaches the model", async () => {
    script();
    expect((await unified("never", "deny")).code).toBe(0);
    const outputs = modelOutputs();
    expect(outputs.escalate).toBe(NEVER_ESCALATION_EXEC_COMMAND);
    expect(outputs.denial).toContain("Process exited with code 1");
    expect(body(outputs.denial ?? "")).toMatch(
      /touch: cannot touch '.*u\.txt': (Read-only file system|Permission denied)/,
    );
  });

  it("on-failure: the denied session is retried unsandboxed once approved", async () => {
    script();
    const result = await unified("on-failure", "approve");
    expect(result.code).toBe(0);
    const outputs = modelOutputs();
    expect(outputs.denial).toContain("Process exited with code 0");
    expect(body(outputs.denial ?? "")).toBe("ok\n");
    expect(existsSync(join(outside, "u.txt"))).toBe(true);
    expect(body(outputs.escalate ?? "")).toBe("esc\n");
    expect(result.stdout).toContain(`"reason":"${RETRY_WITHOUT_SANDBOX_REASON}","decision":"approved"`);
  });
});

describe("sandbox_backend", () => {
  it.each<{ backendChoice: string; env: Record<string, string>; prefix: string }>([
    {
      backendChoice: "bwrap",
      env: { TSCODEX_SANDBOX_BWRAP: "/nonexistent/bwrap" },
      prefix: "cannot run the read-only sandbox: ",
    },
    {
      backendChoice: "landlock",
      env: { TSCODEX_SANDBOX_HELPER: "/nonexistent/helper" },
      prefix: "cannot run the read-only sandbox with the Landlock helper: ",
    },
  ])(
    "a forced backend that cannot work: the model gets why, nothing runs ($backendChoice)",
    async ({ backendChoice, env, prefix }) => {
      h.server.enqueue(
        turn(functionCall("shell_command", shell("touch ran.txt"), "call_1")),
        turn(message("done")),
      );
      const result = await h.cli(
        ["exec", "--skip-git-repo-check", "-c", `sandbox_backend="${backendChoice}"`, "go"],
        { env },
      );
      expect(result.code).toBe(0);
      const output = modelOutputs().call_1 ?? "";
      expect(output.startsWith(prefix)).toBe(true);
      expect(output).toContain("choose danger-full-access");
      expect(existsSync(join(h.work, "ran.txt"))).toBe(false);
    },
  );

  it.skipIf(missing(landlock, "the forced Landlock run"))(
    "the Landlock helper, forced: on-failure retries its denial too",
    async () => {
      h.server.enqueue(
        turn(functionCall("shell_command", shell("touch in.txt"), "inside")),
        turn(functionCall("shell_command", shell(`touch ${outside}/ll.txt`), "outside")),
        turn(message("done")),
      );
      const result = await h.cli([
        "exec",
        "--json",
        "--skip-git-repo-check",
        "-s",
        "workspace-write",
        "-a",
        "on-failure",
        "-c",
        'sandbox_backend="landlock"',
        "-c",
        'approvals.exec_outcome="approve"',
        "-c",
        "approvals.exec_json_items=true",
        "go",
      ]);
      expect(result.code).toBe(0);
      expect(modelOutputs()).toEqual({ inside: ran(""), outside: ran("") });
      expect(result.stdout.match(/"type":"approval_request"/g)).toHaveLength(1);
      expect(result.stdout).toContain(`"call_id":"outside"`);
      expect(existsSync(join(h.work, "in.txt"))).toBe(true);
      expect(existsSync(join(outside, "ll.txt"))).toBe(true);
    },
  );
});

describe.skipIf(sandboxUnavailable)("exec defaults and human output", () => {
  it("no flags: read-only + never, so a patch is rejected even inside cwd (as Codex)", async () => {
    h.server.enqueue(
      turn(customToolCall("apply_patch", addFile("hello.txt"), "patch")),
      turn(functionCall("shell_command", shell("touch t.txt"), "touch")),
      // A heredoc patch through the shell is the same patch for the gate: no way around it.
      turn(
        functionCall(
          "shell_command",
          shell(`apply_patch <<'EOF'\n${addFile("via-shell.txt")}\nEOF`),
          "heredoc",
        ),
      ),
      turn(message("done")),
    );
    const result = await h.cli(["exec", "--json", "--skip-git-repo-check", "write"]);
    expect(result.code).toBe(0);
    const outputs = modelOutputs();
    expect(outputs.patch).toBe(PATCH_REJECTED_BY_SETTINGS);
    expect(outputs.heredoc).toBe(PATCH_REJECTED_BY_SETTINGS);
    expect(existsSync(join(h.work, "via-shell.txt"))).toBe(false);
    expect(outputs.touch).toMatch(
      /^Exit code: 1\n.*\ntouch: cannot touch 't\.txt': (Read-only file system|Permission denied)\n$/s,
    );
    expect(existsSync(join(h.work, "hello.txt"))).toBe(false);
    expect(result.stdout).not.toContain("approval_request");
  });

  it("--full-auto: workspace-write + never; human output shows answered questions", async () => {
    h.server.enqueue(
      turn(functionCall("shell_command", shell("touch ok.txt"), "touch")),
      turn(customToolCall("apply_patch", addFile(`${outside}/p.txt`), "patch")),
      turn(message("done")),
    );
    const auto = await h.cli(["exec", "--full-auto", "--skip-git-repo-check", "go"]);
    expect(auto.code).toBe(0);
    expect(modelOutputs()).toEqual({ touch: ran(""), patch: PATCH_REJECTED_BY_SETTINGS });
    expect(auto.stderr).toContain("approval: never");
    expect(auto.stderr).toContain("sandbox: workspace-write");

    h.server.reset();
    h.server.enqueue(
      turn(functionCall("shell_command", shell("touch asked.txt"), "ask")),
      turn(message("done")),
    );
    const human = await h.cli(["exec", "-a", "untrusted", "--skip-git-repo-check", "go"]);
    expect(human.code).toBe(0);
    expect(human.stderr).toContain("approval requested (command)\n/bin/bash -lc 'touch asked.txt' in ");
    expect(human.stderr).toContain("→ denied (answered by approvals.exec_outcome)");
    expect(modelOutputs()).toEqual({ ask: EXEC_REJECTED_BY_USER });
  });
});
