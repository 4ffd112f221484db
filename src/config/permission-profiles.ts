/**
 * Permission profiles → the one Permissions value (config → value, the profile half; the legacy
 * sandbox modes are permissions-legacy.ts). Responsibilities: resolve a profile by id through
 * its `extends` chain (built-ins `:read-only`, `:workspace`, `:danger-full-access`), list the
 * profiles, and choose what a run gets: an explicit profile, `-s`, `default_permissions` or the
 * legacy `sandbox_mode` (Codex's precedence, reference permissions-network.md §6).
 *
 * How a child combines with its parent: filesystem rules and workspace roots accumulate (the
 * child's entry wins on the same path), network keys override, domain and unix socket rules
 * merge per pattern / path (the child's wins), `description` is the child's own.
 */
import { homedir } from "node:os";
import {
  BUILTIN_PROFILE_IDS,
  type FsAccess,
  type NetworkPolicy,
  type Permissions,
} from "../protocol/permissions.js";
import {
  DEFAULT_GLOB_SCAN_MAX_DEPTH,
  type LegacyExtent,
  NO_EXTENT,
  permissionsFromSandboxMode,
} from "../protocol/permissions-legacy.js";
import type { SandboxMode } from "../protocol/policy.js";
import { ConfigError } from "./errors.js";
import type {
  PermissionNetworkConfig,
  PermissionProfileConfig,
  PermissionProfiles,
} from "./permission-profile-parse.js";

export type { PermissionProfileConfig, PermissionProfiles } from "./permission-profile-parse.js";

/**
 * A profile that cannot be used (unknown, a bad `extends`, a cycle, none chosen): Codex's exact
 * message. A ConfigError, so every front-end that refuses a bad config refuses this too.
 */
export class PermissionProfileError extends ConfigError {
  override name = "PermissionProfileError";
}

/** The built-ins a named profile may extend (never `:danger-full-access`). */
const EXTENDABLE_BUILTINS = [":read-only", ":workspace"] as const;

/** A profile with its chain applied, paths still symbolic. */
interface Flattened {
  filesystem: Record<string, FsAccess>;
  workspaceRoots: Record<string, boolean>;
  globScanMaxDepth: number | null;
  network: PermissionNetworkConfig;
}

/**
 * The Permissions value of profile `id`: a built-in, or a named profile with its `extends`
 * chain applied; `~/` expands against `home`. `profile` is `{id, extends}` (the declared parent,
 * null for a built-in). Throws PermissionProfileError with Codex's message for an unknown id, an
 * undefined parent, an unsupported built-in parent, or a cycle.
 */
export function resolvePermissionProfile(
  profiles: PermissionProfiles,
  id: string,
  home: string,
): Permissions {
  if (id.startsWith(":")) return builtin(id);
  const own = Object.hasOwn(profiles, id) ? profiles[id] : undefined;
  if (!own) throw new PermissionProfileError(`default_permissions refers to undefined profile \`${id}\``);
  const flat = flatten(profiles, id, []);
  const expand = (path: string) => expandHome(path, home);
  const rules = Object.entries(flat.filesystem).map(([path, access]) => ({ path: expand(path), access }));
  return {
    kind: "sandboxed",
    profile: { id, extends: own.extends },
    legacyMode: rules.some((rule) => rule.access === "write") ? "workspace-write" : "read-only",
    filesystem: {
      rules,
      workspaceRoots: Object.entries(flat.workspaceRoots)
        .filter(([, on]) => on)
        .map(([root]) => expand(root)),
      globScanMaxDepth: flat.globScanMaxDepth ?? DEFAULT_GLOB_SCAN_MAX_DEPTH,
    },
    network: networkPolicy(flat.network, expand),
  };
}

function builtin(id: string): Permissions {
  const mode =
    id === ":read-only"
      ? "read-only"
      : id === ":workspace"
        ? "workspace-write"
        : id === ":danger-full-access"
          ? "danger-full-access"
          : null;
  if (mode === null)
    throw new PermissionProfileError(`default_permissions refers to undefined profile \`${id}\``);
  return { ...permissionsFromSandboxMode(mode, NO_EXTENT), profile: { id, extends: null } };
}

