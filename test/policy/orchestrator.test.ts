/**
 * The orchestrator with a fake runner and sandbox wrapper (decisions, questions, retries,
 * session memory), then with the real sandbox and real processes where it matters.
 */
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ExecResult, runCommand } from "../../src/exec/spawn.js";
import {
  EXEC_REJECTED_BY_USER,
  NEVER_ESCALATION_EXEC_COMMAND,
  RETRY_WITHOUT_SANDBOX_REASON,
} from "../../src/policy/approval.js";
import { ExecPolicy } from "../../src/policy/exec-policy.js";
import { PolicyOrchestrator } from "../../src/policy/orchestrator.js";
import {
  detectSandboxBackend,
  isLikelySandboxDenial,
  SandboxUnavailableError,
} from "../../src/policy/sandbox/index.js";
import type { ReviewDecision } from "../../src/protocol/events.js";
import { renderCaptured } from "../../src/tools/truncate.js";
import type { OrchestratedCommand } from "../../src/tools/types.js";
import { noSandbox } from "../support/skips.js";
import { invocationFor, type PolicyTurn, type PolicyTurnOptions, policyTurn } from "./support.js";

interface Fake {
  exitCode: number;
  output: string;
}

/**
 * An orchestrator whose sandbox wraps argv as ["SANDBOX", ...argv] and whose containment of
 * unsandboxed commands as ["CONTAIN", ...argv], and a runner that records.
 */
function harness(
  options: PolicyTurnOptions & { results?: Fake[]; rules?: ExecPolicy; unavailable?: boolean } = {},
) {
  const turn = policyTurn(options);
  const attempts: { argv: string[]; sandboxed: boolean }[] = [];
  const results = [...(options.results ?? [])];
  let starts = 0;
  const orchestrator = new PolicyOrchestrator({
    rules: options.rules ?? ExecPolicy.empty(),
    prepare: async (argv) => {
      if (options.unavailable)
        throw new SandboxUnavailableError("cannot run the workspace-write sandbox: install bubblewrap");
      return { argv: ["SANDBOX", ...argv], backend: "bwrap" };
    },
    contain: async (argv) => ["CONTAIN", ...argv],
  });
  const run = (command: string[], extra: Partial<OrchestratedCommand<Fake>> = {}, callId = "call_1") =>
    orchestrator.run<Fake>({
      command,
      cwd: turn.cwd,
      inv: invocationFor(turn, callId),
      runner: async (argv, attempt) => {
        attempts.push({ argv, sandboxed: attempt.sandboxed });
        return results.shift() ?? { exitCode: 0, output: "ok" };
      },
      outcome: (result) => result,
      onStart: () => {
        starts += 1;
      },
      ...extra,
    });
  return { turn, attempts, run, starts: () => starts, orchestrator };
}

const bash = (script: string) => ["/bin/bash", "-lc", script];
const DENIED = { exitCode: 1, output: "touch: cannot touch '/etc/x': Read-only file system\n" };
const reasons = (turn: PolicyTurn) => turn.questions.map((q) => (q.kind === "exec" ? q.reason : "patch"));

