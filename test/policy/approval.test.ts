/**
 * Policy decisions (planExec, planPatch), writable-root checks on real paths, the patch gate
 * with session memory, and the thread's bounded approval waits.
 */
import { mkdir, realpath, symlink } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import {
  type CommandSafety,
  NEVER_ESCALATION_EXEC_COMMAND,
  NEVER_ESCALATION_SHELL,
  PATCH_REJECTED_BY_SETTINGS,
  PATCH_REJECTED_BY_USER,
  planExec,
  planPatch,
} from "../../src/policy/approval.js";
import { ApprovalStore } from "../../src/policy/approval-store.js";
import type { PrefixRule } from "../../src/policy/exec-policy.js";
import { PolicyGate } from "../../src/policy/gate.js";
import { pathsOutside, realWritableRoots } from "../../src/policy/patch-paths.js";
import type { Event } from "../../src/protocol/events.js";
import type { ApprovalPolicy, SandboxMode } from "../../src/protocol/policy.js";
import { PendingApprovals } from "../../src/session/approvals.js";
import type { ApprovalRequest } from "../../src/tools/types.js";
import { type TempDir, tmpdir } from "../support/tmpdir.js";
import { invocationFor, policyTurn } from "./support.js";

const forbid: PrefixRule = {
  pattern: ["git", "push"],
  decision: "forbidden",
  justification: "CI pushes",
  source: "t",
};
const prompt: PrefixRule = {
  pattern: ["npm", "publish"],
  decision: "prompt",
  justification: "final",
  source: "t",
};
const SAFETY: Record<string, CommandSafety> = {
  safe: { kind: "trusted" },
  unsafe: { kind: "unknown" },
  forbidden: { kind: "forbidden", rule: forbid },
  prompt: { kind: "prompt", rule: prompt },
};
const POLICIES: ApprovalPolicy[] = ["untrusted", "on-failure", "on-request", "never"];

describe("planExec", () => {
  const plan = (
    safety: string,
    approvalPolicy: ApprovalPolicy,
    escalate = false,
    sandboxMode: SandboxMode = "workspace-write",
  ) =>
    planExec({
      safety: SAFETY[safety] as CommandSafety,
      approvalPolicy,
      sandboxMode,
      escalation: escalate ? { justification: "needs the network" } : null,
      tool: "shell",
    });
  /** action[:reason][+escalated][+retry] */
  const show = (p: ReturnType<typeof plan>): string => {
    if (p.action === "reject") return `reject: ${p.message}`;
    const flags = `${p.escalated ? "+escalated" : ""}${p.retryOnDenial ? "+retry" : ""}`;
    return p.action === "ask" ? `ask(${p.reason})${flags}` : `run${flags}`;
  };

  it("the matrix: policy × command kind × escalation", () => {
    const rows: Record<string, string[]> = {};
    for (const policy of POLICIES) {
      rows[policy] = [
        show(plan("safe", policy)),
        show(plan("unsafe", policy)),
        show(plan("unsafe", policy, true)),
        show(plan("safe", policy, true)),
        show(plan("prompt", policy)),
      ];
    }
    const forbidden = "reject: command rejected: the exec policy forbids `git push`: CI pushes";
    for (const policy of POLICIES) expect(show(plan("forbidden", policy))).toBe(forbidden);
    expect(rows).toEqual({
      untrusted: [
        "run+retry",
        "ask(null)+retry",
        "ask(needs the network)+escalated",
        "run+retry",
        "ask(final)+retry",
      ],
      "on-failure": [
        "run+retry",
        "run+retry",
        "ask(needs the network)+escalated",
        "run+retry",
        "ask(final)+retry",
      ],
      "on-request": ["run", "run", "ask(needs the network)+escalated", "run", "ask(final)"],
      never: [
        "run",
        "run",
        `reject: ${NEVER_ESCALATION_SHELL}`,
        `reject: ${NEVER_ESCALATION_SHELL}`,
        "reject: command rejected: the exec policy requires approval for `npm publish` (final), and the approval policy is never",
      ],
    });
  });

  it("danger-full-access: no retry, escalation needs no question, never still rejects it (as Codex)", () => {
    expect(show(plan("unsafe", "on-failure", false, "danger-full-access"))).toBe("run");
    expect(show(plan("unsafe", "on-request", true, "danger-full-access"))).toBe("run");
    expect(show(plan("unsafe", "never", true, "danger-full-access"))).toBe(
      `reject: ${NEVER_ESCALATION_SHELL}`,
    );
  });

  it("exec_command's wording of the never-escalation rejection", () => {
    const p = planExec({
      safety: { kind: "unknown" },
      approvalPolicy: "never",
      sandboxMode: "read-only",
      escalation: {},
      tool: "exec_command",
    });
    expect(p).toEqual({ action: "reject", message: NEVER_ESCALATION_EXEC_COMMAND });
  });
});

