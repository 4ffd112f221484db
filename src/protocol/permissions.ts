/**
 * The effective permissions of a command: one value, owned by the core, replaced whole by a
 * turn's override (never merged field by field). It comes from a legacy sandbox mode
 * (`sandbox_mode` + `sandbox_workspace_write`) or from a permission profile
 * (`[permissions.NAME]`, Codex's model); either way the backend gets the same shape.
 *
 * Exactly three converters exist: config → value (config/permission-profiles.ts and
 * session/permissions.ts for the legacy modes), wire ↔ value (the app-server's sandbox policy
 * and profile ids), value → backend (policy/sandbox/: bwrap argv, the helper's rules, the proxy's
 * rules). Paths stay symbolic here (`:workspace_roots`, `:tmpdir`, ...): a turn's cwd and the
 * command's $TMPDIR are only known when a command runs.
 */

/** What one filesystem rule grants: read and list; create, modify, delete; nothing. */
export type FsAccess = "read" | "write" | "deny";

/**
 * One filesystem rule as a profile writes it. `path` is one of the special forms `:root`,
 * `:minimal`, `:tmpdir`, `:slash_tmp`, `:workspace_roots`, or an absolute path (`~/` expanded at
 * load), optionally followed by `/subpath` (only after `:workspace_roots` or a real path). A path
 * containing `*`, `?` or `[` is a glob: only `deny` is enforced for globs (deny-read of the files
 * that match when the command starts, scanned to `globScanMaxDepth`).
 */
export interface FsRule {
  path: string;
  access: FsAccess;
}

/** One filesystem rule with a concrete absolute path (what a backend applies). */
export interface ResolvedFsRule {
  path: string;
  access: FsAccess;
}

export interface FilesystemPolicy {
  /** Rules in any order: the most specific path wins; at equal paths deny > write > read. */
  rules: FsRule[];
  /** The profile's workspace roots (absolute), joined to the runtime's (the cwd) in `:workspace_roots`. */
  workspaceRoots: string[];
  /** How deep `**` globs are expanded before the command starts (profile `glob_scan_max_depth`). */
  globScanMaxDepth: number;
}

/** A domain rule: `host`, `*.host` (subdomains), `**.host` (apex and subdomains) or `*`. */
export interface DomainRule {
  pattern: string;
  action: "allow" | "deny";
}

/** A unix socket path rule of a profile's network table. */
export interface UnixSocketRule {
  path: string;
  action: "allow" | "deny";
}

/**
 * The network a sandboxed command gets: none; the host's (legacy `network_access = true`, or a
 * profile's `enabled = true` without domain rules); or only the managed proxy, which applies the
 * domain rules (a profile with domain rules or `mode = "limited"`).
 */
export type NetworkPolicy =
  | { kind: "none" }
  | { kind: "full" }
  | {
      kind: "proxied";
      /** `limited`: GET, HEAD and OPTIONS only; no CONNECT, no SOCKS. */
      mode: "full" | "limited";
      /** Allowlist first (no allow entry: every host is blocked); deny wins. */
      domains: DomainRule[];
      /** Names resolving to loopback or private addresses are reachable only with this. */
      allowLocalBinding: boolean;
      unixSockets: UnixSocketRule[];
    };

/** The profile a value came from (the app-server's `activePermissionProfile`). */
export interface ProfileRef {
  id: string;
  /** The profile's parent (`:workspace`, `:read-only` or a named profile); null for a built-in. */
  extends: string | null;
}

/**
 * The effective permissions. `danger-full-access`: no sandbox, the host's network. `sandboxed`:
 * the filesystem rules and the network policy, enforced by a backend; `legacyMode` is how the
 * value projects onto Codex's sandbox modes (read-only when nothing is writable), which the
 * approval rules and the legacy wire fields still speak.
 */
export type Permissions =
  | { kind: "danger-full-access"; profile: ProfileRef | null }
  | {
      kind: "sandboxed";
      profile: ProfileRef | null;
      legacyMode: "read-only" | "workspace-write";
      filesystem: FilesystemPolicy;
      network: NetworkPolicy;
    };

/** The ids of the built-in profiles, in the order `permissionProfile/list` gives them. */
export const BUILTIN_PROFILE_IDS = [":read-only", ":workspace", ":danger-full-access"] as const;

/**
 * `:minimal`: where programs, their libraries and the system's configuration live. /dev, /proc
 * and the helper's own paths are the backend's business; absent ones are left out when resolved.
 */
export const MINIMAL_PATHS = [
  "/bin",
  "/sbin",
  "/usr",
  "/lib",
  "/lib32",
  "/lib64",
  "/libx32",
  "/etc",
] as const;