describe("orchestrator decisions (fake runner)", () => {
  it("untrusted: a known-safe command runs sandboxed without a question", async () => {
    const h = harness({ approvalPolicy: "untrusted" });
    expect(await h.run(bash("ls && pwd"))).toEqual({
      kind: "ran",
      result: { exitCode: 0, output: "ok" },
      sandboxed: true,
    });
    expect(h.attempts).toEqual([{ argv: ["SANDBOX", ...bash("ls && pwd")], sandboxed: true }]);
    expect(h.turn.questions).toEqual([]);
  });

  it("untrusted: an unknown command is asked about first; denied → nothing runs", async () => {
    const h = harness({ approvalPolicy: "untrusted", answers: ["denied"] });
    expect(await h.run(bash("touch x"))).toEqual({ kind: "rejected", message: EXEC_REJECTED_BY_USER });
    expect(h.turn.questions).toEqual([
      { kind: "exec", callId: "call_1", command: bash("touch x"), cwd: "/work", reason: null },
    ]);
    expect(h.attempts).toEqual([]);
    expect(h.starts()).toBe(1);
  });

  it("on-request: escalation asks with the justification; approved → runs unsandboxed", async () => {
    const h = harness({ approvalPolicy: "on-request", answers: ["approved"] });
    const result = await h.run(bash("curl example.com"), {
      escalation: { justification: "needs the network" },
    });
    expect(result).toMatchObject({ kind: "ran", sandboxed: false });
    expect(reasons(h.turn)).toEqual(["needs the network"]);
    expect(h.attempts).toEqual([{ argv: ["CONTAIN", ...bash("curl example.com")], sandboxed: false }]);
  });

  it("on-request: a safe command asking for escalation is not asked about", async () => {
    const h = harness({ approvalPolicy: "on-request" });
    await h.run(bash("echo hi"), { escalation: { justification: "x" } });
    expect(h.turn.questions).toEqual([]);
    expect(h.attempts[0]?.sandboxed).toBe(true);
  });

  it("on-request: a sandbox denial goes back to the model as is (no retry offered)", async () => {
    const h = harness({ approvalPolicy: "on-request", results: [DENIED] });
    expect(await h.run(bash("touch /etc/x"))).toEqual({ kind: "ran", result: DENIED, sandboxed: true });
    expect(h.turn.questions).toEqual([]);
  });

  it("on-failure: denial → 'retry without sandbox?' → approved → re-run unsandboxed; the model sees only that", async () => {
    const h = harness({
      approvalPolicy: "on-failure",
      answers: ["approved"],
      results: [DENIED, { exitCode: 0, output: "" }],
    });
    expect(await h.run(bash("touch /etc/x"))).toEqual({
      kind: "ran",
      result: { exitCode: 0, output: "" },
      sandboxed: false,
    });
    expect(reasons(h.turn)).toEqual([RETRY_WITHOUT_SANDBOX_REASON]);
    expect(h.attempts).toEqual([
      { argv: ["SANDBOX", ...bash("touch /etc/x")], sandboxed: true },
      { argv: ["CONTAIN", ...bash("touch /etc/x")], sandboxed: false },
    ]);
    expect(h.starts()).toBe(1);
  });

  it("on-failure: retry denied → the model is told the user rejected it", async () => {
    const h = harness({ approvalPolicy: "on-failure", answers: ["denied"], results: [DENIED] });
    expect(await h.run(bash("touch /etc/x"))).toEqual({ kind: "rejected", message: EXEC_REJECTED_BY_USER });
    expect(h.attempts).toHaveLength(1);
  });

  it("on-failure: an ordinary failure (not a denial) is not offered again", async () => {
    const h = harness({ approvalPolicy: "on-failure", results: [{ exitCode: 2, output: "no such file\n" }] });
    expect(await h.run(bash("cat missing"))).toMatchObject({ kind: "ran", sandboxed: true });
    expect(h.turn.questions).toEqual([]);
  });

  it("approved_for_session: the exact command is not asked again in this thread", async () => {
    const h = harness({ approvalPolicy: "untrusted", answers: ["approved_for_session"] });
    await h.run(bash("touch a"), {}, "call_1");
    await h.run(bash("touch a"), {}, "call_2");
    await h.run(bash("touch b"), {}, "call_3");
    expect(h.turn.questions.map((q) => q.callId)).toEqual(["call_1", "call_3"]);
    expect(h.attempts).toHaveLength(2);
  });

  it("approved_for_session also covers the on-failure retry question", async () => {
    const h = harness({
      approvalPolicy: "on-failure",
      answers: ["approved_for_session"],
      results: [DENIED, { exitCode: 0, output: "" }, DENIED, { exitCode: 0, output: "" }],
    });
    await h.run(bash("touch /etc/x"), {}, "call_1");
    expect(await h.run(bash("touch /etc/x"), {}, "call_2")).toMatchObject({ kind: "ran", sandboxed: false });
    expect(h.turn.questions).toHaveLength(1);
    expect(h.attempts.map((a) => a.sandboxed)).toEqual([true, false, true, false]);
  });

  it("forbidden rules reject before anything starts, under every policy", async () => {
    const rules = new ExecPolicy([
      { pattern: ["git", "push"], decision: "forbidden", justification: "CI pushes", source: "t" },
    ]);
    for (const approvalPolicy of ["untrusted", "on-failure", "on-request", "never"] as const) {
      const h = harness({ approvalPolicy, rules, sandboxMode: "danger-full-access" });
      expect(await h.run(bash("git status && git push"))).toEqual({
        kind: "rejected",
        message: "command rejected: the exec policy forbids `git push`: CI pushes",
      });
      expect(h.starts()).toBe(0);
    }
  });

  it("never: escalation is rejected with Codex's text; exec_command's wording", async () => {
    const h = harness({ approvalPolicy: "never" });
    expect(await h.run(bash("echo esc"), { escalation: {}, tool: "exec_command" })).toEqual({
      kind: "rejected",
      message: NEVER_ESCALATION_EXEC_COMMAND,
    });
    expect(h.starts()).toBe(0);
  });

  it("danger-full-access runs the command unsandboxed, only contained", async () => {
    const h = harness({ approvalPolicy: "on-failure", sandboxMode: "danger-full-access", results: [DENIED] });
    expect(await h.run(bash("touch /etc/x"))).toEqual({ kind: "ran", result: DENIED, sandboxed: false });
    expect(h.attempts).toEqual([{ argv: ["CONTAIN", ...bash("touch /etc/x")], sandboxed: false }]);
  });

  it("no sandbox backend: the model gets the message; nothing runs unsandboxed", async () => {
    const h = harness({ approvalPolicy: "never", unavailable: true });
    expect(await h.run(bash("ls"))).toEqual({
      kind: "rejected",
      message: "cannot run the workspace-write sandbox: install bubblewrap",
    });
    expect(h.attempts).toEqual([]);
  });

  it("nobody answers: denied; an interrupted question: abort → rejected", async () => {
    const lone = harness({ approvalPolicy: "untrusted" });
    expect(await lone.run(bash("touch x"))).toEqual({ kind: "rejected", message: EXEC_REJECTED_BY_USER });
    const aborted = harness({ approvalPolicy: "untrusted", answers: ["abort" as ReviewDecision] });
    expect(await aborted.run(bash("touch x"))).toEqual({ kind: "rejected", message: EXEC_REJECTED_BY_USER });
    expect(aborted.attempts).toEqual([]);
  });
});

