/**
 * The Linux sandbox runtime: turns a command line plus a SandboxPolicy into the command line
 * that enforces it. The policy layer (orchestrator) decides when to sandbox and what to do
 * on a denial; this module only wraps and detects.
 *
 * Responsibilities: detect usable backends once (bubblewrap, else the Landlock + seccomp
 * helper built from native/); resolve writable roots and read-only control dirs per command;
 * build the backend's argv; recognise sandbox denials in a failed command's output.
 *
 * Flow: prepareSandboxedCommand(argv, cwd, policy) → { argv, backend } → runCommand(argv…)
 * → on failure, isLikelySandboxDenial(exitCode, output) feeds the on-failure retry.
 */
export { containCommand, warnUncontained } from "./contain.js";
export { isLikelySandboxDenial } from "./denial.js";
export {
  type BackendStatus,
  bwrapBackendStatus,
  containmentStatus,
  detectSandboxBackend,
  type LandlockStatus,
  landlockBackendStatus,
} from "./detect.js";
export { type PrepareOptions, prepareSandboxedCommand } from "./prepare.js";
export {
  type PreparedCommand,
  type ProxyRoute,
  type ResolvedFsRule,
  type SandboxBackend,
  type SandboxBackendChoice,
  type SandboxPolicy,
  SandboxUnavailableError,
} from "./types.js";
