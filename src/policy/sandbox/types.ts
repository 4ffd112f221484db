/** The sandbox runtime's contract types (the policy layer codes against these). */

/** What a sandboxed command may do. `writableRoots` counts only in workspace-write. */
export interface SandboxPolicy {
  mode: "read-only" | "workspace-write" | "danger-full-access";
  writableRoots: string[];
  networkAccess: boolean;
  /**
   * Kept read-only even inside a writable root (the tscodex home: its config.toml and rules
   * decide the next run's policy). A missing one inside a root is created, then protected.
   */
  readOnlyPaths?: readonly string[] | undefined;
  /**
   * With network off, unix sockets are blocked too (socket(AF_UNIX) fails: docker.sock,
   * ssh-agent and dbus are host services); true lets commands open them (config
   * `sandbox_allow_unix_sockets`). socketpair() always works.
   */
  allowUnixSockets?: boolean | undefined;
}

/** What enforces the policy: bubblewrap, the Landlock + seccomp helper, or nothing. */
export type SandboxBackend = "bwrap" | "landlock" | "none";

/** A backend the caller may ask for; "auto" prefers bwrap, then the Landlock helper. */
export type SandboxBackendChoice = "auto" | "bwrap" | "landlock";

/** The argv to spawn instead of the original, and what it runs under. */
export interface PreparedCommand {
  argv: string[];
  backend: SandboxBackend;
}

/**
 * No backend can enforce the policy here. The message names the fix (install bubblewrap,
 * build the helper, or choose danger-full-access); callers show it rather than run unsandboxed.
 */
export class SandboxUnavailableError extends Error {
  override name = "SandboxUnavailableError";
}