/** A built-in parent as the rules a child starts from. */
function builtinBase(id: (typeof EXTENDABLE_BUILTINS)[number]): Flattened {
  const value = builtin(id);
  const filesystem: Record<string, FsAccess> = Object.create(null);
  if (value.kind === "sandboxed")
    for (const rule of value.filesystem.rules) filesystem[rule.path] = rule.access;
  return { filesystem, workspaceRoots: Object.create(null), globScanMaxDepth: null, network: {} };
}

function flatten(profiles: PermissionProfiles, id: string, trail: string[]): Flattened {
  const own = profiles[id] as PermissionProfileConfig;
  const parent = own.extends === null ? null : parentOf(profiles, id, own.extends, [...trail, id]);
  return parent ? combine(parent, own) : combine(emptyProfile(), own);
}

function parentOf(profiles: PermissionProfiles, child: string, parent: string, trail: string[]): Flattened {
  if (parent.startsWith(":")) {
    if ((EXTENDABLE_BUILTINS as readonly string[]).includes(parent))
      return builtinBase(parent as (typeof EXTENDABLE_BUILTINS)[number]);
    throw new PermissionProfileError(
      `permissions profile \`${child}\` cannot extend unsupported built-in profile \`${parent}\``,
    );
  }
  if (!Object.hasOwn(profiles, parent))
    throw new PermissionProfileError(
      `permissions profile \`${child}\` extends undefined profile \`${parent}\``,
    );
  const start = trail.indexOf(parent);
  if (start >= 0)
    throw new PermissionProfileError(
      `permissions profile inheritance cycle detected: ${[...trail.slice(start), parent].join(" -> ")}`,
    );
  return flatten(profiles, parent, trail);
}

function emptyProfile(): Flattened {
  return {
    filesystem: Object.create(null),
    workspaceRoots: Object.create(null),
    globScanMaxDepth: null,
    network: {},
  };
}

function combine(parent: Flattened, child: PermissionProfileConfig): Flattened {
  const network: PermissionNetworkConfig = { ...parent.network, ...definedOnly(child.network) };
  for (const field of ["domains", "unixSockets"] as const) {
    const merged = parent.network[field] || child.network[field] ? Object.create(null) : undefined;
    if (merged) network[field] = Object.assign(merged, parent.network[field], child.network[field]);
  }
  return {
    filesystem: Object.assign(Object.create(null), parent.filesystem, child.filesystem),
    workspaceRoots: Object.assign(Object.create(null), parent.workspaceRoots, child.workspaceRoots),
    globScanMaxDepth: child.globScanMaxDepth ?? parent.globScanMaxDepth,
    network,
  };
}

function definedOnly(network: PermissionNetworkConfig): PermissionNetworkConfig {
  return Object.fromEntries(Object.entries(network).filter(([, value]) => value !== undefined));
}

/**
 * A profile's network: off by default; on without domain rules (and not `limited`) is the
 * host's network, as legacy `network_access`; domain rules (even an empty table) or `limited`
 * mean the managed proxy. Rules imply the proxy: no feature flag (Codex's #33351).
 */
function networkPolicy(network: PermissionNetworkConfig, expand: (path: string) => string): NetworkPolicy {
  if (!network.enabled) return { kind: "none" };
  if (network.domains === undefined && network.mode !== "limited") return { kind: "full" };
  return {
    kind: "proxied",
    mode: network.mode ?? "full",
    domains: Object.entries(network.domains ?? {}).map(([pattern, action]) => ({ pattern, action })),
    allowLocalBinding: network.allowLocalBinding ?? false,
    unixSockets: Object.entries(network.unixSockets ?? {}).map(([path, action]) => ({
      path: expand(path),
      action,
    })),
  };
}

function expandHome(path: string, home: string): string {
  if (path === "~") return home;
  if (path.startsWith("~/")) return `${home.replace(/\/+$/, "")}/${path.slice(2)}`;
  return path;
}

/** `permissionProfile/list`'s entries: the built-ins in their fixed order, then the named ones by name. */
export function listPermissionProfiles(
  profiles: PermissionProfiles,
): { id: string; description: string | null }[] {
  return [
    ...BUILTIN_PROFILE_IDS.map((id) => ({ id, description: null })),
    ...Object.keys(profiles)
      .sort()
      .map((id) => ({ id, description: (profiles[id] as PermissionProfileConfig).description })),
  ];
}

/** What a run gets and why: `note` says which setting is in force when two compete. */
export interface ConfiguredPermissions {
  permissions: Permissions;
  source: "profile" | "sandbox_mode";
  note: string | null;
}