describe("planPatch", () => {
  const show = (
    approvalPolicy: ApprovalPolicy,
    sandboxMode: SandboxMode,
    outside: boolean,
    remembered = false,
  ) => {
    const p = planPatch({ approvalPolicy, sandboxMode, outside: outside ? ["/etc/x"] : [], remembered });
    return p.action === "reject" ? p.message : p.action;
  };

  it("inside / outside the roots, per policy", () => {
    const table = POLICIES.map((policy) => [
      policy,
      show(policy, "workspace-write", false),
      show(policy, "workspace-write", true),
      show(policy, "danger-full-access", true),
    ]);
    expect(table).toEqual([
      ["untrusted", "ask", "ask", "run"],
      ["on-failure", "run", "ask", "run"],
      ["on-request", "run", "ask", "run"],
      ["never", "run", PATCH_REJECTED_BY_SETTINGS, "run"],
    ]);
    expect(show("on-request", "workspace-write", true, true)).toBe("run");
  });
});

describe("writable roots on real paths", () => {
  let dir: TempDir;
  let root: string;
  beforeEach(async () => {
    dir = await tmpdir();
    root = await realpath(dir.path);
    await mkdir(join(root, "ws", ".git"), { recursive: true });
    await mkdir(join(root, "outside"));
    await symlink(join(root, "outside"), join(root, "ws", "link"));
  });
  afterEach(() => dir.cleanup());

  it("symlinked roots resolve; control dirs stay read-only; .. is normalised", async () => {
    await symlink(join(root, "ws"), join(root, "ws-link"));
    const roots = await realWritableRoots([join(root, "ws-link"), join(root, "missing")]);
    expect(roots).toEqual([join(root, "ws"), join(root, "missing")]);
    expect(
      pathsOutside(
        [
          join(root, "ws", "a.txt"),
          join(root, "ws", ".git", "hooks", "pre-commit"),
          join(root, "ws", "..", "outside", "b.txt"),
          join(root, "ws-other", "c.txt"),
          join(root, "ws", ".github", "ok.yml"),
        ],
        roots,
      ),
    ).toEqual([
      join(root, "ws", ".git", "hooks", "pre-commit"),
      join(root, "ws", "..", "outside", "b.txt"),
      join(root, "ws-other", "c.txt"),
    ]);
  });

  it("the gate: a patch through a symlink out of the workspace is asked about; session memory", async () => {
    const store = new ApprovalStore();
    const gate = new PolicyGate(store);
    // The temp dir is under /tmp, itself a default root: only ws is writable here.
    const turn = policyTurn({
      cwd: join(root, "ws"),
      writableRoots: [join(root, "ws")],
      approvalPolicy: "on-request",
      answers: ["approved_for_session"],
    });
    // apply-patch reports real paths: the link's target, not ws/link/b.txt.
    const escaping: ApprovalRequest = { kind: "patch", changes: {}, paths: [join(root, "outside", "b.txt")] };
    const inside: ApprovalRequest = { kind: "patch", changes: {}, paths: [join(root, "ws", "a.txt")] };
    expect(await gate.check(invocationFor(turn), inside)).toEqual({ allowed: true });
    expect(await gate.check(invocationFor(turn, "call_2"), escaping)).toEqual({ allowed: true, asked: true });
    expect(turn.questions).toEqual([
      {
        kind: "patch",
        callId: "call_2",
        changes: {},
        reason: `the patch writes outside the writable roots: ${join(root, "outside", "b.txt")}`,
        grantRoot: null,
      },
    ]);
    // Approved for the session: the same path is not asked again; another one is (and denied).
    expect(await gate.check(invocationFor(turn, "call_3"), escaping)).toEqual({ allowed: true });
    const other: ApprovalRequest = { kind: "patch", changes: {}, paths: [join(root, "outside", "c.txt")] };
    expect(await gate.check(invocationFor(turn, "call_4"), other)).toEqual({
      allowed: false,
      message: PATCH_REJECTED_BY_USER,
    });
    expect(turn.questions.map((q) => q.callId)).toEqual(["call_2", "call_4"]);
  });

  it("a .git at any depth, existing or not, and the tscodex home are never writable by a patch", async () => {
    const roots = await realWritableRoots([join(root, "ws")]);
    const home = join(root, "ws", "home");
    const paths = [
      join(root, "ws", "sub", "inner", ".git", "hooks", "pre-commit"),
      join(root, "ws", "new", "deep", ".git", "config"),
      join(root, "ws", "sub", "mod", ".git"),
      join(home, "config.toml"),
      join(home, "rules", "default.rules"),
    ];
    expect(pathsOutside([...paths, join(root, "ws", "sub", "gitignore.git")], roots, [home])).toEqual(paths);
    // Under `never` the gate rejects each such patch even inside cwd in workspace-write.
    const gate = new PolicyGate(new ApprovalStore(), [home]);
    const turn = policyTurn({
      cwd: join(root, "ws"),
      writableRoots: [join(root, "ws")],
      approvalPolicy: "never",
    });
    for (const path of paths) {
      expect(await gate.check(invocationFor(turn), { kind: "patch", changes: {}, paths: [path] })).toEqual({
        allowed: false,
        message: PATCH_REJECTED_BY_SETTINGS,
      });
    }
  });

  it("the gate: read-only + never rejects a patch even inside cwd", async () => {
    const gate = new PolicyGate(new ApprovalStore());
    const turn = policyTurn({ cwd: join(root, "ws"), approvalPolicy: "never", sandboxMode: "read-only" });
    const inside: ApprovalRequest = { kind: "patch", changes: {}, paths: [join(root, "ws", "a.txt")] };
    expect(await gate.check(invocationFor(turn), inside)).toEqual({
      allowed: false,
      message: PATCH_REJECTED_BY_SETTINGS,
    });
  });
});

