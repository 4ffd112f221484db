/**
 * Codex's sandbox modes as permissions values, and back: `sandbox_mode` +
 * `sandbox_workspace_write` (config, `-s`, the app-server's `sandbox` / `sandboxPolicy`) become
 * the one Permissions value; a value projects onto the legacy fields the wire and the approval
 * rules still speak. Pure.
 */
import type { FsRule, Permissions } from "./permissions.js";
import type { SANDBOX_MODES } from "./policy-names.js";

type SandboxMode = (typeof SANDBOX_MODES)[number];

/** The workspace-write extent: what `sandbox_workspace_write` (or a wire policy) adds to the mode. */
export interface LegacyExtent {
  /** Extra writable roots, absolute. */
  writableRoots: readonly string[];
  networkAccess: boolean;
  excludeTmpdirEnvVar: boolean;
  excludeSlashTmp: boolean;
}

export const NO_EXTENT: LegacyExtent = {
  writableRoots: [],
  networkAccess: false,
  excludeTmpdirEnvVar: false,
  excludeSlashTmp: false,
};

/** Read everything, the glob scan depth Codex defaults to. */
const READ_ALL: FsRule = { path: ":root", access: "read" };
export const DEFAULT_GLOB_SCAN_MAX_DEPTH = 8;

/**
 * A sandbox mode as a value. read-only never has network (whatever the extent says: that is how
 * a read-only turn kept a workspace-write thread's network); workspace-write writes the
 * workspace roots (the cwd), the temp dirs unless excluded and the extra roots.
 */
export function permissionsFromSandboxMode(mode: SandboxMode, extent: LegacyExtent = NO_EXTENT): Permissions {
  if (mode === "danger-full-access") return { kind: "danger-full-access", profile: null };
  const filesystem = { rules: [READ_ALL], workspaceRoots: [], globScanMaxDepth: DEFAULT_GLOB_SCAN_MAX_DEPTH };
  if (mode === "read-only")
    return {
      kind: "sandboxed",
      profile: null,
      legacyMode: "read-only",
      filesystem,
      network: { kind: "none" },
    };
  // The extra roots first: the permissions message lists writable roots in this order.
  const rules: FsRule[] = [READ_ALL];
  for (const root of extent.writableRoots) rules.push({ path: root, access: "write" });
  rules.push({ path: ":workspace_roots", access: "write" });
  if (!extent.excludeSlashTmp) rules.push({ path: ":slash_tmp", access: "write" });
  if (!extent.excludeTmpdirEnvVar) rules.push({ path: ":tmpdir", access: "write" });
  return {
    kind: "sandboxed",
    profile: null,
    legacyMode: "workspace-write",
    filesystem: { ...filesystem, rules },
    network: extent.networkAccess ? { kind: "full" } : { kind: "none" },
  };
}

/** The legacy fields of a value: its mode and, in workspace-write, the extent. */
export interface LegacyProjection {
  mode: SandboxMode;
  extent: LegacyExtent;
}

/**
 * How a value reads as Codex's sandbox mode (the approval rules, the prompt's permissions
 * message and the wire's `sandbox` field). A proxied network counts as network access: the
 * command may reach hosts, only through the proxy.
 */
export function legacyProjection(permissions: Permissions): LegacyProjection {
  if (permissions.kind === "danger-full-access")
    return { mode: "danger-full-access", extent: { ...NO_EXTENT, networkAccess: true } };
  const { rules } = permissions.filesystem;
  const writes = (path: string): boolean =>
    rules.some((rule) => rule.path === path && rule.access === "write");
  return {
    mode: permissions.legacyMode,
    extent: {
      writableRoots: rules
        .filter((rule) => rule.access === "write" && rule.path.startsWith("/"))
        .map((rule) => rule.path),
      networkAccess: permissions.network.kind !== "none",
      excludeSlashTmp: !writes(":slash_tmp"),
      excludeTmpdirEnvVar: !writes(":tmpdir"),
    },
  };
}

/**
 * `permissions` cut down to `mode` (a sub-agent's `sandbox_mode`), never wider: read-only keeps
 * the parent's filesystem rules with every write made a read, and no network; a mode the value
 * already is (or a wider one, which callers refuse first) leaves it as it is.
 */
export function narrowPermissions(permissions: Permissions, mode: SandboxMode): Permissions {
  if (permissions.kind === "danger-full-access")
    return mode === "danger-full-access"
      ? permissions
      : permissionsFromSandboxMode(mode, { ...NO_EXTENT, networkAccess: mode === "workspace-write" });
  if (mode !== "read-only" || permissions.legacyMode === "read-only") return permissions;
  const rules = permissions.filesystem.rules.map((rule) =>
    rule.access === "write" ? { ...rule, access: "read" as const } : rule,
  );
  return {
    ...permissions,
    legacyMode: "read-only",
    filesystem: { ...permissions.filesystem, rules },
    network: { kind: "none" },
  };
}
