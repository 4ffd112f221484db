/**
 * The policy layer: approval policies, exec-policy rules, known-safe commands and the
 * orchestrator that runs commands under the sandbox (sandbox/ is the Linux runtime).
 *
 * Responsibilities: decide per mutating call whether it runs, is asked about or is rejected;
 * pick the sandbox; remember "approved for session" answers per thread.
 * Flow: createThreadPolicy(config) once per thread → its gate goes to the ToolRouter (patches),
 * its orchestrator into every TurnContext (commands).
 */
import { ApprovalStore } from "./approval-store.js";
import type { ExecPolicy } from "./exec-policy.js";
import { PolicyGate } from "./gate.js";
import { type OrchestratorOptions, PolicyOrchestrator } from "./orchestrator.js";
import type { SandboxBackendChoice } from "./sandbox/index.js";

export { ExecPolicy, ExecPolicyError, loadExecPolicy } from "./exec-policy.js";
export { PolicyGate } from "./gate.js";
export { PolicyOrchestrator } from "./orchestrator.js";
export { isKnownSafeCommand } from "./safe-commands.js";

export interface ThreadPolicy {
  gate: PolicyGate;
  orchestrator: PolicyOrchestrator;
}

/** One thread's gate and orchestrator, sharing its session approvals. */
export function createThreadPolicy(options: {
  rules: ExecPolicy;
  backend?: SandboxBackendChoice;
  prepare?: OrchestratorOptions["prepare"];
  /** Read-only to commands and patches even inside writable roots: the tscodex home. */
  protectedPaths?: readonly string[];
  allowUnixSockets?: boolean;
}): ThreadPolicy {
  const store = new ApprovalStore();
  return {
    gate: new PolicyGate(store, options.protectedPaths ?? []),
    orchestrator: new PolicyOrchestrator({ ...options, store }),
  };
}
