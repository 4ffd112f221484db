/** The sandbox runtime's contract types (the policy layer codes against these). */
import type { ResolvedFsRule } from "../../protocol/permissions.js";

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
  /**
   * A permission profile's filesystem rules, resolved to absolute paths (globs expanded), applied
   * on top of the mode's layout from the least specific path to the most: `read` binds read-only,
   * `write` writable, `deny` makes the path unreadable (a narrower rule inside reopens it). When
   * no rule covers `/`, nothing outside the rules is readable. Absent: the mode's layout alone.
   */
  fsRules?: readonly ResolvedFsRule[] | undefined;
  /**
   * The managed proxy's routes: the command gets its own network namespace with only loopback,
   * where `127.0.0.1:port` leads to the unix socket `socketPath` on the host (the proxy's
   * listener for this command). No other way out: direct TCP, UDP and DNS fail. Wins over
   * `networkAccess`.
   */
  proxyRoutes?: readonly ProxyRoute[] | undefined;
}

export type { ResolvedFsRule };

/** A loopback port inside the command's network namespace and the host unix socket it leads to. */
export interface ProxyRoute {
  port: number;
  socketPath: string;
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