describe("bounded approval waits", () => {
  afterEach(() => {
    vi.useRealTimers();
  });
  const question = {
    kind: "exec" as const,
    callId: "call_1",
    command: ["touch", "x"],
    cwd: "/w",
    reason: null,
  };

  it("emits the request, then resolves with the answer", async () => {
    const events: Event[] = [];
    const pending = new PendingApprovals((event) => events.push(event), 1000);
    const answer = pending.request(question, "0", new AbortController().signal);
    expect(events).toEqual([
      {
        type: "exec_approval_request",
        call_id: "call_1",
        turn_id: "0",
        command: ["touch", "x"],
        cwd: "/w",
        reason: null,
      },
    ]);
    expect(pending.kindOf("call_1")).toBe("exec");
    expect(pending.answer("patch", "call_1", "approved")).toBe(false);
    expect(pending.answer("exec", "call_1", "approved_for_session")).toBe(true);
    expect(await answer).toBe("approved_for_session");
    expect(pending.answer("exec", "call_1", "approved")).toBe(false);
  });

  it("no answer within the bound: denied, with a warning", async () => {
    vi.useFakeTimers();
    const events: Event[] = [];
    const pending = new PendingApprovals((event) => events.push(event), 120_000);
    const answer = pending.request(question, "0", new AbortController().signal);
    await vi.advanceTimersByTimeAsync(119_999);
    expect(pending.kindOf("call_1")).toBe("exec");
    await vi.advanceTimersByTimeAsync(1);
    expect(await answer).toBe("denied");
    expect(events.at(-1)).toEqual({
      type: "warning",
      message: "approval request call_1 got no answer within 120000 ms; treated as denied",
    });
    expect(pending.kindOf("call_1")).toBeUndefined();
  });

  it("an interrupted turn answers abort; an unknown decision counts as denied", async () => {
    const pending = new PendingApprovals(() => {}, 60_000);
    const abort = new AbortController();
    const first = pending.request(question, "0", abort.signal);
    abort.abort();
    expect(await first).toBe("abort");
    expect(await pending.request(question, "0", abort.signal)).toBe("abort");

    const second = pending.request(question, "0", new AbortController().signal);
    pending.answer("exec", "call_1", "accept");
    expect(await second).toBe("denied");
  });

  it("a synchronous answer from inside the event listener works", async () => {
    const pending: PendingApprovals = new PendingApprovals((event) => {
      if (event.type === "exec_approval_request") pending.answer("exec", event.call_id, "approved");
    }, 60_000);
    expect(await pending.request(question, "0", new AbortController().signal)).toBe("approved");
  });
});
