/**
 * The policy layer: approval policies, exec-policy rules, known-safe commands and the
 * orchestrator that runs commands under the sandbox (sandbox/ is the Linux runtime).
 *
 * Responsibilities: decide per mutating call whether it runs, is asked about or is rejected;
 * pick the sandbox; remember "approved for session" answers per thread.
 * Flow: createThreadPolicy(config) once per thread → its gate goes to the ToolRouter (patches),
 * its orchestrator into every TurnContext (commands).
 */
import type { ApprovalGate } from "../tools/router.js";
import type { CommandOrchestrator } from "../tools/types.js";
import type { ExecPolicy } from "./exec-policy.js";
import type { OrchestratorOptions } from "./orchestrator.js";
import type { SandboxBackendChoice } from "./sandbox/types.js";

export { ExecPolicy, ExecPolicyError, loadExecPolicy } from "./exec-policy.js";

export interface ThreadPolicy {
  gate: ApprovalGate;
  orchestrator: CommandOrchestrator;
}

type ThreadPolicyOptions = {
  rules: ExecPolicy;
  backend?: SandboxBackendChoice;
  prepare?: OrchestratorOptions["prepare"];
  /** Read-only to commands and patches even inside writable roots: the tscodex home. */
  protectedPaths?: readonly string[];
  allowUnixSockets?: boolean;
};

/**
 * One thread's gate and orchestrator, sharing its session approvals. Their code (approval
 * rules, safe commands, the sandbox runtime) loads on the first call that needs a decision: a
 * turn without a mutating tool call never parses it (issue 26: what a one-turn exec loads is
 * its peak RSS).
 */
export function createThreadPolicy(options: ThreadPolicyOptions): ThreadPolicy {
  let loading: Promise<ThreadPolicy> | undefined;
  const loaded = () => {
    loading ??= loadThreadPolicy(options);
    return loading;
  };
  return {
    gate: { check: async (invocation, request) => (await loaded()).gate.check(invocation, request) },
    orchestrator: {
      run: async (request) => (await loaded()).orchestrator.run(request),
      approveMcpCall: async (request) => (await loaded()).orchestrator.approveMcpCall(request),
      confine: async (command, cwd, turn) => (await loaded()).orchestrator.confine(command, cwd, turn),
    },
  };
}

async function loadThreadPolicy(options: ThreadPolicyOptions): Promise<ThreadPolicy> {
  const [{ ApprovalStore }, { PolicyGate }, { PolicyOrchestrator }] = await Promise.all([
    import("./approval-store.js"),
    import("./gate.js"),
    import("./orchestrator.js"),
  ]);
  const store = new ApprovalStore();
  return {
    gate: new PolicyGate(store, options.protectedPaths ?? []),
    orchestrator: new PolicyOrchestrator({ ...options, store }),
  };
}
