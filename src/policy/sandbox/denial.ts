/**
 * Did a failed command fail because of the sandbox? A heuristic over its output, as Codex
 * has: the orchestrator uses it to offer an unsandboxed retry under `on-failure`.
 */

// What commands print when the kernel refuses them under our backends: EPERM/EACCES/EROFS
// from Landlock, seccomp and read-only mounts, and the network errors of an empty network
// namespace or a denied socket(). Node prints the errno names, so those count too.
const DENIAL_PATTERN = new RegExp(
  [
    "operation not permitted",
    "permission denied",
    "read-only file system",
    "network is unreachable",
    "could not resolve host",
    "temporary failure in name resolution",
    "name or service not known",
    // bwrap's network namespace has its own empty loopback: the host's servers refuse.
    "connection refused",
    // bwrap's pid namespace hides every process outside the sandbox.
    "no such process",
    "\\b(?:EPERM|EACCES|EROFS|ENETUNREACH|ECONNREFUSED|EAI_AGAIN)\\b",
  ].join("|"),
  "i",
);

/**
 * True when the command failed (exit code != 0) and its output carries the messages a sandbox
 * denial produces ("Permission denied", "Read-only file system", "Operation not permitted",
 * "Network is unreachable", "Could not resolve host", ...). Only meaningful for a command that
 * ran sandboxed; false positives cost one extra approval question, never a silent retry.
 */
export function isLikelySandboxDenial(exitCode: number, output: string): boolean {
  if (exitCode === 0) return false;
  return DENIAL_PATTERN.test(output);
}