/** What configuredPermissions reads of the loaded config (config/load.ts's Config has it all). */
export interface PermissionChoiceConfig {
  permissionProfiles: PermissionProfiles;
  defaultPermissions: string | null;
  sandboxMode: SandboxMode;
  sandboxModeExplicit: boolean;
  sandboxModeSource: "flag" | "override" | "config" | null;
  sandboxWorkspaceWrite: LegacyExtent;
}

/**
 * The permissions a run gets from its config (reference §6): an explicit profile choice (`-P`,
 * the app-server's `permissions`) first; then a sandbox mode given on the command line (`-s`,
 * `-c sandbox_mode=`), over `default_permissions`; then `default_permissions`, over a
 * `sandbox_mode` in a config file (as Codex 0.171 was seen to do); then the legacy sandbox mode.
 * `[permissions.*]` defined with none of these chosen is refused with Codex's message.
 */
export function configuredPermissions(
  config: PermissionChoiceConfig,
  choice: { profile?: string } = {},
  home: string = homedir(),
): ConfiguredPermissions {
  const profiles = config.permissionProfiles;
  const mode = `sandbox_mode = "${config.sandboxMode}"`;
  const fromCommandLine = config.sandboxModeSource === "flag" || config.sandboxModeSource === "override";
  const where = config.sandboxModeSource === "flag" ? "-s" : "-c";
  if (choice.profile !== undefined)
    return {
      permissions: resolvePermissionProfile(profiles, choice.profile, home),
      source: "profile",
      note: config.sandboxModeExplicit
        ? `permission profile \`${choice.profile}\` is in force (chosen for this run); ${mode} is ignored`
        : null,
    };
  if (fromCommandLine || config.defaultPermissions === null) {
    if (!config.sandboxModeExplicit && Object.keys(profiles).length > 0)
      throw new PermissionProfileError(
        "config defines `[permissions]` profiles but does not set `default_permissions`",
      );
    return {
      permissions: permissionsFromSandboxMode(config.sandboxMode, config.sandboxWorkspaceWrite),
      source: "sandbox_mode",
      note:
        config.defaultPermissions !== null
          ? `${mode} (${where}) is in force; default_permissions = "${config.defaultPermissions}" is ignored: a sandbox mode given for this run wins, and profiles and sandbox modes do not combine`
          : Object.keys(profiles).length > 0
            ? `${mode} is in force; the [permissions] profiles are not used: default_permissions is not set`
            : null,
    };
  }
  return {
    permissions: resolvePermissionProfile(profiles, config.defaultPermissions, home),
    source: "profile",
    note:
      config.sandboxModeSource === "config"
        ? `default_permissions = "${config.defaultPermissions}" is in force; ${mode} in the config is ignored: profiles and sandbox modes do not combine (-s chooses a sandbox mode for one run)`
        : null,
  };
}

/**
 * Load-time check of the merged `[permissions.*]` and `default_permissions`: every profile
 * resolves (so a bad `extends` or a cycle is refused before anything runs, even in a profile not
 * chosen yet) and `default_permissions` names one. Returns the warnings worth a line, for the
 * profiles a run may choose (those no other profile extends, and the default): domain rules with
 * network off, no filesystem rules at all.
 */
export function checkPermissionProfiles(
  profiles: PermissionProfiles,
  defaultPermissions: string | null,
  source: string,
): string[] {
  const names = Object.keys(profiles).sort();
  for (const name of names) flatten(profiles, name, []);
  if (defaultPermissions !== null) resolvePermissionProfile(profiles, defaultPermissions, "/");
  const parents = new Set(names.map((name) => (profiles[name] as PermissionProfileConfig).extends));
  const warnings: string[] = [];
  for (const name of names) {
    if (parents.has(name) && name !== defaultPermissions) continue;
    const flat = flatten(profiles, name, []);
    const rules = Object.keys(flat.network.domains ?? {}).length;
    if (!flat.network.enabled && rules > 0)
      warnings.push(
        `${source}: permissions profile \`${name}\` has ${rules} domain rule(s) but network.enabled is not true: they do nothing, the profile has no network`,
      );
    if (Object.keys(flat.filesystem).length === 0)
      warnings.push(
        `${source}: permissions profile \`${name}\` has no filesystem rules: its commands can read nothing (add extends = ":read-only", or ":root" = "read")`,
      );
  }
  return warnings;
}