// The real thing: bubblewrap or the Landlock helper, real processes, real files.
const backend = await detectSandboxBackend();
const unsandboxed = await noSandbox("the orchestrator with the real sandbox");

describe.skipIf(unsandboxed)(`orchestrator with the real sandbox (${backend})`, () => {
  let base: string;
  let ws: string;
  let outside: string;
  beforeAll(async () => {
    // Not under /tmp: /tmp is itself a writable root in workspace-write.
    const parent = existsSync("/var/tmp") ? "/var/tmp" : process.cwd();
    base = await mkdtemp(join(parent, ".tscodex-test-orchestrator-"));
    ws = join(base, "ws");
    outside = join(base, "outside");
    await mkdir(ws);
    await mkdir(outside);
  });
  afterAll(() => rm(base, { recursive: true, force: true }));

  const realRun = (turn: PolicyTurn, script: string) =>
    new PolicyOrchestrator().run<ExecResult>({
      command: bash(script),
      cwd: ws,
      inv: invocationFor(turn),
      runner: (argv) =>
        runCommand({ argv, cwd: ws, env: turn.shellEnvironment.env, timeoutMs: 10_000, signal: turn.signal }),
      outcome: (result) => ({ exitCode: result.exitCode, output: renderCaptured(result.aggregated) }),
    });
  const options = (approvalPolicy: PolicyTurnOptions["approvalPolicy"], answers: ReviewDecision[] = []) => ({
    cwd: ws,
    writableRoots: [ws],
    sandboxMode: "workspace-write" as const,
    approvalPolicy,
    answers,
  });

  it("workspace-write + never: writing inside works, outside fails with a sandbox denial", async () => {
    const turn = policyTurn(options("never"));
    const inside = await realRun(turn, "touch inside.txt && echo made");
    expect(inside).toMatchObject({ kind: "ran", sandboxed: true, result: { exitCode: 0 } });
    expect(existsSync(join(ws, "inside.txt"))).toBe(true);

    const denied = await realRun(turn, `touch ${join(outside, "never.txt")}`);
    if (denied.kind !== "ran") throw new Error("expected a run");
    const output = renderCaptured(denied.result.aggregated);
    expect(denied.result.exitCode).toBe(1);
    expect(isLikelySandboxDenial(denied.result.exitCode, output)).toBe(true);
    expect(existsSync(join(outside, "never.txt"))).toBe(false);
    expect(turn.questions).toEqual([]);
  });

  it("workspace-write + on-failure: denied → asked → approved → re-run succeeds", async () => {
    const turn = policyTurn(options("on-failure", ["approved"]));
    const result = await realRun(turn, `touch ${join(outside, "retried.txt")}`);
    expect(result).toMatchObject({ kind: "ran", sandboxed: false, result: { exitCode: 0 } });
    expect(reasons(turn)).toEqual([RETRY_WITHOUT_SANDBOX_REASON]);
    expect(existsSync(join(outside, "retried.txt"))).toBe(true);
  });

  it("read-only: even the workspace is not writable; escalation approved writes it", async () => {
    const turn = policyTurn({ ...options("on-request", ["approved"]), sandboxMode: "read-only" });
    const sandboxed = await realRun(turn, "touch ro.txt");
    expect(sandboxed).toMatchObject({ kind: "ran", sandboxed: true, result: { exitCode: 1 } });
    expect(existsSync(join(ws, "ro.txt"))).toBe(false);
    const escalated = await new PolicyOrchestrator().run<ExecResult>({
      command: bash("touch ro.txt"),
      cwd: ws,
      inv: invocationFor(turn),
      escalation: { justification: "write the file" },
      runner: (argv) => runCommand({ argv, cwd: ws, env: turn.shellEnvironment.env, timeoutMs: 10_000 }),
    });
    expect(escalated).toMatchObject({ kind: "ran", sandboxed: false, result: { exitCode: 0 } });
    expect(existsSync(join(ws, "ro.txt"))).toBe(true);
  });
});
